"""The charts people read (issue 51, item 11): the value axis labels its top and bottom,
the step labels never run into the values, and a finished game names its winner on a
podium."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image, ImageDraw
from test_live_view import step, table_for

from bot.i18n import LANGUAGES, translator
from bot.screens import render
from engine import Game, Rules


@pytest.mark.parametrize(("lo", "hi"), [(0, 68), (0, 100), (-26, 113), (955.2, 1043.7), (0, 3)])
def test_the_value_axis_ends_on_labelled_round_ticks(lo: float, hi: float) -> None:
    low, high, step_ = render.axis_range(lo, hi)
    assert low <= lo and high >= hi
    assert (high - low) / step_ == pytest.approx(round((high - low) / step_))
    assert low / step_ == pytest.approx(round(low / step_))
    assert high - hi < step_ and lo - low < step_


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_first_step_label_clears_the_lowest_value_label(language: str) -> None:
    tr = translator(language)
    font = render.chart_font(language, 20)
    draw = ImageDraw.Draw(Image.new("RGB", (10, 10)))
    left, bottom = 70, 470
    value = draw.textbbox((left - 8, bottom), "-100", font=font, anchor="rm")
    first = draw.textbbox((left, bottom + render.X_LABEL_GAP), tr("start"), font=font, anchor="lt")
    assert value[2] <= first[0] or value[3] <= first[1]  # apart side by side or one above


def test_places_rank_the_lowest_total_first_and_share_ties() -> None:
    assert render.places([45, 29, 68, 14]) == [3, 2, 4, 1]
    assert render.places([10, 10, 30, 5]) == [2, 2, 4, 1]


def finished_table() -> object:
    rules = Rules(target=30)
    game = Game(rules, seed=5)
    table = table_for(rules, game)
    rng = random.Random(5)
    while game.phase != "over":
        step(game, rng)
    return table


def test_a_finished_games_chart_stands_its_winner_on_a_podium() -> None:
    table = finished_table()
    png = render.score_chart_png(translator("en"), table)  # type: ignore[arg-type]
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.height == 540 + render.PODIUM_HEIGHT
    gold = (232, 190, 60)
    band = image.crop((0, 0, image.width, render.PODIUM_HEIGHT))
    assert any(pixel == gold for pixel in band.get_flattened_data())  # the winner's block


def test_a_game_in_progress_has_no_podium() -> None:
    rules = Rules()
    game = Game(rules, seed=6)
    table = table_for(rules, game)
    rng = random.Random(6)
    while game.hand_number < 2:
        step(game, rng)
    image = Image.open(io.BytesIO(render.score_chart_png(translator("en"), table)))
    assert image.height == 540


def test_the_page_gets_the_charts_step_words_in_the_readers_language() -> None:
    from bot.live.view import words

    said = words(translator("ru"))
    assert said["start"] == translator("ru")("start")
    assert "{h}" in said["hand_short"]
