"""`hearts-bot verify SEED COMMITMENT` (issue 33, item 3): one sentence whether they match,
the deal printed, exit status 0 or 1 (2 for a seed that does not read)."""

from __future__ import annotations

import pytest

from bot.__main__ import main
from engine import fair

SEED = "4p-d1-" + "00" * 32
COMMITMENT = "332c1a7419f197fa5bce7a42efb270e6828f187c4c32e9db6ca45b33b2d2c602"


def test_a_matching_seed_and_commitment_exit_0_with_the_deal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["verify", SEED, COMMITMENT]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("The commitment matches:")
    assert out[1] == "seat 1 (dealer): 2C 3C 8C KD AD 5S 6S KS AS 3H 7H 9H KH"
    assert len(out) == 5


def test_a_changed_commitment_or_seed_exits_1_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["verify", SEED, COMMITMENT[:-1] + "3"]) == 1
    assert capsys.readouterr().out.startswith("The commitment does NOT match:")
    assert main(["verify", SEED[:-1] + "1", COMMITMENT]) == 1
    assert "does NOT match" in capsys.readouterr().out


def test_a_seed_copied_from_a_chat_with_its_direction_marks_still_reads(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A Persian group isolates values (U+2068 … U+2069); a copy may carry spaces too."""
    assert main(["verify", f"\u2068{SEED}\u2069 ", f" {COMMITMENT.upper()}\u200e"]) == 0
    assert "matches" in capsys.readouterr().out


def test_two_players_print_the_dead_cards(capsys: pytest.CaptureFixture[str]) -> None:
    seed = fair.seed_text(2, 1, bytes(range(32)))
    assert main(["verify", seed, fair.verify(seed, "").commitment]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("seat 2 (dealer): ") and out[3].startswith("dead cards: ")


@pytest.mark.parametrize("seed", ["nonsense", "4p-d7-" + "00" * 32, "4p-d1-abc"])
def test_a_seed_that_does_not_read_exits_2(seed: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", seed, COMMITMENT]) == 2
    assert "hearts-bot verify:" in capsys.readouterr().err


def test_the_12_digits_the_screens_show_are_enough(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 51, item 4: the commitment as a screen shows it (12 digits and an ellipsis)
    verifies, and the whole is printed to compare; 12 digits of another do not."""
    assert main(["verify", SEED, COMMITMENT[:12] + "…"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("The commitment matches its 12 digits given:") and COMMITMENT in out
    assert main(["verify", SEED, "0" + COMMITMENT[1:12]]) == 1
    assert "does NOT match" in capsys.readouterr().out


def test_fewer_than_12_digits_or_a_short_seed_say_what_to_copy(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["verify", SEED, COMMITMENT[:8]]) == 2
    assert "first 12 hex digits at least" in capsys.readouterr().err
    assert main(["verify", SEED[:18] + "…", COMMITMENT]) == 2
    assert "📋 Copy seed" in capsys.readouterr().err
