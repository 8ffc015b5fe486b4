"""The worker pool's line (`bot.computers.thinker`): computer players' moves before hints,
hints before reviews, first come first served within each, but the coach's turn after a
streak of computers; a caller that gives up leaves no job behind. Under load (a manual
clock, and fake work held by a gate): a computer's budget shrinks with the line and what
it waited, never below its level's floor; a hint that cannot start in time says so;
reviews, which have no time limit, still finish."""

from __future__ import annotations

import asyncio
import math
import threading

import pytest

from bot.computers import thinker as thinker_module
from bot.computers.thinker import (
    COMPUTER,
    COMPUTER_STREAK,
    HINT,
    HINT_PASS_S,
    HINT_WAIT_S,
    REVIEW,
    Budget,
    Thinker,
    TooBusy,
    shrunk_budget,
)
from engine import Game, Rules, SeatView
from engine.coach import (
    REVIEW_BUDGET_MS,
    Decision,
    PassPlan,
    hint,
    pass_hint_of,
    piece_deals,
    review,
    weigh_pass_search,
)
from engine.players import FLOOR_MS, LEVELS
from engine.players.passing import SHORTLIST


class Clock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def search_jobs(view: SeatView, seed: int) -> int:
    """How many jobs the `expert`'s pass search for ``view`` makes, all of it played: round
    one, every candidate on `FIRST_DEALS` deals, then the shortlist on `MORE_DEALS`, about
    `PIECE_PLAYOUTS` play-outs a job."""
    search = PassPlan.of(view, seed)[0].search
    jobs = -(-search.first // piece_deals(len(search.candidates)))
    return jobs + -(-search.more // piece_deals(SHORTLIST))


def _budget(tag: str, heard: list[tuple[str, float]], budget_ms: float) -> float:
    """Fake work of a computer's move: says which budget it was given."""
    heard.append((tag, budget_ms))
    return budget_ms


def _hold(gate: threading.Event) -> str:
    gate.wait(10)
    return "held"


def _say(what: str, heard: list[str]) -> str:
    heard.append(what)
    return what


async def test_computers_go_first_then_hints_then_reviews_whatever_came_first() -> None:
    thinker = Thinker(workers=0)  # one thread: one job at a time, as one worker process
    try:
        gate = threading.Event()
        heard: list[str] = []
        running = asyncio.ensure_future(thinker.run(REVIEW, _hold, gate))
        await asyncio.sleep(0.05)
        jobs = [
            asyncio.ensure_future(thinker.run(priority, _say, name, heard))
            for priority, name in [
                (REVIEW, "review 1"),
                (HINT, "hint 1"),
                (REVIEW, "review 2"),
                (COMPUTER, "computer 1"),
                (HINT, "hint 2"),
                (COMPUTER, "computer 2"),
            ]
        ]
        await asyncio.sleep(0.05)
        assert thinker.waiting() == 6  # the pool itself holds only the running job
        gate.set()
        assert await running == "held"
        await asyncio.gather(*jobs)
        assert heard == ["computer 1", "computer 2", "hint 1", "hint 2", "review 1", "review 2"]
    finally:
        thinker.close()


async def test_a_job_whose_caller_gave_up_is_never_run() -> None:
    thinker = Thinker(workers=0)
    try:
        gate = threading.Event()
        heard: list[str] = []
        running = asyncio.ensure_future(thinker.run(COMPUTER, _hold, gate))
        await asyncio.sleep(0.05)
        given_up = asyncio.ensure_future(thinker.run(HINT, _say, "given up", heard))
        kept = asyncio.ensure_future(thinker.run(REVIEW, _say, "kept", heard))
        await asyncio.sleep(0.05)
        given_up.cancel()
        gate.set()
        await running
        assert await kept == "kept"
        assert heard == ["kept"]
        assert thinker.waiting() == 0
    finally:
        thinker.close()


async def test_computers_that_keep_the_pool_busy_let_the_coach_through_now_and_then() -> None:
    # Computers that keep the pool busy on their own cannot starve the coach.
    thinker = Thinker(workers=0)
    try:
        gate = threading.Event()
        heard: list[str] = []
        running = asyncio.ensure_future(thinker.run(COMPUTER, _hold, gate))
        await asyncio.sleep(0.05)
        jobs = [asyncio.ensure_future(thinker.run(REVIEW, _say, "review", heard))]
        jobs += [asyncio.ensure_future(thinker.run(HINT, _say, "hint", heard))]
        jobs += [
            asyncio.ensure_future(thinker.run(COMPUTER, _say, f"computer {n}", heard))
            for n in range(1, 9)
        ]
        await asyncio.sleep(0.05)
        gate.set()
        await asyncio.gather(running, *jobs)
        streak = [f"computer {n}" for n in range(1, COMPUTER_STREAK + 1)]
        assert heard[: COMPUTER_STREAK + 1] == [*streak, "hint"]
        assert heard.index("review") == 2 * COMPUTER_STREAK + 1
        assert len(heard) == 10
    finally:
        thinker.close()


def test_the_budget_is_the_usual_one_on_an_idle_pool_and_shrinks_to_the_floor_never_below() -> None:
    budget = Budget(300.0, 100.0)
    assert shrunk_budget(budget, 0.0, 0, 2, 0.05) == 300.0
    # What it waited, and what the moves behind it can expect to wait, come off.
    assert shrunk_budget(budget, 0.05, 0, 2, 0.05) == pytest.approx(250.0)
    assert shrunk_budget(budget, 0.0, 4, 2, 0.05) == pytest.approx(200.0)
    assert shrunk_budget(budget, 0.05, 4, 1, 0.02) == pytest.approx(170.0)
    # A long line or a long wait: the level's floor, never less.
    assert shrunk_budget(budget, 0.0, 40, 2, 0.05) == 100.0
    assert shrunk_budget(budget, 5.0, 0, 2, 0.05) == 100.0
    # Never more than usual (a clock that went back, say).
    assert shrunk_budget(budget, -1.0, 0, 2, 0.05) == 300.0
    # Easy and standard are instant: their floor is nothing; the others' is stated once.
    assert FLOOR_MS["easy"] == FLOOR_MS["standard"] == 0.0
    assert set(FLOOR_MS) == set(LEVELS)
    assert all(0 < FLOOR_MS[level] < 300 for level in ("pro", "expert"))


async def test_a_computers_budget_shrinks_with_the_line_and_its_wait_never_below_the_floor() -> (
    None
):
    clock = Clock()
    thinker = Thinker(workers=0, clock=clock)
    try:
        heard: list[tuple[str, float]] = []
        # An idle pool: the usual budget.
        usual = Budget(300.0, 100.0)
        assert await thinker.run(COMPUTER, _budget, "alone", heard, budget=usual) == 300.0
        thinker.move_s = 0.04  # the moves' recent average
        gate = threading.Event()
        running = asyncio.ensure_future(thinker.run(REVIEW, _hold, gate))
        await asyncio.sleep(0.05)
        moves = [
            asyncio.ensure_future(thinker.run(COMPUTER, _budget, f"move {n}", heard, budget=usual))
            for n in range(1, 4)
        ]
        await asyncio.sleep(0.05)
        assert thinker.waiting() == 3
        clock.now += 0.1  # they waited 100 ms for the worker
        gate.set()
        await running
        given = await asyncio.gather(*moves)
        # The first had two moves behind it (2 × 40 ms) and waited 100 ms; the second one
        # move behind it, at an average the first's time moved (fake work takes no time
        # on the manual clock: 40 ms + 20% of −40 ms); the last none.
        assert given == [pytest.approx(120.0), pytest.approx(168.0), pytest.approx(200.0)]
        assert [tag for tag, _ in heard] == ["alone", "move 1", "move 2", "move 3"]

        # A long line, long waited: every move gets its level's floor, not less.
        running = asyncio.ensure_future(thinker.run(REVIEW, _hold, gate := threading.Event()))
        await asyncio.sleep(0.05)
        moves = [
            asyncio.ensure_future(thinker.run(COMPUTER, _budget, f"late {n}", heard, budget=usual))
            for n in range(8)
        ]
        await asyncio.sleep(0.05)
        clock.now += 3.0
        gate.set()
        await running
        assert await asyncio.gather(*moves) == [100.0] * 8
        figures = thinker.figures
        assert figures.moves == 12 and figures.at_floor == 8
        assert figures.longest_wait_s == pytest.approx(3.0)
    finally:
        thinker.close()


async def test_the_thinker_gives_each_level_its_own_floor() -> None:
    clock = Clock()
    thinker = Thinker(workers=0, clock=clock)
    try:
        game = Game(Rules(), seed=3)
        view = game.view(game.waiting_for()[0])
        gate = threading.Event()
        running = asyncio.ensure_future(thinker.run(REVIEW, _hold, gate))
        await asyncio.sleep(0.05)
        passes = [
            asyncio.ensure_future(thinker.choose_pass(level, 1, view, 300)) for level in LEVELS
        ]
        await asyncio.sleep(0.05)
        clock.now += 10.0
        gate.set()
        await running
        for chosen in await asyncio.gather(*passes):
            assert len(chosen) == 3 and set(chosen) <= set(view.hand)
        figures = thinker.figures
        assert figures.moves == 4
        assert figures.budget_ms == pytest.approx(sum(FLOOR_MS[level] for level in LEVELS))
    finally:
        thinker.close()


async def test_a_hint_that_cannot_start_in_time_says_so_and_leaves_the_line() -> None:
    clock = Clock()
    thinker = Thinker(workers=0, clock=clock)
    try:
        game = Game(Rules(), seed=5)
        view = game.view(0)
        gate = threading.Event()
        heard: list[str] = []
        running = asyncio.ensure_future(thinker.run(COMPUTER, _hold, gate))
        await asyncio.sleep(0.05)
        hint = asyncio.ensure_future(thinker.hint(7, view, 400))
        review = asyncio.ensure_future(thinker.run(REVIEW, _say, "review", heard))
        await asyncio.sleep(0.05)
        clock.now += HINT_WAIT_S + 0.5
        gate.set()
        await running
        with pytest.raises(TooBusy):
            await hint
        # The review has no time limit: it still runs.
        assert await review == "review"
        assert thinker.figures.too_busy == 1
        assert thinker.waiting() == 0
        # A hint asked of a free pool is answered.
        found = await thinker.hint(7, view, 400)
        assert len(found.best.cards) == 3
    finally:
        thinker.close()


async def test_reviews_yield_to_moves_and_hints_yet_finish_under_a_stream_of_moves() -> None:
    clock = Clock()
    thinker = Thinker(workers=0, clock=clock)
    try:
        heard: list[str] = []
        gate = threading.Event()
        running = asyncio.ensure_future(thinker.run(COMPUTER, _hold, gate))
        await asyncio.sleep(0.05)
        reviews = [
            asyncio.ensure_future(thinker.run(REVIEW, _say, f"review {n}", heard)) for n in range(2)
        ]
        hints = [
            asyncio.ensure_future(thinker.run(HINT, _say, f"hint {n}", heard)) for n in range(2)
        ]
        moves = [
            asyncio.ensure_future(thinker.run(COMPUTER, _say, f"move {n}", heard))
            for n in range(20)
        ]
        await asyncio.sleep(0.05)
        clock.now += 60.0  # however long they waited: reviews have no time limit
        gate.set()
        await asyncio.gather(running, *reviews, *hints, *moves)
        order = [h.split()[0] for h in heard]
        assert order.index("hint") < order.index("review")
        assert heard.index("hint 1") < heard.index("review 0")
        assert max(heard.index(f"review {n}") for n in range(2)) < len(heard) - 1
        assert order.count("review") == 2 and order.count("move") == 20
    finally:
        thinker.close()


@pytest.mark.usefixtures("pass_clock_off")
@pytest.mark.parametrize("workers", [0, 1], ids=["thread", "process"])
async def test_a_pass_hint_is_the_experts_own_search_in_short_jobs_that_moves_go_between(
    workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The pass search (about a second on a slow machine) was one job: a computer's move
    # asked meanwhile waited for all of it. In short jobs, it waits for one of them. In a
    # worker process each job's deals go on from where the last job's left off, as in one.
    monkeypatch.setattr(thinker_module, "HINT_PASS_S", math.inf)  # all of it, however slow
    thinker = Thinker(workers=workers)
    try:
        view = Game(Rules(), seed=5).view(0)
        started: list[int] = []
        moves: list[asyncio.Future[str]] = []

        def on_start(priority: int, _waited: float) -> None:
            started.append(priority)
            if started == [HINT]:  # a move asked while the first job runs
                moves.append(asyncio.ensure_future(thinker.run(COMPUTER, _say, "move", [])))

        thinker.on_start = on_start
        found = await thinker.hint(7, view, 400)
        assert await moves[0] == "move"
        assert started[:3] == [HINT, COMPUTER, HINT]
        assert started.count(HINT) == search_jobs(view, 7) > 2
        # The same hint, figures and all, as the search in one go.
        assert found == hint(view, 7)
    finally:
        thinker.close()


@pytest.mark.usefixtures("pass_clock_off")
async def test_a_reviews_pass_is_weighed_against_the_experts_own_found_in_short_jobs() -> None:
    game = Game(Rules(), seed=11)
    view = game.view(2)
    chosen = game.hand(2)[-3:]  # the three highest: rarely what the expert passes
    decision = Decision(trick=0, view=view, chosen=tuple(chosen))
    thinker = Thinker(workers=0)
    try:
        started: list[int] = []
        thinker.on_start = lambda priority, _waited: started.append(priority)
        found = await thinker.review(3, [decision], REVIEW_BUDGET_MS)
        assert found == review([decision], 3, REVIEW_BUDGET_MS)
        assert len(started) > 2 and set(started) == {REVIEW}
    finally:
        thinker.close()


@pytest.mark.usefixtures("pass_clock_off")
async def test_a_pass_hint_on_an_idle_pool_is_the_whole_search_however_long_it_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `HINT_PASS_S` counts the time a pass hint's jobs wait in the line, not their work:
    # on an idle pool they never wait, so the hint is the `expert`'s whole search (about
    # 0.45 s here), figures and all, even past `HINT_PASS_S` after its first job. (When it
    # counted the work too, a slower search was cut short on an idle pool, and the hint
    # could differ from the pass the `expert` itself would make.) The line's clock stands
    # still: on a busy machine the event loop's own delay between two jobs would count as
    # a wait (the test failed so under load).
    monkeypatch.setattr(thinker_module, "HINT_PASS_S", 0.1)
    thinker = Thinker(workers=0, clock=Clock())
    try:
        view = Game(Rules(), seed=5).view(0)
        started: list[int] = []
        thinker.on_start = lambda priority, _waited: started.append(priority)
        found = await thinker.hint(7, view, 400)
        assert found == hint(view, 7)
        assert started == [HINT] * search_jobs(view, 7)
    finally:
        thinker.close()


@pytest.mark.usefixtures("pass_clock_off")
async def test_the_review_of_a_pass_a_cut_hint_named_reads_the_hints_own_search() -> None:
    # Issue 51: 💡 said "the expert would pass 7♣ 4♦ J♦", the player passed those, and 🔍
    # said "the expert would pass 5♣ 7♣ A♣ … 1.4 more": the hint's search was cut short
    # by computers busy in the pool, the review's ran whole. Now the review plays the deals
    # the hint's search played, so it finds the hint's pass, and nothing wrong with it.
    clock = Clock()
    thinker = Thinker(workers=0, clock=clock)
    differed = 0
    try:
        for seed in range(8):
            view = Game(Rules(), seed=seed).view(seed % 4)
            started: list[int] = []

            def on_start(priority: int, _waited: float, started: list[int] = started) -> None:
                started.append(priority)
                if len(started) == 3:  # the computers kept the hint waiting: no more deals
                    clock.now += HINT_PASS_S + 3600  # (the jobs' own time moves the hint's end on)

            thinker.on_start = on_start
            found = await thinker.hint(seed, view, 400)
            thinker.on_start = None
            assert started == [HINT] * 3  # cut short in round one
            step = piece_deals(len(PassPlan.of(view, seed)[0].search.candidates))
            assert found == pass_hint_of(view, weigh_pass_search(view, seed, deals=(3 * step, 0)))
            decision = Decision(view, found.best.cards, 0)
            assert await thinker.review(seed, [decision], REVIEW_BUDGET_MS) == []
            differed += found.best.cards != hint(view, seed).best.cards
        assert differed  # the premise: a cut search often names another pass
    finally:
        thinker.close()


async def test_a_pass_hint_does_not_wait_for_a_job_still_in_the_line_when_its_time_comes() -> None:
    # A job of the hint's still waiting behind a computer's move once the hint's jobs have
    # waited `HINT_PASS_S` leaves the line unstarted: the hint answers then from what it
    # weighed (it waited for that job to start and run before, and its 95th percentile was
    # over 1 s with 20 tables' computers busy). It is not a hint that failed.
    clock = Clock()
    thinker = Thinker(workers=0, clock=clock)
    try:
        view = Game(Rules(), seed=5).view(0)
        gate = threading.Event()
        started: list[int] = []
        moves: list[asyncio.Future[str]] = []

        def on_start(priority: int, _waited: float) -> None:
            started.append(priority)
            if started == [HINT]:  # a computer's move, asked while the first job runs
                moves.append(asyncio.ensure_future(thinker.run(COMPUTER, _hold, gate)))

        thinker.on_start = on_start
        asked = asyncio.ensure_future(thinker.hint(7, view, 400))
        for _ in range(500):  # the move runs; the hint's second job waits behind it
            if started == [HINT, COMPUTER] and thinker.waiting_by_line() == {HINT: 1}:
                break
            await asyncio.sleep(0.01)
        assert started == [HINT, COMPUTER] and thinker.waiting_by_line() == {HINT: 1}
        clock.now += HINT_PASS_S + 0.1
        gate.set()
        found = await asyncio.wait_for(asked, 10)
        assert await moves[0] == "held"
        assert started == [HINT, COMPUTER]  # the second job never ran
        assert thinker.figures.too_busy == 0 and thinker.waiting() == 0
        options = [found.best, *found.others]
        assert len(options) == 3 and all(set(o.cards) <= set(view.hand) for o in options)
    finally:
        thinker.close()


async def test_a_pass_hint_kept_waiting_between_its_jobs_answers_from_the_deals_it_weighed() -> (
    None
):
    # Computers keep the pool busy: the hint's jobs come only by the coach's turn. Its
    # first job started in time; once the later ones have waited `HINT_PASS_S` in all it
    # answers from what it weighed rather than late (or not at all).
    clock = Clock()
    thinker = Thinker(workers=0, clock=clock)
    try:
        view = Game(Rules(), seed=5).view(0)
        started: list[int] = []

        def on_start(priority: int, _waited: float) -> None:
            started.append(priority)
            if len(started) == 1:
                clock.now += HINT_WAIT_S + 0.5  # past the first job's time: no matter now
            elif len(started) == 2:
                clock.now += HINT_PASS_S + 3600  # it waited past the hint's time: no more

        thinker.on_start = on_start
        found = await thinker.hint(7, view, 400)
        assert started == [HINT, HINT]
        assert thinker.figures.too_busy == 0
        hand = set(view.hand)
        options = [found.best, *found.others]
        assert len(options) == 3 and all(set(o.cards) <= hand for o in options)
        assert all(found.best.points <= o.points for o in found.others)
    finally:
        thinker.close()


async def test_the_review_of_a_card_a_hint_named_is_the_hints_own_evaluation() -> None:
    thinker = Thinker(workers=0, clock=Clock())
    try:
        for seed in range(4):
            game = Game(Rules(pass_cycle=("hold",)), seed=seed)
            for _ in range(5 + seed):
                seat = game.current_player
                assert seat is not None
                game.play(seat, game.legal_plays()[-1])
            seat = game.current_player
            assert seat is not None
            view = game.view(seat)
            found = await thinker.hint(seed, view, 400)
            decision = Decision(view, found.best.cards, len(view.tricks) + 1)
            assert await thinker.review(seed, [decision], REVIEW_BUDGET_MS) == []
            assert found == hint(view, seed)  # steady: the same on any machine
    finally:
        thinker.close()
