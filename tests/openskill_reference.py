"""OpenSkill itself, called directly: what `ratings.rate_game` must reproduce float for float."""

from __future__ import annotations

from openskill.models import PlackettLuce

from ratings import Skill


def openskill_rate(
    skills: list[Skill], ranks: list[int], weights: list[float] | None = None
) -> list[Skill]:
    """Each one-player team's skill after a game, by `PlackettLuce.rate` (weights as given:
    the bounds that would rescale them are off, as in `ratings`)."""
    model = PlackettLuce()
    model.weight_bounds = None
    teams = [[model.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = model.rate(
        teams,
        ranks=[float(r) for r in ranks],
        weights=None if weights is None else [[w] for w in weights],
    )
    return [Skill(t[0].mu, t[0].sigma) for t in rated]
