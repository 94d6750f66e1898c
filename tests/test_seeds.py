"""Seeds: every seed names its own match, and no AI is handed a seed its deal can be computed
from (RULES.md §6: an AI never reads hidden state)."""
import json
import math

import numpy as np
import pytest

import meldmind
from meldmind import MeldmindError, new_game, suggest
from meldmind import ai as ai_api
from meldmind import tournament
from meldmind.game import game_module


def _deal_of(variant, seed):
    module = game_module(variant)
    return module.KERNEL.new_state(module.make_params({}), np.int64(seed))


def _deals_again(variant, seed, dealt):
    """Whether ``seed`` or one of its near neighbours (XOR, offsets) deals the state ``dealt``:
    a seed an AI could deal its own game again from."""
    return any(np.array_equal(_deal_of(variant, near), dealt)
               for k in range(-8, 9) for near in (seed ^ abs(k), seed + k) if near < 2 ** 63)


class _Recording:
    """An AI kernel module whose function ``name`` records, through ``note``, what it is
    handed, then runs."""

    def __init__(self, module, name, note, records):
        self.module, self.name, self.note, self.records = module, name, note, records

    def __getattr__(self, attr):
        function = getattr(self.module, attr)
        if attr != self.name:
            return function

        def recorded(*args):
            self.records.append(self.note(*args))
            return function(*args)
        return recorded


def test_arena_seeds_name_different_matches():
    """derived_seed XOR-ed the seed with the deal's counter, so seeds 0, 2, 4 and 6 played the
    very same games."""
    results = {}
    for seed in range(6):
        r = meldmind.arena("gin", "normal", "easy", deals=8, seed=seed, processes=1,
                           progress=False)
        results[seed] = (r.wins_a, r.wins_b, r.draws, r.mean_score_diff)
    assert len(set(results.values())) == len(results), results
    deals = [{tournament.deal_seed_of(seed, d) for d in range(1000)} for seed in range(4)]
    assert all(not deals[i] & deals[j] for i in range(4) for j in range(i))


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_the_arena_hands_its_ais_no_seed_of_their_deal(variant, monkeypatch):
    """The AI seed of each arena game was the deal seed XOR 1 or 2."""
    handed = []
    real_module = tournament.ai_module
    def note(state, levels, iterations, seed, *game_under_way):
        return state.copy(), int(seed)

    monkeypatch.setattr(tournament, "ai_module",
                        lambda v: _Recording(real_module(v), "play_out", note, handed))
    meldmind.arena(variant, "easy", "beginner", deals=3, seed=5, processes=1, progress=False)
    assert len(handed) == 6
    for dealt, ai_seed in handed:
        assert not _deals_again(variant, ai_seed, dealt), ai_seed


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_a_hint_seeded_with_the_games_seed_cannot_deal_the_game(variant, monkeypatch):
    """A server may pass suggest the seed it dealt its game from: the search gets a seed
    derived from it, one-way, not that seed."""
    searched = []
    real_search = ai_api._search

    def recording(ai, obs, number, seed, *rest):
        searched.append(int(seed))
        return real_search(ai, obs, number, seed, *rest)

    monkeypatch.setattr(ai_api, "_search", recording)
    game = new_game(variant, seed=77)
    suggest(game.observation(game.to_move), level="expert", iterations=4, seed=77)
    assert searched
    assert _deals_again(variant, 77, _deal_of(variant, 77))    # the check can see a leak
    assert not any(_deals_again(variant, seed, _deal_of(variant, 77)) for seed in searched)


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_a_hint_tells_the_seed_it_drew_and_replays_from_it(variant):
    game = new_game(variant, seed=3)
    observation = game.observation(game.to_move)
    for budget in ({"iterations": 40}, {"budget_ms": 5}):
        hint = suggest(observation, level="master", seed=None, **budget)
        assert isinstance(hint.seed, int) and hint.to_json()["seed"] == hint.seed
        again = suggest(observation, level="master", iterations=hint.iterations, seed=hint.seed)
        assert again == hint
    # a seed the caller chose, maybe its game's, is not repeated into the answer
    given = suggest(observation, level="normal", seed=3)
    assert given.seed == 3 and "seed" not in given.to_json()


def test_a_seed_written_as_a_float_that_may_be_rounded_is_refused():
    record = json.loads(new_game("gin", seed=2 ** 62 + 1).to_json())
    record["seed"] = float(record["seed"])      # 2**62: the float lost the + 1
    with pytest.raises(MeldmindError, match=r"'seed' .* written as a float"):
        meldmind.Game.from_json(record)
    record["seed"] = float(2 ** 53)                 # exact: taken as the integer
    assert meldmind.Game.from_json(record).seed == 2 ** 53
    for beyond in (math.inf, 1e300):                # no seed at all: the range is the reason
        record["seed"] = beyond
        with pytest.raises(MeldmindError, match="seed must be an integer from"):
            meldmind.Game.from_json(record)


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_a_budget_leaves_the_games_of_levels_without_search_alone(variant):
    """A budget bounds searches: beginner against easy plays the same games with one as
    without (it used to seed each move otherwise)."""
    plain = meldmind.arena(variant, "beginner", "easy", deals=6, seed=8, processes=1,
                           progress=False)
    budgeted = meldmind.arena(variant, "beginner", "easy", deals=6, seed=8, processes=1,
                              progress=False, budget_ms=5)
    assert (plain.wins_a, plain.wins_b, plain.draws, plain.mean_score_diff) == \
        (budgeted.wins_a, budgeted.wins_b, budgeted.draws, budgeted.mean_score_diff)


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_a_heuristic_hint_seeded_with_the_games_seed_cannot_deal_the_game(variant, monkeypatch):
    """The levels without search get a derived seed for their random choices too."""
    given = []
    real_module = ai_api.ai_module
    monkeypatch.setattr(ai_api, "ai_module", lambda v: _Recording(
        real_module(v), "policy", lambda obs, legal, n, level, rng: int(rng[0]), given))
    game = new_game(variant, seed=78)
    suggest(game.observation(game.to_move), level="beginner", seed=78)
    assert given and not any(_deals_again(variant, seed, _deal_of(variant, 78)) for seed in given)
