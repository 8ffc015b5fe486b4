"""The table core: a table's phases declared once, typed commands in, typed effects out.

It knows no Telegram and no page (`tests/test_architecture.py` keeps it so): adapters turn
a press into a command, and the effects the core returns into stored moves, screens,
timers and the tournaments' bookkeeping (`bot.tables.effects` runs them).
"""
