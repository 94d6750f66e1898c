"""The embedding API at the edges its docs name: the ranges of budget_ms, iterations and the
CardVerse options at their bounds, the default level of ``suggest`` and of ``meldmind hint``,
and a chosen move that ranks below the five best still listed among the alternatives."""
import io
import json
import random
import sys

import pytest

from meldmind import OptionError, new_game, suggest
from meldmind.ai import MAX_ITERATIONS
from meldmind.cli import EXIT_USAGE, main
from test_bad_input import _observation


def _stdin(text):
    return io.TextIOWrapper(io.BytesIO(text.encode()))


# -- budget_ms and iterations at their bounds ----------------------------------------------------

@pytest.mark.parametrize("budget", [0, 0.0, -0.0])
def test_a_budget_of_zero_ms_is_refused_however_it_is_written(budget):
    """budget_ms is "a finite positive number": zero is not positive, as an int no more than as
    a float."""
    with pytest.raises(OptionError, match="budget_ms must be a finite positive number"):
        suggest(_observation(), level="expert", budget_ms=budget, seed=1)


def test_a_budget_of_one_ms_is_the_smallest_integer_taken():
    hint = suggest(_observation(), level="expert", budget_ms=1, seed=1)
    assert hint.iterations >= 16       # a budget always runs its first 16 determinizations


def test_the_most_iterations_allowed_are_taken():
    """iterations runs from 1 to 10,000,000, both ends included. A budget stops the search long
    before the upper end, so the bound is checked without searching that long."""
    assert MAX_ITERATIONS == 10_000_000
    observation = _observation()
    hint = suggest(observation, level="expert", iterations=MAX_ITERATIONS, budget_ms=5, seed=1)
    assert 16 <= hint.iterations < MAX_ITERATIONS
    assert hint.move.id in {m["id"] for m in observation["legal_moves"]}
    # a heuristic level searches nothing, whatever the iterations
    assert suggest(observation, level="normal", iterations=MAX_ITERATIONS, seed=1).iterations == 0
    with pytest.raises(OptionError, match="iterations must be an integer from 1 to 10,000,000"):
        suggest(observation, level="expert", iterations=MAX_ITERATIONS + 1, budget_ms=5, seed=1)


def test_iterations_below_the_first_slice_cap_a_budgeted_search():
    """With both, the search stops after ``iterations`` or when the budget is spent, whichever
    comes first (hint --help: "with --budget-ms: at most this many"); slices add up in order, so
    the hint is the one of the same iterations without a budget."""
    observation = _observation()
    hint = suggest(observation, level="expert", iterations=8, budget_ms=60_000, seed=2)
    assert hint.iterations == 8
    assert all(a.visits <= 8 for a in hint.alternatives)
    assert hint == suggest(observation, level="expert", iterations=8, seed=2)


def test_the_hint_command_takes_the_most_iterations_allowed(monkeypatch, capsys):
    observation = _observation()
    monkeypatch.setattr(sys, "stdin", _stdin(json.dumps(observation)))
    assert main(["hint", "--level", "expert", "--iterations", str(MAX_ITERATIONS),
                 "--budget-ms", "5", "--seed", "1"]) == 0
    reply = json.loads(capsys.readouterr().out)
    assert reply["level"] == "expert" and 16 <= reply["iterations"] < MAX_ITERATIONS
    assert main(["hint", "--iterations", str(MAX_ITERATIONS + 1)]) == EXIT_USAGE


# -- the default level: master -------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_suggest_without_a_level_plays_master(variant):
    observation = _observation(variant, seed=4)
    hint = suggest(observation, iterations=24, seed=3)
    assert hint.level == "master"
    assert hint == suggest(observation, level="master", iterations=24, seed=3)
    assert hint.to_json()["level"] == "master"


def test_a_level_alias_is_reported_by_its_canonical_name():
    observation = _observation("gin", seed=4)
    for alias, name in (("zor", "expert"), ("hard", "expert"), ("Kolay", "easy"),
                        ("MAÎTRE", "master")):
        hint = suggest(observation, level=alias, iterations=24, seed=3)
        assert hint.level == name and hint.to_json()["level"] == name
        assert hint == suggest(observation, level=name, iterations=24, seed=3)


def test_the_hint_command_without_level_plays_master(monkeypatch, capsys):
    """``--level`` defaults to master, as its help says."""
    observation = _observation("gin", seed=4)
    monkeypatch.setattr(sys, "stdin", _stdin(json.dumps(observation)))
    assert main(["hint", "--iterations", "24", "--seed", "3"]) == 0
    reply = json.loads(capsys.readouterr().out)
    assert reply["level"] == "master" and reply["iterations"] == 24
    hint = suggest(observation, level="master", iterations=24, seed=3)
    assert reply["move"]["id"] == hint.move.id


# -- alternatives ------------------------------------------------------------------------------

def _gin_position(seed, moves):
    """The gin game of ``seed`` after ``moves`` random moves (random.Random(seed) picking)."""
    game, rng = new_game("gin", seed=seed), random.Random(seed)
    for _ in range(moves):
        game.play(rng.choice(game.legal_moves()))
    return game


def test_a_knock_ranked_below_the_five_best_is_listed_last():
    """Gin's search levels knock whenever they may unless the search finds the knock a clear
    loss (docs/json-protocol.md): here expert knocks though five discards rank above the knock,
    and the alternatives show those five, best first, then the knock."""
    game = _gin_position(201, 43)
    observation = game.observation(game.to_move)
    assert observation["phase"] == "discard"
    assert "knock" in {m["text"] for m in observation["legal_moves"]}
    hint = suggest(observation, level="expert", iterations=64, seed=1)
    assert hint.move.text == "knock"
    texts = [a.move.text for a in hint.alternatives]
    assert len(texts) == 6 and texts[-1] == "knock"
    assert all(text.startswith("discard") for text in texts[:5])
    values = [a.value for a in hint.alternatives]
    assert values[:5] == sorted(values[:5], reverse=True) and values[4] > values[5]
    assert values[5] == hint.value and all(a.visits > 0 for a in hint.alternatives)
    assert hint.to_json()["alternatives"][-1]["move"] == {"id": hint.move.id, "text": "knock"}


# -- game options at their bounds --------------------------------------------------------------

@pytest.mark.parametrize("option", ["target_score", "max_turns"])
def test_cardverse_counts_run_from_one_to_a_million(option):
    """README: CardVerse's target_score and max_turns take 1 to 1,000,000."""
    for allowed in (1, 1_000_000):
        game = new_game("cardverse", seed=1, options={option: allowed})
        assert game.options[option] == allowed
        assert game.observation(0)["options"][option] == allowed
    for refused in (0, -1, 1_000_001):
        with pytest.raises(OptionError, match=option):
            new_game("cardverse", seed=1, options={option: refused})


def test_gin_is_two_player_whatever_players_says():
    """new_game: gin is always two-player; players=2 is the only count it takes."""
    assert new_game("gin", players=2, seed=1).players == 2
    for players in (1, 3, 4):
        with pytest.raises(OptionError, match="gin is a two-player game"):
            new_game("gin", players=players, seed=1)


# -- the command line --------------------------------------------------------------------------

def test_a_seed_out_of_range_is_a_bad_flag_before_stdin_is_read(monkeypatch, capsys):
    """Seeds are integers from -2**63 to 2**63 - 1; a --seed beyond is a bad flag: exit 2 before
    any line is read, even with a good observation waiting, and with --lines no answer line."""
    data = json.dumps(_observation()) + "\n"
    for seed in (2 ** 63, -(2 ** 63) - 1):
        for lines in ([], ["--lines"]):
            monkeypatch.setattr(sys, "stdin", _stdin(data))
            assert main(["hint", "--level", "easy", "--seed", str(seed), *lines]) == EXIT_USAGE
            out = capsys.readouterr()
            assert out.out == "" and out.err.startswith("meldmind: error: seed must be an integer")
            assert sys.stdin.read() == data       # the observation was not read
    monkeypatch.setattr(sys, "stdin", _stdin(data))
    assert main(["hint", "--level", "easy", "--seed", str(2 ** 63 - 1)]) == 0


def test_analyze_json_names_the_hand_as_the_engine_spells_it(capsys):
    """The hand of README's example, written in lower case and 10 as T: its JSON gives the hand
    in the engine's notation, the two melds and 4 cards, 28 points of deadwood (K 10, 9, 4, 5)."""
    assert main(["analyze", "gin", "as 2s 3s 7c 7d 7h kd 9c 4h 5h", "--json"]) == 0
    [result] = json.loads(capsys.readouterr().out)
    assert result["variant"] == "gin" and result["hand"] == "AS 2S 3S 7C 7D 7H KD 9C 4H 5H"
    assert result["deadwood_points"] == 28 and result["deadwood_count"] == 4
    assert sorted(result["deadwood"]) == sorted(["KD", "9C", "4H", "5H"])
    assert main(["analyze", "gin", "TH", "JH", "QH", "--json"]) == 0
    [result] = json.loads(capsys.readouterr().out)
    assert result["hand"] == "10H JH QH" and result["deadwood_count"] == 0
