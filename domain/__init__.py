"""The records the bot keeps, as storage hands them out and the bot reads them: games and
their seats (`games`), people and chats (`people`), scores, standings and ratings
(`standings`), tournaments (`tournaments`). Data on `engine` and `ratings` only, so that
`storage` and `bot` both import them and the bot's core needs nothing of the database."""
