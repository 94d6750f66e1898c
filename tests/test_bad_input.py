"""Bad input from a server or a user ends in a meldmind error naming what is wrong — never in a
raw TypeError, ValueError or OverflowError — and the JSON meldmind emits matches its schemas."""
import json
import math
import os
import random
import re
import subprocess
import sys
import warnings
from importlib import resources

import jsonschema
import numpy as np
import pytest

import meldmind
from meldmind import CardError, Game, MeldmindError, OptionError, new_game
from meldmind import ai, tournament
from meldmind.ai import MAX_ITERATIONS
from meldmind.cli import EXIT_USAGE, main

HUGE = "9" * 5000      # beyond Python's 4300-digit limit for reading an integer


def _observation(variant="gin", seed=9):
    game = new_game(variant, seed=seed)
    return game.observation(game.to_move)


def _game_record(**fields):
    return {"format": "meldmind.game", "version": 1, "variant": "cardverse", "options": {},
            "seed": 1, "moves": [], **fields}


def test_a_json_integer_too_long_to_read_is_malformed_json():
    text = json.dumps(_game_record()).replace('"seed": 1', f'"seed": {HUGE}')
    with pytest.raises(MeldmindError, match="malformed game JSON"):
        Game.from_json(text)
    observation = json.dumps(_observation()).replace('"seat": 0', f'"seat": {HUGE}')
    with pytest.raises(MeldmindError, match="malformed observation JSON"):
        meldmind.suggest(observation, level="easy")


def test_a_key_given_twice_in_one_object_is_malformed_json_wherever_json_is_read():
    """Parsers disagree on which of two values of one key counts, so none is chosen."""
    observation = json.dumps(_observation()).replace('"seat": 0', '"seat": 1, "seat": 0')
    with pytest.raises(MeldmindError, match='malformed observation JSON: the key "seat" appears '
                                            'twice in one object'):
        meldmind.suggest(observation, level="easy")
    record = json.dumps(_game_record()).replace('"options": {}', '"options": {"ace_high": true, '
                                                                  '"ace_high": false}')
    with pytest.raises(MeldmindError, match='malformed game JSON: the key "ace_high" appears'):
        Game.from_json(record)
    assert Game.from_json(json.dumps(_game_record())).variant == "cardverse"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_malformed_json(constant):
    """Python's reader takes them, JSON and the readers of other languages do not."""
    observation = json.dumps(_observation()).replace('"seat": 0', f'"seat": {constant}')
    with pytest.raises(MeldmindError, match=f"malformed observation JSON: {constant} is not JSON"):
        meldmind.suggest(observation, level="easy")
    record = json.dumps(_game_record()).replace('"seed": 1', f'"seed": {constant}')
    with pytest.raises(MeldmindError, match=f"malformed game JSON: {constant} is not JSON"):
        Game.from_json(record)


def test_a_game_record_with_a_field_game_json_lacks_is_refused():
    with pytest.raises(MeldmindError, match="unknown field 'move' \\(did you mean 'moves'\\?\\): a "
                                            "game record holds only the fields of game.json"):
        Game.from_json(json.dumps(_game_record(move=[1])))


def test_a_bare_move_id_may_be_written_as_json_writes_it():
    game, twin = new_game("gin", seed=3), new_game("gin", seed=3)
    move = game.legal_moves()[0]
    assert game.play(float(move.id)) == twin.play(move.id) == move


def test_cli_hint_lines_answers_undecodable_and_unreadable_lines_and_goes_on():
    good = json.dumps(_observation()).encode()
    huge = good.replace(b'"seat": 0', b'"seat": ' + HUGE.encode())
    lines = [b"\xff", huge, b"[1, 2\r", b"[1, 2", good]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    result = subprocess.run([sys.executable, "-m", "meldmind.cli", "hint", "--lines", "--level",
                             "easy", "--seed", "1"], input=b"\n".join(lines) + b"\n", env=env,
                            capture_output=True, timeout=600)
    assert result.returncode == 0, result.stderr.decode()
    undecodable, unreadable, cut_crlf, cut, answered = (json.loads(line)
                                                        for line in result.stdout.splitlines())
    assert "malformed observation JSON" in undecodable["error"]
    assert "malformed observation JSON" in unreadable["error"]
    # a request is one line: its errors point into that line, whatever ends it
    assert cut["error"] == cut_crlf["error"] == \
        "malformed observation JSON: Expecting ',' delimiter: line 1 column 6 (char 5)"
    assert "move" in answered


def _search_size_is_refused_everywhere(name, value, message, capsys):
    """``suggest``, ``arena`` and the CLI's ``arena`` and ``hint`` (with and without --lines)
    refuse the search size ``name=value`` before playing or reading a line."""
    with pytest.raises(OptionError, match=message):
        meldmind.suggest(_observation(), level="master", **{name: value})
    with pytest.raises(OptionError, match=message):
        meldmind.arena("gin", "expert", "normal", deals=1, processes=1, progress=False,
                       **{name: value})
    flag = "--" + name.replace("_", "-")
    assert main(["arena", "gin", "expert", "normal", "--deals", "1", "--processes", "1", flag,
                 str(value), "--json"]) == 2
    assert message.split()[0] in capsys.readouterr().err
    for lines in ([], ["--lines"]):
        result = subprocess.run([sys.executable, "-m", "meldmind.cli", "hint", flag, str(value),
                                 *lines], input=json.dumps(_observation()),
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 2 and message.split()[0] in result.stderr, result.stderr
        assert result.stdout == ""


@pytest.mark.parametrize("budget", [math.inf, 10 ** 400], ids=["inf", "10**400"])
def test_a_budget_beyond_the_floats_is_an_option_error(budget, capsys):
    _search_size_is_refused_everywhere("budget_ms", budget,
                                       "budget_ms must be a finite positive number", capsys)


def test_a_variant_that_is_not_a_name_is_an_option_error():
    with pytest.raises(OptionError, match="gin, cardverse"):
        new_game(["gin"], seed=1)
    with pytest.raises(OptionError, match="gin, cardverse"):
        Game(["gin"], options={}, seed=1)


def test_version_true_is_not_version_1():
    with pytest.raises(MeldmindError, match="unsupported game version true"):
        Game.from_json(_game_record(version=True))
    with pytest.raises(MeldmindError, match="unsupported game version true"):
        Game.from_json(json.dumps(_game_record(version=True)))
    for variant in ("gin", "cardverse"):
        observation = {**_observation(variant), "version": True}
        with pytest.raises(MeldmindError, match="unsupported observation version true"):
            meldmind.suggest(observation, level="easy")


def test_option_names_must_be_strings():
    from meldmind.games import cardverse
    mixed = {1: 2, "x": 3}
    for call in (lambda: new_game("cardverse", seed=1, options=mixed),
                 lambda: new_game("gin", seed=1, options=mixed),
                 lambda: cardverse.make_params(mixed),
                 lambda: meldmind.analyze_hand("cardverse", "AS", options=mixed),
                 lambda: meldmind.arena("cardverse", "easy", "easy", deals=1, options=mixed)):
        with pytest.raises(OptionError, match="option names are strings, not 1"):
            call()
    with pytest.raises(OptionError, match="unknown option 'x' for cardverse"):
        meldmind.analyze_hand("cardverse", "AS", options={"x": 3})


@pytest.mark.parametrize("variant, hand, table, card", [
    ("cardverse", "5S", ["2S 3S 4S", "5S 6S 7S"], "5S"),       # in the hand and on the table
    ("cardverse", "4S 5S", ["2S 3S 4S"], "4S"),
    ("gin", "9H", ["2S 3S 4S", "4S 4D 4C"], "4S"),              # on two table melds
    ("rami", "4H", ["5H 6H 7H", "7S 7D 7H"], "7H"),
    ("rami", "JK", ["JK1 6H 7H", "JK2 7D 7C"], "JK"),          # a third joker
    ("kirolo", "FI07", ["FI05a FI06a FI07a", "FI07b WA07a EA07a"], "FI07"),   # a third FI07
])
def test_a_card_on_the_table_cannot_also_be_in_the_hand(variant, hand, table, card):
    with pytest.raises(CardError, match=f"duplicate card '{card}'"):
        meldmind.layoff_targets(variant, hand, table)


def test_a_hand_card_named_without_a_copy_takes_one_the_table_leaves_free():
    assert meldmind.layoff_targets("kirolo", "FI08", ["FI05a FI06a FI07a", "FI06b FI07b FI08a"]) \
        == [meldmind.LayOff("FI08b", 0, "high")]
    assert meldmind.layoff_targets("rami", "JK", ["JK1 6H 7H", "8S 9S 10S"]) \
        == [meldmind.LayOff("JK2", 1, "low"), meldmind.LayOff("JK2", 1, "high")]


@pytest.mark.parametrize("parameters", [{"knock_card": 5}, {"oklahoma": True}, {"gin_bonus": 50},
                                        {"hand_size": 7}, {"num_ranks": 10}])
def test_openspiel_bot_refuses_gin_rummy_with_other_parameters(parameters):
    pyspiel = pytest.importorskip("pyspiel")
    from meldmind.integrations.openspiel import MeldmindBot
    state = pyspiel.load_game("gin_rummy", parameters).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    (name, value), = parameters.items()
    with pytest.raises(OptionError, match=f"meldmind plays gin_rummy with its default parameters "
                                          f"only: {name} is {value}"):
        MeldmindBot(state.current_player(), level="easy").step(state)


def _schema(name):
    return json.loads(resources.files("meldmind").joinpath(f"schemas/{name}.json").read_text())


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_every_observation_and_move_of_whole_games_matches_the_schemas(variant):
    """Games played to the end, half the moves by the easy level so that gin hands get knocked
    and laid off: every observation of both seats and every legal move is valid JSON of the
    shipped schemas."""
    from referencing import Registry, Resource
    move_schema, observation_schema = _schema("move"), _schema(f"observation-{variant}")
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in (move_schema, observation_schema))
    observation = jsonschema.Draft202012Validator(observation_schema, registry=registry)
    move = jsonschema.Draft202012Validator(move_schema)
    options = {"target_score": 30} if variant == "cardverse" else {}
    phases, move_types = set(), set()
    for seed in range(8):
        game = new_game(variant, seed=seed, options=options)
        rng = random.Random(seed)
        while True:
            for seat in range(2):
                observation.validate(game.observation(seat))
            if game.is_over:
                break
            obs = game.observation(game.to_move)
            for legal in obs["legal_moves"]:
                move.validate(legal)
                move_types.add((legal["type"], legal.get("kind")))
            phases.add(obs["phase"])
            if rng.random() < 0.5:
                game.play(meldmind.suggest(obs, level="easy", seed=seed).move)
            else:
                game.play(rng.choice(game.legal_moves()))
    if variant == "gin":
        assert {"knock", "layoff"} <= phases
        assert {("lay_meld", "group"), ("lay_meld", "run"), ("lay_off", None)} <= move_types
    else:
        assert {("lay_meld", "group"), ("lay_meld", "run"), ("lay_off", None)} <= move_types


TOO_LONG_TO_WRITE = 10 ** 5000     # Python's repr of it raises ValueError
ENTRY_POINTS_TAKING_INTEGERS = {
    "new_game seed": lambda n: new_game("gin", seed=n),
    "an option": lambda n: new_game("cardverse", seed=1, options={"target_score": n}),
    "analysis option": lambda n: meldmind.analyze_hand("rami", "AS", options={"num_players": n}),
    "suggest iterations": lambda n: meldmind.suggest(_observation(), level="expert", iterations=n),
    "suggest budget": lambda n: meldmind.suggest(_observation(), level="expert", budget_ms=n),
    "an observation field": lambda n: meldmind.suggest({**_observation(), "stock_size": n}, level="easy"),
    "an observation list": lambda n: meldmind.suggest({**_observation(), "hand_sizes": [n, 1]},
                                                      level="easy"),
    "play an action id": lambda n: new_game("gin", seed=1).play(n),
    "observation seat": lambda n: new_game("gin", seed=1).observation(n),
    "game record move": lambda n: Game.from_json({"format": "meldmind.game", "version": 1,
                                                  "variant": "gin", "options": {}, "seed": 1,
                                                  "moves": [n]}),
    "arena deals": lambda n: meldmind.arena("gin", "easy", "beginner", deals=n, progress=False),
}


@pytest.mark.parametrize("entry", ENTRY_POINTS_TAKING_INTEGERS)
def test_an_integer_too_long_to_write_gets_a_meldmind_error(entry):
    """The error message names the bad integer by its size: writing it out would itself raise."""
    with pytest.raises(MeldmindError, match="integer .*bits|holding an integer"):
        ENTRY_POINTS_TAKING_INTEGERS[entry](TOO_LONG_TO_WRITE)


# -- search sizes ------------------------------------------------------------------------------

@pytest.mark.parametrize("iterations", [MAX_ITERATIONS + 1, 2 ** 32, 2 ** 62])
def test_more_iterations_than_a_decision_can_use_are_refused_before_searching(iterations,
                                                                              capsys):
    """The search's buffers grow with the iterations: 2**32 of them would fill the memory."""
    _search_size_is_refused_everywhere(
        "iterations", iterations, "iterations must be an integer from 1 to 10,000,000", capsys)


@pytest.mark.parametrize("budget", [1e30, sys.float_info.max], ids=["1e30", "largest float"])
def test_a_huge_budget_stops_at_the_iterations_asked_for(budget):
    hint = meldmind.suggest(_observation(), level="expert", budget_ms=budget, iterations=40,
                            seed=2)
    assert hint.iterations == 40


def test_search_slices_add_up_to_the_same_suggestion(monkeypatch):
    """A search runs in slices of at most _MAX_SLICE determinizations; the slicing does not move
    the result (the sums are added in the same order)."""
    whole = meldmind.suggest(_observation(), level="master", iterations=40, seed=9)
    monkeypatch.setattr(ai, "_MAX_SLICE", 7)
    sliced = meldmind.suggest(_observation(), level="master", iterations=40, seed=9)
    assert sliced == whole


def test_a_budget_searches_at_least_its_first_slice():
    """The first call of a process can spend a small budget on loading the kernels; the hint
    still rests on _FIRST_SLICE determinizations, not on one."""
    hint = meldmind.suggest(_observation(), level="master", budget_ms=1e-6, seed=3)
    assert hint.iterations == ai._FIRST_SLICE


def _nested(depth):
    value = 1
    for _ in range(depth):
        value = [value]
    return value


def test_a_value_nested_too_deeply_to_write_is_refused_by_name_not_by_recursion_error():
    """A Python caller (or a server whose JSON parser allows deep nesting) hands over a value
    too deep for ``repr``: the message says so instead of raising RecursionError."""
    # deeper than the recursion limit, which another test's library (mypy) may have raised, and
    # than the C stack's limit, which bounds repr from Python 3.13 on (about 10,000 levels)
    deep = _nested(max(sys.getrecursionlimit(), 20_000) + 4000)
    game = new_game("gin", seed=1)
    before = game.to_json()
    for call in (lambda: new_game("gin", seed=deep), lambda: game.play(deep),
                 lambda: game.play({"id": deep}), lambda: meldmind.suggest(_observation(), level=deep),
                 lambda: meldmind.suggest({**_observation(), "hand": deep}, level="easy"),
                 lambda: meldmind.analyze_hand("gin", deep), lambda: game.observation(deep),
                 lambda: Game.from_json(_game_record(moves=[deep]))):
        with pytest.raises(MeldmindError, match="a list nested too deeply to write"):
            call()
    assert game.to_json() == before


def test_a_none_key_is_an_unknown_field_like_any_other():
    game = new_game("gin", seed=1)
    move = game.legal_moves()[0]
    with pytest.raises(MeldmindError, match="unknown field None"):
        game.play({"id": move.id, None: "x"})
    with pytest.raises(MeldmindError, match="unknown field None"):
        meldmind.suggest({**_observation(), None: "x"}, level="easy")
    with pytest.raises(MeldmindError, match="unknown field None"):
        Game.from_json({**_game_record(), None: "x"})


def test_a_game_records_integer_options_may_be_written_as_json_writes_them(capsys):
    record = json.loads(new_game("cardverse", seed=1, options={"target_score": 50}).to_json())
    record["options"]["target_score"] = 50.0
    assert Game.from_json(json.dumps(record)).options["target_score"] == 50
    assert main(["arena", "cardverse", "easy", "beginner", "--deals", "1", "--processes", "1",
                 "--options", '{"target_score": 5.0}', "--json"]) == 0
    # the CLI's every --options is JSON: 49 opening points open at 40.0, not at the default 50
    opening_49 = "5H 6H JK1 QS KS AS 2C"
    for threshold, can in (("40.0", True), (None, False)):
        flags = ["--options", f'{{"opening_threshold": {threshold}}}'] if threshold else []
        capsys.readouterr()
        assert main(["analyze", "rami", opening_49, *flags, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)[0]["can_open"] is can
    assert main(["analyze", "rami", opening_49, "--options",
                 '{"opening_threshold": 40.5}']) == 2
    record["options"]["target_score"] = 50.5
    with pytest.raises(OptionError, match="target_score"):
        Game.from_json(record)
    with pytest.raises(OptionError, match="target_score"):   # Python callers give ints
        new_game("cardverse", options={"target_score": 50.0})


def test_a_message_repeats_at_most_a_few_hundred_characters_of_what_it_was_given():
    """A server sends messages back: a megabyte of card text is not repeated whole."""
    game = new_game("gin", seed=1)
    for call, error in ((lambda: game.play("discard " + "A" * 1_000_000), CardError),
                        (lambda: game.play("x" * 1_000_000), MeldmindError),
                        (lambda: new_game("gin", seed="9" * 1_000_000), OptionError)):
        with pytest.raises(error, match=r"\(1,00\d,\d\d\d characters\)") as refused:
            call()
        assert len(str(refused.value)) < 500


def test_a_numpy_float32_budget_is_read_without_a_numpy_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert meldmind.suggest(_observation(), level="expert", budget_ms=np.float32(5),
                                seed=1).iterations >= 1


def test_cli_hint_with_stdin_closed_says_the_input_is_empty():
    for lines in ("", " --lines"):
        result = subprocess.run(["bash", "-c", f'"{sys.executable}" -m meldmind.cli hint '
                                 f'--level easy{lines} <&-'], capture_output=True, text=True,
                                timeout=600)
        assert "Traceback" not in result.stderr, result.stderr
        assert result.returncode == (0 if lines else 3)


@pytest.mark.parametrize("deals", [tournament.MAX_DEALS + 1, 10 ** 12, 2 ** 63])
def test_more_deals_than_an_arena_can_hold_are_refused_before_playing(deals, capsys):
    """The arena plans every batch and keeps every result: 10**12 deals filled the memory."""
    message = "deals must be an integer from 1 to 1,000,000 (a longer match: several seeds"
    with pytest.raises(OptionError, match=re.escape(message)):
        meldmind.arena("gin", "beginner", "beginner", deals=deals, progress=False)
    assert main(["arena", "gin", "beginner", "beginner", "--deals", str(deals)]) == EXIT_USAGE
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("processes, spelt", [(0, "0"), (-1, "-1"), (1.5, "1.5"), (True, "true")])
def test_a_process_count_that_is_no_positive_integer_is_refused(processes, spelt, capsys):
    message = f"processes must be a positive integer, not {spelt}"
    with pytest.raises(OptionError, match=re.escape(message)):
        meldmind.arena("gin", "beginner", "beginner", deals=1, processes=processes,
                       progress=False)
    if isinstance(processes, int) and not isinstance(processes, bool):
        assert main(["arena", "gin", "beginner", "beginner", "--processes",
                     str(processes)]) == EXIT_USAGE
        assert message in capsys.readouterr().err


@pytest.mark.parametrize("text", [None, 5, ["draw stock"], {"a": 1}])
def test_a_move_whose_text_is_no_string_is_refused_and_changes_nothing(text):
    """A Move built by a server from its own records: play compares its text with its id's, so a
    text that is no string is named, not met by an AttributeError or a TypeError."""
    for variant in ("gin", "cardverse"):
        game = new_game(variant, seed=2)
        move = game.legal_moves()[0]
        before = (game.to_json(), game.observation(0), repr(game), list(game.history))
        with pytest.raises(MeldmindError, match="a move's 'text' is a string, not"):
            game.play(meldmind.Move(move.id, text))
        assert before == (game.to_json(), game.observation(0), repr(game), list(game.history))


def test_the_cache_of_move_texts_keeps_no_long_text_a_client_sent():
    """A server's process lives long: a refused move text of megabytes, in Game.play or in an
    observation's legal_moves, must not stay in memory after its request. A long text still
    names its move."""
    from meldmind import game as game_module
    game = new_game("gin", seed=2)
    observation = game.observation(0)
    cached = game_module._cached_move_text_key.cache_info().currsize
    long_text = "x" * 100_000
    with pytest.raises(MeldmindError, match="unknown move"):
        game.play(long_text)
    with pytest.raises(MeldmindError, match="legal_moves"):
        meldmind.suggest({**observation, "legal_moves": [{"text": long_text}]}, level="easy")
    assert game_module._cached_move_text_key.cache_info().currsize == cached
    padded = "pass" + " " * 1000
    assert game.play(padded).text == "pass"
