"""Issue 51, item 3: a player who taps only the cards their DM marks as playable plays a
card with every tap (the rules' refusal, "You must follow ♦", never comes)."""

from __future__ import annotations

from pathlib import Path

from bot_harness import open_table, play_turn, running_bot, table_in

from bot.telegram.draw import STRUCK
from sandbox.people import SandboxUser
from sandbox.testing import running_double
from sandbox.views import MessageView

HANDS = 2


def screen(person: SandboxUser) -> MessageView | None:
    """The person's living card screen (the newest message with card buttons)."""
    for message in reversed(person.dm_view().bot_messages):
        if any((b.callback_data or "").startswith("c:") for b in message.all_buttons()):
            return message
    return None


def marked(message: MessageView) -> list[str]:
    """The callback data of the cards the screen marks as playable: not struck through."""
    return [
        b.callback_data
        for b in message.all_buttons()
        if b.callback_data and b.callback_data.startswith("c:") and STRUCK not in b.label
    ]


def gone(person: SandboxUser, data: str) -> bool:
    """Whether the card of callback `data` has left the person's screen."""
    shown = screen(person)
    return shown is None or data not in [b.callback_data for b in shown.all_buttons()]


async def test_tapping_only_marked_cards_plays_a_card_with_every_tap(tmp_path: Path) -> None:
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group("Marked", members=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            lobby = await open_table(double, alice, group, computers=3)
            table = table_in(app, group)
            await alice.press(group, lobby, "▶ Start")
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None
            taps = played = 0
            while game.hand_number <= HANDS and game.phase != "over":
                if game.phase != "play":  # the pass, the moon: not what is measured
                    await play_turn(double, alice, table)
                    await double.idle()
                    continue

                def my_turn() -> MessageView | None:
                    # What Alice sees: her screen says it is her turn, and which cards.
                    shown = screen(alice)
                    if shown is None or "Your turn" not in (shown.text or ""):
                        return None
                    return shown if game.phase == "play" else None

                def hand_over() -> bool:
                    return game.phase != "play" or game.hand_number > HANDS

                # Her turn, or the hand ended with the computers' cards: whichever comes.
                found = await double.wait_for(lambda: my_turn() or hand_over(), 10)
                if not isinstance(found, MessageView):
                    continue
                shown = found
                choices = marked(shown)
                assert choices, shown.labels
                data = choices[-1]
                taps += 1
                toast = await alice.press(alice.dm, shown.message_id, data=data)
                assert toast is not None and toast.startswith("Played"), toast  # not refused
                played += 1
                # Until the card leaves her screen, it still says it is her turn.
                await double.wait_for(lambda tapped=data: gone(alice, tapped), 10)
            assert played == 13 * HANDS  # every card of her hands
            assert taps == played  # one tap a card
