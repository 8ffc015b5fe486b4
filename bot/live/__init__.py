"""The live table: a Telegram Mini App served by the bot, updated over a WebSocket.

`initdata` checks who opens it (Telegram's signed ``initData``), `view` says what one seat
may see, `watchers` what a watcher may (the engine's public view: no hand's card),
`membership` who may watch a group's table, `hub` keeps the open pages and pushes each
change to them, and `server` serves the page and its connections. A move from the page is
a typed command (`commands`) sent to the same entry points as a DM button press
(`bot.tables.play.Moves`, `bot.computers.coach.Coach`).
"""
