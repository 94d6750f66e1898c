"""The hint protocol as an integrator writing observation JSON by hand meets it: legal_moves given
by text, plain messages for unreadable input, and the exit statuses of ``meldmind hint``."""
import io
import json
import os
import random
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

import meldmind.ai
import meldmind.cli as cli
from meldmind import MeldmindError, new_game, suggest
from meldmind.cli import EXIT_INTERRUPTED, EXIT_REFUSED, EXIT_USAGE, main
from test_arena_backends import default_sigint


def _observation_where(variant, wanted, seeds=range(200)):
    """The first observation of the seat to move, in games of random moves, that ``wanted``
    accepts."""
    for seed in seeds:
        game, rng = new_game(variant, seed=seed), random.Random(seed)
        while not game.is_over:
            observation = game.observation(game.to_move)
            if wanted(observation):
                return observation
            game.play(rng.choice(game.legal_moves()))
    raise AssertionError("no such position")


def _gin_discard():
    return _observation_where("gin", lambda o: o["phase"] == "discard")


def _texts_only(observation):
    return {**observation, "legal_moves": [{"text": m["text"]} for m in observation["legal_moves"]]}


def _same_hint(a, b):
    return a.move == b.move and a.alternatives == b.alternatives and a.value == b.value


# -- legal_moves read as Game.play reads a move ------------------------------------------------

@pytest.mark.parametrize("variant, wanted", [
    ("gin", lambda o: o["phase"] == "discard"),
    ("gin", lambda o: o["phase"] == "layoff"),     # a card id is a lay-off here, not a discard
    ("cardverse", lambda o: any(m["type"] == "lay_off" for m in o.get("legal_moves", []))),
], ids=["gin-discard", "gin-layoff", "cardverse-layoff"])
def test_legal_moves_given_by_text_alone_are_read_in_the_observations_phase(variant, wanted):
    observation = _observation_where(variant, wanted)
    expected = suggest(observation, level="expert", iterations=16, seed=3)
    assert _same_hint(suggest(_texts_only(observation), level="expert", iterations=16, seed=3),
                      expected)
    # in any notation Game.play reads: upper case, a meld's cards in any order
    rewritten = [{"text": "LAY MELD " + " ".join(reversed(m["cards"]))}
                 if m["type"] == "lay_meld" else {"text": m["text"].upper()}
                 for m in observation["legal_moves"]]
    assert _same_hint(suggest({**observation, "legal_moves": rewritten}, level="expert",
                              iterations=16, seed=3), expected)


def test_legal_moves_mixing_ids_texts_and_both_are_read():
    observation = _gin_discard()
    moves = observation["legal_moves"]
    mixed = [({"id": m["id"]}, {"text": m["text"]}, m)[i % 3] for i, m in enumerate(moves)]
    assert suggest({**observation, "legal_moves": mixed}, level="normal", seed=1).move \
        == suggest(observation, level="normal", seed=1).move


def test_legal_move_ids_written_as_json_numbers_with_a_fraction_of_zero_are_read():
    observation = _gin_discard()
    as_floats = [{**m, "id": float(m["id"])} for m in observation["legal_moves"]]
    assert _same_hint(suggest({**observation, "legal_moves": as_floats}, level="expert",
                              iterations=8, seed=2),
                      suggest(observation, level="expert", iterations=8, seed=2))
    as_floats[0]["id"] += 0.5
    with pytest.raises(MeldmindError, match=r"'id' is an action id, not \d+\.5"):
        suggest({**observation, "legal_moves": as_floats}, level="easy")


def test_an_entry_whose_id_and_text_name_different_moves_is_refused_by_its_index():
    observation = _gin_discard()
    moves = observation["legal_moves"]
    listed = [*moves[:2], {"id": moves[2]["id"], "text": moves[3]["text"]}, *moves[3:]]
    with pytest.raises(MeldmindError, match=(
            rf"^'legal_moves\[2\]': the move's id {moves[2]['id']} is \"{moves[2]['text']}\" "
            rf"but its text is \"{moves[3]['text']}\": they name different moves$")):
        suggest({**observation, "legal_moves": listed}, level="easy")


def _first_discard(observation):
    index = next(i for i, m in enumerate(observation["legal_moves"]) if m["type"] == "discard")
    return index, observation["legal_moves"][index]


@pytest.mark.parametrize("edit, message", [
    (lambda m: {"Id": m["id"]}, "unknown field 'Id' (did you mean 'id'?): a move object holds "
                                "only the fields of move.json"),
    (lambda m: {**m, "foo": 1}, "unknown field 'foo'"),
    (lambda m: {**m, "type": "knock"}, "the move \"{text}\" has 'type' \"discard\", not "
                                       "\"knock\": the move object names two different moves"),
    (lambda m: {"id": m["id"], "card": "AS" if m["card"] != "AS" else "2S"},
     "the move \"{text}\" has 'card' \"{card}\", not"),
    (lambda m: {"text": m["text"], "meld": 3}, "the move \"{text}\" has no 'meld', not 3"),
    (lambda m: {**m, "card": 7}, "the move \"{text}\" has 'card' \"{card}\", not 7"),
])
def test_an_entry_with_a_field_move_json_lacks_or_that_describes_another_move_is_refused(
        edit, message):
    """Each entry is read as move.json says: a misspelt field is not ignored, and fields beside
    the id or text must describe the same move (the full form is what Game.observation writes)."""
    observation = _gin_discard()
    index, move = _first_discard(observation)
    listed = [*observation["legal_moves"]]
    listed[index] = edit(move)
    with pytest.raises(MeldmindError) as refused:
        suggest({**observation, "legal_moves": listed}, level="easy")
    expected = message.format(text=move["text"], card=move["card"])
    assert str(refused.value).startswith(f"'legal_moves[{index}]': {expected}")


def test_fields_beside_the_id_may_spell_cards_as_the_notation_allows():
    observation = _gin_discard()
    index, move = _first_discard(observation)
    listed = [*observation["legal_moves"]]
    listed[index] = {"id": move["id"], "type": "discard", "card": move["card"].lower()}
    assert suggest({**observation, "legal_moves": listed}, level="normal", seed=1).move \
        == suggest(observation, level="normal", seed=1).move


@pytest.mark.parametrize("entry, message", [
    (52, "a move is an object with an 'id' or a 'text', not 52"),
    ("pass", "a move is an object with an 'id' or a 'text', not \"pass\""),
    ({"type": "pass"}, "a move is an object with an 'id' or a 'text', not {\"type\": \"pass\"}"),
    ({"id": "5"}, "a move's 'id' is an action id, not \"5\""),
    ({"id": True}, "a move's 'id' is an action id, not true"),
    ({"id": 10_000}, "not a gin action id: 10000"),
    ({"text": 5}, "a move's 'text' is a string, not 5"),
    ({"text": "fly away"}, "\"fly away\" is not a move of the discard phase"),
    ({"text": "lay off 8D"}, "\"lay off 8D\" is not a move of the discard phase"),
    ({"text": "discard 1Z"}, "malformed card '1Z'"),
])
def test_a_bad_entry_of_legal_moves_is_named_by_its_index(entry, message):
    observation = _gin_discard()
    listed = [*observation["legal_moves"], entry]
    index = len(listed) - 1
    with pytest.raises(MeldmindError) as refused:
        suggest({**observation, "legal_moves": listed}, level="easy")
    assert str(refused.value).startswith(f"'legal_moves[{index}]': {message}")


def test_a_repeated_entry_is_named_with_the_entry_it_repeats():
    observation = _gin_discard()
    first = observation["legal_moves"][0]
    listed = [*observation["legal_moves"], {"text": first["text"]}]
    with pytest.raises(MeldmindError, match=(rf"^'legal_moves\[{len(listed) - 1}\]' repeats "
                                             rf"'legal_moves\[0\]' \({first['text']}\)$")):
        suggest({**observation, "legal_moves": listed}, level="easy")


def test_a_wrong_list_names_the_moves_it_lacks_and_those_it_has_in_excess():
    observation = _gin_discard()
    moves = observation["legal_moves"]
    lacking = moves[1:-1] + [{"text": "draw stock"}, {"text": "knock"}]
    with pytest.raises(MeldmindError, match=(
            "^the observation's legal_moves do not match its state: "
            rf"missing \"{moves[0]['text']}\", \"{moves[-1]['text']}\"; "
            r"extra \"draw stock\", \"knock\"$")):
        suggest({**observation, "legal_moves": lacking}, level="easy")
    with pytest.raises(MeldmindError, match=r"do not match its state: missing \"[^;]*\"$"):
        suggest({**observation, "legal_moves": moves[1:]}, level="easy")
    with pytest.raises(MeldmindError, match=r"do not match its state: extra \"draw stock\"$"):
        suggest({**observation, "legal_moves": [*moves, {"id": 53}]}, level="easy")


def test_legal_moves_are_checked_before_the_search(monkeypatch):
    def no_search(*args, **kwargs):
        raise AssertionError("the search ran on a refused observation")

    monkeypatch.setattr(meldmind.ai, "decide", no_search)
    observation = _gin_discard()
    for listed in (observation["legal_moves"][1:], [{"text": "fly"}]):
        with pytest.raises(MeldmindError, match="legal_moves"):
            suggest({**observation, "legal_moves": listed}, level="master", iterations=10_000)


# -- unreadable input, in plain words ------------------------------------------------------------

def test_a_number_with_too_many_digits_is_refused_in_plain_words(monkeypatch, capsys):
    text = json.dumps({**_gin_discard(), "seat": "SEAT"}).replace('"SEAT"', "9" * 5000)
    with pytest.raises(MeldmindError) as refused:
        suggest(text, level="easy")
    assert str(refused.value) == ("malformed observation JSON: a number in the JSON has too many "
                                  "digits (5000; meldmind reads at most 4300)")
    code, out = _run_hint(monkeypatch, capsys, text.encode() + b"\n", "--lines")
    assert code == 0 and "too many digits" in json.loads(out.out)["error"]
    assert "sys." not in out.out


@pytest.mark.parametrize("data, fault", [
    (b"\xc3\x28", "at byte offset 0, 0xc3 0x28: invalid continuation byte"),
    (b'{"a": "\xe2\x82\x28"}', "at byte offset 7, 0xe2 0x82 0x28: invalid continuation byte"),
    (b"\xff{}", "at byte offset 0, 0xff: invalid start byte"),
    (b'{"a": 1}\xc3', "at byte offset 8, 0xc3: unexpected end of data"),
    # a UTF-8 BOM is read, and counted in the offsets
    (b'\xef\xbb\xbf{"a": "\xc3\x28"}', "at byte offset 10, 0xc3 0x28: invalid continuation byte"),
])
def test_bytes_that_are_not_utf8_are_named_by_their_offset_and_reason(data, fault):
    with pytest.raises(MeldmindError) as refused:
        suggest(data, level="easy")
    assert str(refused.value) == f"malformed observation JSON: not UTF-8 JSON ({fault})"


# -- meldmind hint: exit statuses and Ctrl-C -------------------------------------------------------

def _run_hint(monkeypatch, capsys, data, *flags):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code = main(["hint", "--level", "easy", "--seed", "1", *flags])
    return code, capsys.readouterr()


def test_a_refused_observation_has_its_own_exit_status(monkeypatch, capsys):
    assert EXIT_REFUSED not in (0, 1, EXIT_USAGE)    # 1: Python's status for a crash
    observation = _gin_discard()
    for data in (b"{", json.dumps({**observation, "legal_moves": []}).encode()):
        code, out = _run_hint(monkeypatch, capsys, data)
        assert (code, out.out) == (EXIT_REFUSED, "") and out.err.startswith("meldmind: error: ")
    code, out = _run_hint(monkeypatch, capsys, json.dumps(observation).encode())
    assert code == 0 and json.loads(out.out)["move"]
    assert main(["hint", "--iterations", "0"]) == EXIT_USAGE      # a bad flag, before stdin
    with pytest.raises(SystemExit) as exited:                   # argparse's own
        main(["hint", "--nope"])
    assert exited.value.code == EXIT_USAGE
    capsys.readouterr()
    with pytest.raises(SystemExit):     # and the help says so
        main(["hint", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert (f"{EXIT_USAGE} for bad flags" in text and f"{EXIT_REFUSED} when the observation is "
            f"refused" in text and f"{EXIT_INTERRUPTED} when interrupted" in text)


def test_ctrl_c_while_the_command_line_is_read_exits_quietly(monkeypatch, capsys):
    """Building the parser loads the game modules: a Ctrl-C then is caught like any other."""
    def interrupted():
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert main(["hint"]) == EXIT_INTERRUPTED
    assert capsys.readouterr() == ("", "")


# Run in a fresh process: a Ctrl-C as numpy starts to load, the first heavy import of any command.
_CTRL_C_AS_NUMPY_LOADS = r"""
import os, runpy, signal, sys

class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":
            os.kill(os.getpid(), signal.SIGINT)

sys.meta_path.insert(0, CtrlC())
sys.argv = ["meldmind", "analyze", "gin", "AS 2S 3S"]
runpy.run_path(SCRIPT, run_name="__main__")
"""


def test_ctrl_c_while_the_console_script_loads_exits_quietly():
    """The console script imports the package, then the CLI, before ``main`` runs: a Ctrl-C
    while numpy and the kernels load (a tenth of a second) exits 130 without a traceback too,
    and without numpy's ImportError, which a KeyboardInterrupt inside its C imports becomes."""
    script = Path(sysconfig.get_path("scripts")) / "meldmind"
    code = _CTRL_C_AS_NUMPY_LOADS.replace("SCRIPT", repr(str(script)))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            preexec_fn=default_sigint)
    assert (result.returncode, result.stdout, result.stderr) == (EXIT_INTERRUPTED, "", "")


def test_importing_meldmind_loads_no_numpy():
    """What the console script loads before the CLI's guard: the package alone, light."""
    result = subprocess.run([sys.executable, "-c", "import sys, meldmind\n"
                             "print(meldmind.__version__, 'numpy' in sys.modules)"],
                            capture_output=True, text=True)
    assert result.stdout.split() == [meldmind.__version__, "False"], result.stderr


def test_ctrl_c_while_hint_lines_waits_for_input_exits_quietly():
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    process = subprocess.Popen([sys.executable, "-m", "meldmind.cli", "hint", "--lines",
                                "--level", "easy", "--seed", "1"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                               preexec_fn=default_sigint)
    try:
        process.stdin.write(json.dumps(_gin_discard()).encode() + b"\n")
        process.stdin.flush()
        assert "move" in json.loads(process.stdout.readline())   # now it waits for a line
        process.send_signal(signal.SIGINT)
        process.wait(timeout=120)   # stdin still open: the input does not end meanwhile
        out, err = process.stdout.read(), process.stderr.read()
    finally:
        process.kill()
        process.communicate()
    assert (process.returncode, out, err) == (EXIT_INTERRUPTED, b"", b"")


def test_ctrl_c_as_the_input_ends_still_exits_interrupted():
    """A supervisor sends SIGINT and closes stdin at once, to a process waiting for its first
    line: stdin's end could win the race, and the pending Ctrl-C then hit the interpreter's
    shutdown, which printed 'Exception ignored' and exited 0. Through the console script, as a
    server starts it. (A Ctrl-C that comes during the warm-up stops it with 130 either way.)"""
    script = Path(sysconfig.get_path("scripts")) / "meldmind"
    for _ in range(2):
        process = subprocess.Popen([str(script), "hint", "--lines", "--level", "easy"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, preexec_fn=default_sigint)
        time.sleep(5)       # warmed up (under a second here), waiting for a line
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)     # closes stdin straight away
        assert (process.returncode, out, err) == (EXIT_INTERRUPTED, b"", b"")



# Run in a fresh process: the kernels of this one are loaded already.
_LOADED_BY_A_HINT_AFTER_WARM_UP = r"""
import importlib, json, pkgutil, random, sys
from numba.core.dispatcher import Dispatcher
import meldmind
from meldmind import kernels

def loaded():
    # the signatures each compiled kernel of the package holds in this process
    counts = {}
    for info in pkgutil.iter_modules(kernels.__path__):
        module = importlib.import_module(f"meldmind.kernels.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, Dispatcher) and value.signatures:
                counts[f"{info.name}.{name}"] = len(value.signatures)
    return counts

observations = json.load(sys.stdin)    # what a server sends: JSON from its own games
loaded()    # imports every kernel module
meldmind.warm_up(sys.argv[1])
warmed = loaded()
for observation in observations:
    meldmind.suggest(observation, level=sys.argv[1], budget_ms=5, seed=1)
print(json.dumps({"warmed": warmed, "after": loaded()}))
"""


def _observations_of_every_phase():
    """Every decision of a gin hand and of CardVerse's first hand, played by normal on other
    deals than warm_up's: the knock, the lay-offs and each move's explanation included."""
    observations = []
    for variant in ("gin", "cardverse"):
        game = new_game(variant, seed=7)
        while not game.is_over and game.observation(game.to_move).get("hand_number", 1) == 1:
            observations.append(game.observation(game.to_move))
            game.play(meldmind.suggest(observations[-1], level="normal", seed=7).move)
    assert {"knock", "layoff"} <= {obs["phase"] for obs in observations}
    return json.dumps(observations)


@pytest.mark.parametrize("level", ["master", "normal"])
def test_after_warm_up_a_hint_in_either_game_loads_no_kernel(level):
    """So a server's first hint gets its whole budget (``hint --lines`` warms up at start)."""
    result = subprocess.run([sys.executable, "-c", _LOADED_BY_A_HINT_AFTER_WARM_UP, level],
                            input=_observations_of_every_phase(), capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    counts = json.loads(result.stdout)
    assert counts["warmed"] == counts["after"]
    searches_loaded = {"ai_gin.search", "ai_cardverse.search"} & counts["warmed"].keys()
    assert len(searches_loaded) == (2 if level == "master" else 0)


def test_hint_lines_answers_a_request_that_meets_a_bug_and_goes_on(monkeypatch, capsys):
    """A server's one process must outlive a meldmind bug: that request answers an error (the
    traceback on stderr) and the next is answered as usual."""
    good = json.dumps(new_game("gin", seed=2).observation(0))
    real = meldmind.ai.suggest
    requests = []

    def flaky(observation, **kwargs):
        if kwargs["seed"] == 1:     # a request's, not warm_up's (seed 0)
            requests.append(observation)
            if len(requests) == 1:
                raise IndexError("a bug")
        return real(observation, **kwargs)

    monkeypatch.setattr(meldmind.ai, "suggest", flaky)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(f"{good}\n{good}\n".encode())))
    assert main(["hint", "--lines", "--level", "easy", "--seed", "1"]) == 0
    out = capsys.readouterr()
    bug, answer = map(json.loads, out.out.splitlines())
    assert bug["error"].startswith("meldmind bug (IndexError: a bug)")
    assert "Traceback" in out.err and answer["move"]["text"]
