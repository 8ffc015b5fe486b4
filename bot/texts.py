"""Every sentence the bot says, in one place, ready for translation.

Texts are HTML (the bot sends with parse_mode HTML); values passed in are escaped by the
caller with `html.escape` where they come from people (names). ``t("key", **values)``
formats one; a missing translation falls back to English.
"""

from __future__ import annotations

from typing import Final

EN: Final[dict[str, str]] = {
    # Lobby
    "lobby.title": "♥ <b>Hearts</b> — table opened by {creator}",
    "lobby.seats": "<b>Seats</b>",
    "lobby.empty_seat": "— empty —",
    "lobby.computer": "🤖 {name}",
    "lobby.waiting_dm": "{name} (opening their DM…)",
    "lobby.hint": "Tap <b>Join</b> to sit down. Empty seats are filled with computer players "
    "when the game starts. The host can empty a seat with ✖.",
    "lobby.cancelled": "♥ This table was cancelled.",
    "lobby.expired": "⌛ This table closed: nobody started it within {hours} hours. Send "
    "/newgame to open a new one.",
    "button.join": "✋ Join",
    "button.leave": "🚪 Leave",
    "button.add_computer": "🤖 Add computer",
    "button.rules": "⚙ Rules",
    "button.start": "▶ Start",
    "button.cancel": "✖ Cancel",
    "button.back": "« Back",
    "button.remove_seat": "✖ {seat}",
    "button.open_dm": "Open my cards in a DM",
    # Rules menu
    "rules.menu_title": "⚙ <b>Table rules</b> — tap to change",
    "rules.players": "Players",
    "rules.variant": "Variant",
    "rules.moon": "Moon",
    "rules.queen": "Q♠ breaks hearts",
    "rules.first_trick": "First trick",
    "rules.first_trick.on": "no points",
    "rules.first_trick.off": "points allowed",
    "rules.target": "Target",
    "rules.timer": "Turn timer",
    "rules.level": "Computers",
    "rules.tracker": "Card tracker",
    "variant.standard": "Standard",
    "variant.omnibus_jd": "Omnibus J♦",
    "variant.omnibus_td": "Omnibus 10♦",
    "variant.complex": "Complex",
    "variant.two_player": "Two-player",
    "moon.choose": "shooter chooses",
    "moon.add_to_others": "+26 to others",
    "moon.subtract_from_shooter": "−26 to shooter",
    "on": "on",
    "off": "off",
    "timer.off": "no timer",
    "timer.seconds": "{seconds} s",
    "level.easy": "easy",
    "level.standard": "standard",
    "level.pro": "pro",
    "level.expert": "expert",
    "rules.menu_line": "{label}: <b>{value}</b>",
    "rules.summary.two_player": "{players} players · {variant} · moon: {moon} · to {target} · "
    "turn timer: {timer} · computer: {level}",
    "rules.summary": "{players} players · {variant} · moon: {moon} · Q♠ breaks hearts: "
    "{queen} · to {target} · turn timer: {timer} · computer: {level}",
    # Toasts and replies
    "toast.joined": "You're in! Your cards will come in a DM.",
    "toast.left": "You left the table.",
    "toast.computer_added": "Computer player added.",
    "toast.unselect_first": "3/3 selected — tap one to unselect it.",
    "toast.not_in_hand": "You don't have {card}.",
    "toast.error": "Something went wrong; please try again.",
    "you_named": "<b>{name}</b> (you)",
    "and": " and ",
    "computer.fallback_name": "Computer {number}",
    "moon.two_player": "opponent +20",
    "toast.already_seated": "You're already at this table.",
    "toast.other_table": "You're already playing at another table. Finish or /leave it first.",
    "toast.table_full": "The table is full.",
    "toast.not_seated": "You're not sitting at this table.",
    "toast.only_host": "Only {creator} or a group admin can do that.",
    "toast.need_human": "At least one person must sit at the table.",
    "toast.starting": "Dealing the cards…",
    "toast.no_empty_seat": "No empty seat for a computer player.",
    "toast.stale": "That button is from an earlier hand.",
    "toast.game_over": "That game is over.",
    "toast.unknown_button": "That button isn't valid any more.",
    "toast.not_your_game": "These aren't your cards.",
    "toast.wait_pass": "Wait: cards are being passed.",
    "toast.selected": "{count}/3 selected",
    "toast.choose_three": "Choose exactly 3 cards first.",
    "toast.passed": "Passed. Waiting for the others…",
    "toast.played": "Played {card}",
    "toast.moon_chosen": "Done!",
    "toast.rule_changed": "Rules changed.",
    "toast.cancelled": "Table cancelled.",
    "toast.rematch": "A new table is open: same rules, same seats.",
    "button.rematch": "🔁 New game",
    "toast.bad_rule": "That combination isn't possible: {reason}",
    "toast.removed": "Seat emptied.",
    "reply.open_dm_first": "{name}, I can't message you yet. Tap below, press <b>Start</b> in "
    "our chat, and your seat is yours.",
    "reply.no_table": "There's no table here. Start one with /newgame.",
    "reply.table_exists": "There's already a table in this chat: see the message above.",
    "reply.group_only": "Tables are opened in a group: add me to one and send /newgame there.",
    "reply.private_only": "Send that to me in a private chat.",
    "reply.game_in_progress": "A game is already in progress here.",
    "reply.cancel_nothing": "There's nothing to cancel here.",
    "reply.too_fast": "You're sending commands too fast. I'll answer again in a few seconds.",
    "reply.rejoined": "Welcome back! Your seat is yours again.",
    "reply.not_away": "You're not away from any game.",
    "reply.start_private": "Hi {name}! I run games of ♥ Hearts in groups. Add me to a group and "
    "send /newgame there. Your cards will come to this chat.",
    "reply.seat_taken_after_dm": "You're seated at the table in {chat}. Your cards will come "
    "here when the game starts.",
    "reply.dm_link_stale": "That table isn't open any more.",
    "reply.bad_link": "That link isn't one of mine: ask for a new one in the group.",
    "reply.members_only": "Only members of the table's group can sit at it.",
    # DM during play
    "dm.header": "♥ <b>Hearts</b> · {chat} · hand {hand}",
    "dm.pass_to": "Pass 3 cards {arrow} <b>{name}</b>",
    "dm.pass_hint": "Tap 3 cards to choose them, then tap <b>Pass</b>.",
    "dm.passed_waiting": "You passed {cards}. Waiting for: {names}.",
    "dm.received": "You received {cards} from {name} (marked • until the first trick is taken).",
    "dm.hold": "No passing this hand.",
    "dm.your_turn": "👉 <b>Your turn.</b>",
    "dm.turn_of": "Waiting for <b>{name}</b>.",
    "dm.trick": "Trick {number}/{total}: {cards}",
    "dm.trick_empty": "Trick {number}/{total}: —",
    "dm.time_left": "⏱ {minutes}:{seconds} left to play.",
    "dm.removed": "Out of the deck this game: {cards}",
    "dm.last_trick": "Last trick: {cards} → {name}",
    "dm.hearts_broken": "💔 Hearts are broken.",
    "dm.hearts_unbroken": "♥ Hearts are not broken.",
    "dm.points_hand": "This hand: {points}",
    "dm.scores": "Scores: {scores}",
    "dm.moon_choose": "🌕 <b>You shot the moon!</b> Choose:",
    "dm.moon_waiting": "🌕 {name} shot the moon and is choosing…",
    "dm.game_over": "🏁 <b>Game over.</b> {winners} won.",
    "dm.tracker_title": "<b>Cards played</b>",
    "dm.tracker_voids": "Known voids: {voids}",
    "dm.tracker_none": "none yet",
    "dm.nudge": "👉 Your turn in {chat}!",
    "dm.nudge_pass": "👉 Choose 3 cards to pass in {chat}.",
    "dm.nudge_moon": "🌕 You shot the moon in {chat}: choose!",
    "dm.reminder": "⏰ {seconds} s left to play in {chat}.",
    "dm.away": "You timed out 3 times in a row, so a computer player holds your seat. "
    "Send /rejoin to take it back.",
    "button.pass": "Pass {count}/3 {arrow}",
    "card.chosen": "[{card}]",
    "card.received": "•{card}",
    "button.moon_subtract": "−26 for me",
    "button.moon_add": "+26 for everyone else",
    "button.moon_subtract_complex": "−(13+13i) for me",
    "button.moon_add_complex": "+(13+13i) for everyone else",
    "button.tracker_on": "📋 Cards played",
    "button.tracker_off": "📋 Hide cards played",
    # Group table
    "table.title": "♥ <b>Hearts</b> · hand {hand} · {direction}",
    "table.passing": "Passing {direction}: waiting for {names}.",
    "table.turn": "Turn: <b>{name}</b>",
    "table.moon": "🌕 {name} shot the moon and is choosing.",
    "table.trick": "Trick: {cards}",
    "table.scores_title": "<b>Scores</b>",
    "table.scores_hand": "<b>Scores</b> (this hand's points in brackets)",
    "table.scores_final": "<b>Final scores</b>",
    "table.over": "🏁 <b>Game over!</b> {winners} won.",
    "table.cancelled_title": "♥ <b>Hearts</b> · ✖ cancelled during hand {hand}",
    "chart.target": "target {target}",
    "chart.hand": "H{hand}",
    "chart.start": "start",
    "table.follow_dm": "Play from your DM with me.",
    "direction.left": "pass left",
    "direction.right": "pass right",
    "direction.across": "pass across",
    "direction.hold": "no passing",
    "hand.result": "✋ <b>Hand {hand}</b>: {points}",
    "hand.moon": "🌕 {name} shot the moon!",
    "hand.standings": "Standings: {totals}",
    "game.timeout_played": "⏱ {name} ran out of time ({times}×); a computer player chose a "
    "card for {name}.",
    "game.away": "💤 {name} ran out of time {times} times in a row, so a computer player "
    "plays for {name} until {name} sends /rejoin.",
    "game.blocked": "🚫 {name} blocked me; a computer player takes the seat until they "
    "unblock me and send /rejoin.",
    "game.bot_removed": "✖ I was removed from {chat}, so its game has ended.",
    "game.storage_trouble": "⚠ I can't save moves right now, so this game waits. It goes on "
    "by itself as soon as I can.",
    "game.storage_back": "✅ Saving works again: the game goes on.",
    "reply.storage_trouble": "I can't save anything right now. Please try again in a minute.",
    "game.left": "🚪 {name} left; a computer player takes the seat.",
    "game.rejoined": "👋 {name} is back.",
    "game.quarantined": "⚠ This game's saved state could not be read, so it was set aside. "
    "Sorry! Start a new one with /newgame.",
    "game.cancelled": "✖ The game was cancelled by {name}.",
    "game.winner_chart": "Score by hand",
    # Scores and stats
    "scores.game_title": "<b>This game</b>",
    "scores.last_game_title": "<b>The last game here</b> (finished), hand by hand:",
    "scores.no_game": "No game is running here.",
    "scores.board_title": "<b>All-time leaderboard</b>",
    "scores.board_empty": "No finished games in this chat yet.",
    "scores.board_row": "{rank}. {name} — {won}/{played} won ({rate}%) · {avg} pts/hand",
    "stats.title": "<b>Your record</b>",
    "stats.none": "You haven't finished a game yet.",
    "stats.body": "Games: {played} · won {won} ({rate}%)\nAverage points per hand: {avg}\n"
    "Moons shot: {moons}\nBest game: {best} · worst: {worst}",
    "stats.recent": "Recent games:",
    "help": "♥ <b>Hearts</b>\n"
    "/newgame — open a table in this group\n"
    "/join, /leave — take or leave a seat\n"
    "/start — start the game (host or admin)\n"
    "/cancel — cancel the table (host or admin)\n"
    "/scores — this game and the all-time leaderboard\n"
    "/stats — your own record (in a DM)\n"
    "/rules — the rules of this table\n"
    "/rejoin — take your seat back from the computer\n"
    "/event — tournaments over several tables (<code>/event help</code>)\n"
    "/help — this list",
    # ------------------------------------------------------------------ Events
    # Multi-table tournaments (bot/tournaments/, the /event command); their sentences live here.
    "event.title": "🏆 <b>{name}</b> — a Hearts event by {organiser}",
    "event.starts": "Starts: <b>{when}</b>",
    "event.starts_manual": "Starts when the organiser sends /event start.",
    "event.deadline": "Registration closes: {when}",
    "event.format": "Tables of {size} · {advance} · {rules}",
    "event.advance_per_table": "the best {count} of each table go on",
    "event.advance_overall": "the best {count} of each round go on",
    "event.extras_duplicate": "duplicate deals (every table of a round gets the same cards)",
    "event.extras_computers": "computer players fill short tables",
    "event.extras_grace": "no-shows are replaced by a computer after {minutes} min and "
    "cannot go on",
    "event.only": "Open to: {names} (and anyone invited)",
    "event.members_only": "Open to members of this group.",
    "event.registered_count": "Registered: <b>{count}</b>",
    "event.status.registration": "Registration is open: tap <b>Register</b>.",
    "event.status.closed": "Registration is closed.",
    "event.status.running": "Round {round} is being played.",
    "event.status.paused": "⏸ Paused by the organiser.",
    "event.status.finished": "🏁 Finished.",
    "event.status.cancelled": "✖ Cancelled.",
    "event.button.register": "✋ Register",
    "event.button.withdraw": "🚪 Withdraw",
    "event.button.open_dm": "Open a DM with me to register",
    "event.round_title": "🏆 <b>{name}</b> · round {round}",
    "event.final_title": "🏆 <b>{name}</b> · the final",
    "event.table_line": "Table {no} · hand {hand}: {scores}",
    "event.table_line_done": "Table {no} 🏁 {scores}",
    "event.table_line_cancelled": "Table {no}: cancelled",
    "event.goes_on": "→ {names}",
    "event.no_show_mark": " (no-show)",
    "event.computer_mark": "🤖 {name}",
    # Replies and toasts
    "event.toast.registered": "You're registered! {count} so far.",
    "event.toast.already": "You're already registered.",
    "event.toast.withdrawn": "You've withdrawn from the event.",
    "event.toast.not_registered": "You're not registered.",
    "event.toast.closed": "Registration for this event is closed.",
    "event.toast.open_dm": "Open a DM with me first (the button below), then you're in.",
    "event.refused.not_member": "Sorry, this event is for members of {chat} only.",
    "event.refused.not_listed": "Sorry, the organiser opened this event to a list of "
    "people, and you're not on it. Ask them for an invitation.",
    "event.refused.removed": "The organiser removed you from this event.",
    "event.refused.no_username": "Sorry, this event is open to a list of usernames, and "
    "you have no Telegram username.",
    "event.open_dm": "{name}, I can't message you yet: tap below and press <b>Start</b> to "
    "finish registering for {event}.",
    "event.dm_registered": "✅ You're registered for <b>{event}</b> in {chat}. {when}",
    "event.dm_round": "🏆 <b>{event}</b>, round {round}: you're at table {table}. Your cards "
    "follow.",
    "event.reply.admin_only": "Only a group admin can create an event.",
    "event.reply.organiser_only": "Only the organiser ({name}) or a group admin can do that.",
    "event.reply.group_only": "Events are run in a group: send /event there.",
    "event.reply.none": "There's no event here. A group admin can create one:\n"
    '<code>/event new "Spring Cup" 2026-12-01 18:00 Asia/Kolkata</code>',
    "event.reply.exists": "There's already an event open here: {name}. Finish or "
    "<code>/event cancel</code> it first.",
    "event.reply.bad": "I didn't understand that: {reason}\nSee <code>/event help</code>.",
    "event.reply.past": "That start time has already passed.",
    "event.reply.round_running": "Round {round} is still being played.",
    "event.reply.not_enough": "At least 2 people must be registered to start.",
    "event.reply.paused": "Paused. <code>/event resume</code> carries on.",
    "event.reply.resumed": "Resumed.",
    "event.reply.not_paused": "The event isn't paused.",
    "event.reply.cancelled": "Cancelled.",
    "event.reply.removed": "{name} was removed.",
    "event.reply.who": "Whom? Reply to their message or give their @username.",
    "event.reply.unknown_player": "No one called {name} is registered.",
    "event.reply.list_set": "Done: {names}.",
    "event.reply.over": "That event is over.",
    "event.reply.started": "Starting round {round}.",
    "event.help": "🏆 <b>Events</b> (tournaments over several tables)\n"
    "\n"
    "<b>Create</b> (group admins):\n"
    '<code>/event new "Name" [YYYY-MM-DD HH:MM [Area/City]] [options]</code>\n'
    "Without a time, the organiser starts it. Table rules are this group's (⚙ Rules).\n"
    "\n"
    "<b>Options</b>:\n"
    "• <code>size=4</code> — players per table (3–6)\n"
    "• <code>advance=2</code> — the best of each table go on\n"
    "• <code>top=8</code> — or the best of the whole round\n"
    "• <code>computers=on</code> — computers fill short tables\n"
    "• <code>duplicate=on</code> — the same deals at every table\n"
    "• <code>grace=5</code> — minutes before a no-show is replaced\n"
    "• <code>deadline=2026-12-01T17:00</code> — registration closes\n"
    "• <code>target=100</code>, <code>timer=60</code>, <code>level=easy</code> — game rules\n"
    "• <code>only=@ann,@bob</code>, <code>invite=@cat</code> — who may register\n"
    "\n"
    "<b>Everyone</b>:\n"
    "• <code>/event</code> — registered, round, tables, standings\n"
    "• <code>/event withdraw</code> — take your name off (or tap Withdraw)\n"
    "\n"
    "<b>Organiser or admins</b>:\n"
    "• <code>/event start</code> — the next round now\n"
    "• <code>/event pause</code>, <code>/event resume</code>, <code>/event cancel</code>\n"
    "• <code>/event remove @name</code> (or as a reply)\n"
    "• <code>/event only @a @b</code>, <code>/event invite @c</code>",
    # Announcements (posted in the group)
    "event.announce.day": "📅 <b>{name}</b> starts tomorrow, {when}. {count} registered so "
    "far: tap Register on the event message to join.",
    "event.announce.hour": "⏰ <b>{name}</b> starts in an hour ({when}). {count} registered.",
    "event.announce.start": "▶ <b>{name}</b>, round {round}: {players} players at {tables} "
    "tables. Your cards are in your DMs with me. Good luck!",
    "event.announce.deadline": "🔒 Registration for <b>{name}</b> is closed: {count} registered.",
    "event.announce.results": "📋 <b>{name}</b>, round {round} is over. Going on: {names}.",
    "event.announce.final": "🏆 <b>{name}</b> is over! The winner is <b>{winner}</b>.\n{ranking}",
    "event.announce.no_winner": "🏁 <b>{name}</b> ended without a winner: no one was left "
    "to go on.",
    "event.announce.too_few": "✖ <b>{name}</b> was cancelled: fewer than 2 people registered.",
    "event.announce.no_show": "⌛ {names} didn't show up in round {round}: a computer plays "
    "their seat, and they can't go on.",
    "event.announce.paused": "⏸ <b>{name}</b> is paused by {by}. Games in progress go on; no "
    "new round starts until it resumes.",
    "event.announce.resumed": "▶ <b>{name}</b> carries on ({by}).",
    "event.announce.trouble": "⚠ Something went wrong while running <b>{name}</b>; the other "
    "events go on. The organiser can /event pause it, or /event cancel it.",
    "event.announce.cancelled": "✖ <b>{name}</b> was cancelled by {by}.",
    "event.announce.removed": "🚫 {player} was removed from <b>{name}</b> by {by}.",
    "event.announce.withdrew": "🚪 {player} withdrew from <b>{name}</b>.",
    "event.announce.waiting": "⏸ Round {round} is over, but the event is paused: the next "
    "round starts on <code>/event resume</code> or <code>/event start</code>.",
    "event.ranking_row": "{place}. {name}",
    "event.scores_title": "<b>Event: {name}</b> ({status})",
    "rules.text.standard": "<b>Hearts</b>: avoid hearts (1 point each) and Q♠ (13). Follow suit "
    "if you can. The holder of the lowest club leads it. Hearts can't be led until broken. "
    "Take all the hearts and Q♠ to shoot the moon. Lowest score wins when someone reaches "
    "{target}.",
    "rules.text.first_trick": "No hearts or Q♠ on the first trick (unless you hold nothing else).",
    "rules.text.omnibus": "Omnibus: {card} counts −10 to whoever takes it.",
    "rules.text.complex": "<b>Complex Hearts</b>: hearts 1, Q♠ 13i, J♦ −10; taking 10♣ "
    "multiplies your hand by 2i. Lowest magnitude |z| wins when someone's |z| reaches {target}.",
    "rules.text.two_player": "<b>Two-player Hearts</b>: 28 cards (2 4 6 8 10 Q A), two dead "
    "cards. Hearts are trumps. Hearts break when someone can't follow suit. Shooting the moon "
    "gives your opponent 20. The first to reach {target} loses.",
}

LANGUAGES: Final[dict[str, dict[str, str]]] = {"en": EN}


def t(key: str, lang: str = "en", /, **values: object) -> str:
    """The text for ``key`` in ``lang`` (English when missing), formatted with ``values``."""
    template = LANGUAGES.get(lang, EN).get(key) or EN[key]
    return template.format(**values) if values else template
