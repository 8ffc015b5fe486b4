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
    "rules.first_trick": "No points on 1st trick",
    "rules.target": "Play to",
    "rules.timer": "Turn timer",
    "rules.level": "Computer",
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
    "rules.summary": "{players} players · {variant} · moon: {moon} · Q♠ breaks hearts: "
    "{queen} · to {target} · turn timer: {timer} · computer: {level}",
    # Toasts and replies
    "toast.joined": "You're in! Your cards will come in a DM.",
    "toast.left": "You left the table.",
    "toast.computer_added": "Computer player added.",
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
    "reply.rejoined": "Welcome back! Your seat is yours again.",
    "reply.not_away": "You're not away from any game.",
    "reply.start_private": "Hi {name}! I run games of ♥ Hearts in groups. Add me to a group and "
    "send /newgame there. Your cards will come to this chat.",
    "reply.seat_taken_after_dm": "You're seated at the table in {chat}. Your cards will come "
    "here when the game starts.",
    "reply.dm_link_stale": "That table isn't open any more.",
    # DM during play
    "dm.header": "♥ <b>Hearts</b> · {chat} · hand {hand}",
    "dm.pass_to": "Pass 3 cards {arrow} <b>{name}</b>",
    "dm.pass_hint": "Tap 3 cards to choose them, then tap <b>Pass</b>.",
    "dm.passed_waiting": "You passed {cards}. Waiting for: {names}.",
    "dm.received": "You received {cards} from {name}.",
    "dm.hold": "No passing this hand.",
    "dm.your_turn": "👉 <b>Your turn.</b>",
    "dm.turn_of": "Waiting for <b>{name}</b>.",
    "dm.trick": "Trick: {cards}",
    "dm.trick_empty": "Trick: —",
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
    "table.scores_title": "<b>Scores</b> (this hand)",
    "table.over": "🏁 <b>Game over!</b> {winners} won.",
    "table.follow_dm": "Play from your DM with me.",
    "direction.left": "pass left",
    "direction.right": "pass right",
    "direction.across": "pass across",
    "direction.hold": "no passing",
    "hand.result": "✋ <b>Hand {hand}</b>: {points}",
    "hand.moon": "🌕 {name} shot the moon!",
    "hand.standings": "Standings: {totals}",
    "game.timeout_played": "⏱ {name} ran out of time; a computer player chose for them.",
    "game.away": "💤 {name} timed out 3 times; a computer player takes the seat until they "
    "/rejoin.",
    "game.left": "🚪 {name} left; a computer player takes the seat.",
    "game.rejoined": "👋 {name} is back.",
    "game.quarantined": "⚠ This game's saved state could not be read, so it was set aside. "
    "Sorry! Start a new one with /newgame.",
    "game.cancelled": "✖ The game was cancelled by {name}.",
    "game.winner_chart": "Score by hand",
    # Scores and stats
    "scores.game_title": "<b>This game</b>",
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
    "/help — this list",
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


def t(key: str, lang: str = "en", **values: object) -> str:
    """The text for ``key`` in ``lang`` (English when missing), formatted with ``values``."""
    template = LANGUAGES.get(lang, EN).get(key) or EN[key]
    return template.format(**values) if values else template
