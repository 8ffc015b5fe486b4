"""The declaration of what each kind of table accepts at each stage (`bot.core.accepts`):
complete, read by every way of naming a table, and saying no where issue 50 found holes.
tests/bot/test_e2e_accepts.py drives it through the bot."""

from __future__ import annotations

import pytest

from bot.basics import UserError
from bot.core import accepts
from bot.core import decode as cb
from bot.core.accepts import ACCEPTS, Ask, Kind, Stage, Standing
from bot.core.commands import (
    AddComputer,
    AskHint,
    Cancel,
    Deal,
    MakeMove,
    Mover,
    Sit,
    Start,
    StopWaiting,
    ToggleTracker,
    Wait,
)
from bot.core.phases import Phase
from bot.core.runner import EFFECTS, Runner, nothing
from bot.i18n import english
from bot.tables.model import Seat, Table, TableOptions
from engine import Game, Move, Rules

t = english()


def test_every_kind_of_table_says_what_it_accepts_at_every_stage() -> None:
    assert set(ACCEPTS) == set(Kind)
    for kind in Kind:
        assert set(ACCEPTS[kind]) == set(Stage), kind


def test_every_press_that_names_a_table_asks_something_declared() -> None:
    """A button names a table, or a tournament, a day or a chat: nothing else."""
    elsewhere = cb.TOURNAMENT_ACTIONS | cb.CHAT_ACTIONS | cb.DAILY_ACTIONS
    assert set(accepts.ASKS) == cb.ACTIONS - elsewhere
    assert set(accepts.EVENT_ASKS) == cb.TOURNAMENT_ACTIONS
    assert set(accepts.SEAT_ASKS) == {cb.TapCard, cb.PassCards, cb.ChooseMoon, cb.AskHint}
    asked = (
        set(accepts.ASKS.values())
        | set(accepts.SEAT_ASKS.values())
        | set(accepts.EVENT_ASKS.values())
    )
    assert asked == set(Ask)


def test_a_tournaments_buttons_are_taken_only_while_its_registration_is_open() -> None:
    """Withdrawing from a running event forfeits it: typed (``/event withdraw``), never a
    forged button."""
    for ask in (Ask.REGISTER, Ask.WITHDRAW):
        accepts.admit_event(True, ask)
    with pytest.raises(UserError) as refused:
        accepts.admit_event(False, Ask.WITHDRAW)
    assert t(refused.value.said) == t("That button isn't valid any more.")
    with pytest.raises(UserError) as refused:
        accepts.admit_event(False, Ask.REGISTER)
    assert t(refused.value.said) == t("Registration for this event is closed.")


def test_every_phase_is_a_stage() -> None:
    """Issue 52, item 2: one vocabulary: a table's stage is its phase."""
    assert Stage is Phase and set(Phase) == {"lobby", "dealt", "finished", "cancelled"}


@pytest.mark.parametrize("stage", list(Stage))
def test_a_daily_deal_is_never_left_cancelled_reopened_or_coached(stage: Stage) -> None:
    """Issue 50.2's three holes, and the coach: the daily deal is played to its end alone."""
    for ask in (Ask.LEAVE, Ask.CANCEL, Ask.REMATCH, Ask.HINT, Ask.REVIEW, Ask.JOIN):
        assert not accepts.accepts(Standing(Kind.DAILY, stage), ask), ask


def test_no_button_leaves_or_cancels_a_dealt_game_nor_joins_it() -> None:
    """Once dealt, a person leaves with /leave and a host cancels with /cancel (typed: they
    name no table); no screen offers those buttons, nor Join, nor the rules."""
    lobby_only = {Ask.JOIN, Ask.LEAVE, Ask.ADD_COMPUTER, Ask.RULES, Ask.SET_RULE, Ask.KICK}
    for kind in Kind:
        for stage in (Stage.DEALT, Stage.FINISHED, Stage.CANCELLED):
            taken = ACCEPTS[kind][stage] & (lobby_only | {Ask.START, Ask.CANCEL})
            assert not taken, (kind, stage, taken)


def test_only_a_groups_finished_game_is_played_again() -> None:
    again = {
        (kind, stage) for kind in Kind for stage in Stage if Ask.REMATCH in ACCEPTS[kind][stage]
    }
    assert again == {(Kind.GROUP, Stage.FINISHED), (Kind.TWO_PLAYER, Stage.FINISHED)}


def test_a_tournament_and_a_daily_deal_have_no_lobby_and_two_player_no_moon() -> None:
    assert ACCEPTS[Kind.TOURNAMENT][Stage.LOBBY] == frozenset()
    assert ACCEPTS[Kind.DAILY][Stage.LOBBY] == frozenset()
    assert Ask.MOON not in ACCEPTS[Kind.TWO_PLAYER][Stage.DEALT]
    assert Ask.MOON in ACCEPTS[Kind.GROUP][Stage.DEALT]


def test_a_refusal_is_one_sentence_with_its_reason_where_one_helps() -> None:
    def refusal(standing: Standing | None, ask: Ask) -> str:
        with pytest.raises(UserError) as refused:
            accepts.admit(standing, ask)
        return t(refused.value.said)

    not_valid = t("That button isn't valid any more.")
    assert refusal(None, Ask.CARD) == not_valid
    assert refusal(Standing(Kind.DAILY, Stage.DEALT), Ask.LEAVE) == not_valid
    assert refusal(Standing(Kind.TOURNAMENT, Stage.DEALT), Ask.HINT) == t(
        "No hints in a tournament: everyone plays unaided."
    )
    assert refusal(Standing(Kind.DAILY, Stage.FINISHED), Ask.REVIEW) == t(
        "Reviews of the daily deal open when the day is over."
    )
    accepts.admit(Standing(Kind.GROUP, Stage.DEALT), Ask.CARD)  # accepted: no exception


def test_a_tables_kind_comes_from_what_it_was_made_as() -> None:
    assert accepts.kind_of(None, 1978, "standard") is Kind.DAILY
    assert accepts.kind_of(7, None, "two_player") is Kind.TOURNAMENT
    assert accepts.kind_of(None, None, "two_player") is Kind.TWO_PLAYER
    assert accepts.kind_of(None, None, "complex") is Kind.GROUP
    assert accepts.stage_stored("active") is None  # a live table is the bot's to say
    assert accepts.stage_stored("quarantined") is None


def _daily_lobby() -> Table:
    return Table(
        id=1,
        chat_id=5,
        thread_id=None,
        chat_title="☀ 1",
        creator_id=5,
        creator_name="Ann",
        rules=Rules(players=4),
        options=TableOptions(),
        seats=[Seat("human", "Ann", 5), None, None, None],
        daily=1,
    )


async def test_the_runner_admits_a_persons_command_before_it_decides() -> None:
    """Issue 52, item 3: the rule holds for every entry point, not only the buttons and
    the page: what the table does not accept is refused before `decide`, the table as it
    was; what the bot itself does (a deal, a computer's move) is its command's to judge."""
    runner = Runner({kind: nothing for kind in EFFECTS})
    table = _daily_lobby()
    before = (list(table.seats), dict(table.pending))
    for command in (Sit(6, "Bob"), Wait(6, "Bob"), AddComputer(), Start(Game(table.rules))):
        with pytest.raises(UserError) as refused:
            await runner.run(table, command)
        assert t(refused.value.said) == t("That button isn't valid any more.")
        assert (table.seats, table.pending) == before
    assert accepts.asked(StopWaiting(6)) is None and accepts.asked(Cancel()) is None
    game = Game(table.rules, seed=1)
    await runner.run(table, Deal(game))  # the bot deals the day's game
    table.daily, table.tournament_id = None, 3
    with pytest.raises(UserError) as refused:
        await runner.run(table, AskHint(0))
    assert t(refused.value.said) == t("No hints in a tournament: everyone plays unaided.")
    seat = game.waiting_for()[0]
    move = Move.pass_cards(seat, game.hand(seat)[:3])
    assert accepts.asked(MakeMove(move, Mover.PERSON)) is Ask.PASS
    assert accepts.asked(MakeMove(move, Mover.COMPUTER)) is None
    await runner.run(table, MakeMove(move, Mover.PAGE))
    table.phase = Phase.FINISHED
    with pytest.raises(UserError) as refused:
        await runner.run(table, ToggleTracker(0))
    assert t(refused.value.said) == t("That game is over.")
