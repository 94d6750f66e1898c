"""Gin observations read from JSON must be what their history produces.

A server builds the observation it sends; the search trusts its fields, so a field that
contradicts the history (a Layoff phase without a knocker, a history of 192 passes) must be
refused by the reader, with the field named, and never reach the kernels, where it used to crash
the process. Every real observation, at every step of games that reach every phase, is accepted.
"""
import copy
import random

import numpy as np
import pytest

import meldmind
from meldmind import Game, MeldmindError
from meldmind.games import gin
from meldmind.kernels import gin as K

# seed 0, moves to the defender's Layoff phase (seat 1 knocked)
LAYOFF_RECORD = {"format": "meldmind.game", "version": 1, "variant": "gin", "options": {}, "seed": 0,
                 "moves": [52, 51, 53, 47, 53, 35, 52, 7, 52, 8, 53, 19, 52, 7, 53, 55, 15, 191, 59, 54]}


def _games_through_every_phase(count):
    """Random games that knock whenever they may (so most reach Knock, Layoff and the end),
    yielding each game at every step."""
    for seed in range(count):
        game = meldmind.new_game("gin", seed=seed)
        rng = random.Random(seed)
        while True:
            yield game
            if game.is_over:
                break
            moves = game.legal_moves()
            knock = [m for m in moves if m.text == "knock"]
            game.play(knock[0] if knock and rng.random() < 0.8 else rng.choice(moves))


def _observation(game, seat):
    d = game.observation(seat)
    d.pop("legal_moves", None)
    return d


def test_every_real_observation_is_accepted_and_read_back_exactly():
    phases = set()
    for game in _games_through_every_phase(40):
        for seat in range(2):
            d = _observation(game, seat)
            phases.add(d["phase"])
            expected = np.zeros(K.OBS_SIZE, np.int64)
            K.observe(game._state, seat, expected)
            np.testing.assert_array_equal(gin.observation_array(d), expected)
    assert phases == set(gin.PHASES[1:])


# every field below is fixed by the history: another value is a contradiction
FIELD_CHANGES = {
    "phase": lambda d, rng: rng.choice([p for p in gin.PHASES[1:] if p != d["phase"]]),
    "to_move": lambda d, rng: None if d["to_move"] is not None else 0,
    "knocker": lambda d, rng: rng.choice([v for v in (None, 0, 1) if v != d["knocker"]]),
    "upcard_draws": lambda d, rng: rng.choice([v for v in range(50) if v != d["upcard_draws"]]),
    "repeated_move": lambda d, rng: not d["repeated_move"],
    "passed_first_upcard": lambda d, rng: [not d["passed_first_upcard"][0], d["passed_first_upcard"][1]],
    "finished_layoffs": lambda d, rng: not d["finished_layoffs"],
    "deadwood": lambda d, rng: [rng.choice([v for v in (None, 0, 7, 10) if v != d["deadwood"][0]]),
                                d["deadwood"][1]],
    "prev_upcard": lambda d, rng: rng.choice([c for c in ("2C", "KS", None) if c != d["prev_upcard"]]),
    "history": lambda d, rng: d["history"][:-1] if d["history"] else [{"seat": 0, "move": "pass"}],
}


@pytest.mark.parametrize("field", FIELD_CHANGES)
def test_a_field_that_contradicts_the_history_is_refused(field):
    rng = random.Random(field)
    positions = [_observation(g, rng.randrange(2)) for g in _games_through_every_phase(12)
                 if rng.random() < 0.2]
    for d in positions:
        bad = copy.deepcopy(d)
        bad[field] = FIELD_CHANGES[field](d, rng)
        with pytest.raises(MeldmindError, match="gin observation"):
            gin.observation_array(bad)


def test_contradictions_that_crashed_the_search_are_refused_naming_the_field():
    layoff = Game.from_json(LAYOFF_RECORD)
    no_knocker = _observation(layoff, layoff.to_move)
    no_knocker["knocker"] = None
    passes = _observation(meldmind.new_game("gin", seed=7), 0)
    passes["history"] = [{"seat": 0, "move": "pass"}] * K.MAX_HISTORY
    knock_phase = _observation(meldmind.new_game("gin", seed=7), 0)
    knock_phase["phase"] = "knock"
    for bad, message in ((no_knocker, "gives knocker 1"), (passes, r"history\[1\]'\: seat 0 moves out of turn"),
                         (knock_phase, 'gives phase "first_upcard"')):
        with pytest.raises(MeldmindError, match=message):
            meldmind.suggest(bad, level="master", iterations=20, seed=1)


def test_a_history_that_does_not_fit_the_cards_is_refused():
    game = meldmind.new_game("gin", seed=3)
    game.play("draw upcard")
    d = _observation(game, 0)
    upcard = d["history"][0]
    d["hand"].remove(d["first_upcard"])          # the card it took is gone, a fresh one instead
    d["known_cards"][0].remove(d["first_upcard"])
    d["hand"].append(next(c for c in ("2C", "3C", "4C", "5C") if c not in d["hand"]
                          and c != d["first_upcard"]))
    assert upcard["move"] == "draw upcard"
    with pytest.raises(MeldmindError, match="takes .* in history\\[0\\] but does not hold it"):
        gin.observation_array(d)


def test_an_illegal_public_move_of_the_opponent_is_refused():
    """The opponent's hidden cards are guessed for the replay, but only the legality of its
    knock and melds depends on them: a draw it could not make is refused."""
    game = meldmind.new_game("gin", seed=3)
    game.play("pass")
    game.play("pass")           # both passed the first upcard: seat 0 must draw from the stock
    game.play("draw stock")
    d = _observation(game, 1)
    assert d["history"][2]["move"] == "draw stock"
    d["history"][2] = {"seat": 0, "move": "draw upcard"}
    d["known_cards"][0] = [d["first_upcard"]]    # the fields as if that draw had been legal
    d["discard_pile"] = []
    d["stock_size"] += 1
    with pytest.raises(MeldmindError, match=r"history\[2\]' \(draw upcard\) is illegal there"):
        gin.observation_array(d)
