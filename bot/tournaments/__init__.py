"""Tournaments (the `/tournament` command): registration, rounds of tables, results and the
final. They use tables through `bot.tables.desk` only."""
