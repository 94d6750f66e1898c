"""Seeds: every seed names its own match, and no AI is handed a seed its deal can be computed
from (RULES.md §6: an AI never reads hidden state)."""
import json

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


def test_arena_seeds_name_different_matches():
    """derived_seed XOR-ed the seed with the deal's counter, so seeds 0, 2, 4 and 6 played the
    very same games."""
    results = {}
    for seed in range(6):
        r = meldmind.arena("gin", "normal", "easy", deals=8, seed=seed, processes=1,
                           progress=False)
        results[seed] = (r.wins_a, r.wins_b, r.draws, r.mean_score_diff)
    assert len(set(results.values())) == len(results), results
    deals = [{ai_api.derived_seed(seed, "deal", d) for d in range(1000)} for seed in range(4)]
    assert all(not deals[i] & deals[j] for i in range(4) for j in range(i))


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_the_arena_hands_its_ais_no_seed_of_their_deal(variant, monkeypatch):
    """The AI seed of each arena game was the deal seed XOR 1 or 2."""
    handed = []
    real_module = tournament.ai_module

    class Recording:
        def __init__(self, module):
            self.module = module

        def __getattr__(self, name):
            return getattr(self.module, name)

        def play_out(self, state, levels, iterations, ai_seed):
            handed.append((state.copy(), int(ai_seed)))
            return self.module.play_out(state, levels, iterations, ai_seed)

    monkeypatch.setattr(tournament, "ai_module", lambda v: Recording(real_module(v)))
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
    assert suggest(observation, level="normal", seed=-4).seed == -4


def test_a_seed_written_as_a_float_that_may_be_rounded_is_refused():
    record = json.loads(new_game("gin", seed=2 ** 62 + 1).to_json())
    record["seed"] = float(record["seed"])      # 2**62: the float lost the + 1
    with pytest.raises(MeldmindError, match=r"'seed' .* written as a float"):
        meldmind.Game.from_json(record)
    record["seed"] = float(2 ** 53)                 # exact: taken as the integer
    assert meldmind.Game.from_json(record).seed == 2 ** 53
