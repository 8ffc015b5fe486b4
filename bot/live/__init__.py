"""The live table: a Telegram Mini App served by the bot, updated over a WebSocket.

`initdata` checks who opens it (Telegram's signed ``initData``), `view` says what one seat
may see, `hub` keeps the open pages and pushes each change to them, and `server` serves
the page and its connections. A move from the page goes through the same code as a DM
button press (`bot.telegram.handlers.press`).
"""
