"""The arena's result records the settings it was played under, says nothing invented when no
game is decided, and its CLI takes game options; something that is not Ray but imports as
``ray`` counts as no Ray."""
import io
import json
import sys
import types

import pytest

import meldmind
from meldmind import OptionError
from meldmind.cli import main
from meldmind.tournament import _ray_backend, format_table, wilson_interval


def test_the_result_records_the_options_search_size_and_backend():
    result = meldmind.arena("cardverse", "normal", "easy", deals=1, seed=2, processes=1,
                            iterations=4, options={"target_score": 20, "ace_high": True},
                            progress=False)
    recorded = json.loads(json.dumps(result.to_json()))
    assert recorded["options"] == {"num_players": 2, "discard_to_win": False, "ace_high": True,
                                   "target_score": 20, "no_immediate_rediscard": True,
                                   "max_turns": 300}
    assert (recorded["iterations"], recorded["budget_ms"], recorded["backend"]) == \
        (4, None, "processes")
    timed = meldmind.arena("gin", "normal", "easy", deals=1, seed=2, processes=1, budget_ms=5,
                           progress=False, backend="processes")
    assert (timed.options, timed.iterations, timed.budget_ms, timed.backend) == \
        ({}, None, 5.0, "processes")


def test_the_cli_arena_takes_game_options(capsys):
    assert main(["arena", "cardverse", "easy", "beginner", "--deals", "1", "--seed", "1",
                 "--processes", "1", "--options", '{"target_score": 20}', "--json"]) == 0
    recorded = json.loads(capsys.readouterr().out)
    assert recorded["options"]["target_score"] == 20 and recorded["options"]["ace_high"] is False
    assert recorded["games"] == 2


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("terminal", [False, True])
def test_the_cli_arena_with_json_shows_its_progress_bar_only_on_a_terminal(terminal, capsys,
                                                                        monkeypatch):
    """A long --json run shows its progress on a terminal's stderr, while stdout stays the JSON
    alone; stderr captured by a program gets no bar."""
    stderr = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    assert main(["arena", "gin", "easy", "beginner", "--deals", "3", "--seed", "1",
                 "--processes", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 6
    assert ("gin easy vs beginner:" in stderr.getvalue()) is terminal


@pytest.mark.parametrize("text, message", [
    ("{oops", "malformed --options JSON"),
    ("[20]", "--options must be a JSON object, not array"),
    ('{"target_scor": 20}', "unknown option 'target_scor' for cardverse"),
])
def test_bad_cli_options_exit_2_before_playing(text, message, capsys):
    assert main(["arena", "cardverse", "easy", "beginner", "--deals", "1", "--processes", "1",
                 "--options", text, "--json"]) == 2
    out, err = capsys.readouterr()
    assert message in err and out == ""


def test_an_arena_without_a_decided_game_reports_no_win_rate_or_elo(capsys):
    result = meldmind.arena("gin", "beginner", "beginner", deals=1, seed=1, processes=1,
                            progress=False)
    assert (result.wins_a, result.wins_b, result.draws) == (0, 0, 2)
    assert result.win_rate is None and result.elo_diff is None
    assert result.ci95 == wilson_interval(0, 0) == (0.0, 1.0)
    assert main(["arena", "gin", "beginner", "beginner", "--deals", "1", "--seed", "1",
                 "--processes", "1", "--json"]) == 0
    recorded = json.loads(capsys.readouterr().out)
    assert (recorded["win_rate"], recorded["elo_diff"], recorded["ci95"]) == \
        (None, None, [0.0, 1.0])
    row = format_table([result]).splitlines()[2].split()
    # ... draws, A win rate, the interval's three words, score diff, Elo, time
    assert row[7:] == ["2", "—", "0.0%", "–", "100.0%", "+0.00", "—", row[-1]]


def test_a_module_named_ray_that_is_not_ray_counts_as_no_ray(monkeypatch):
    # what a folder named ray imports as (Ray's temp folder /tmp/ray, run from /tmp)
    monkeypatch.setitem(sys.modules, "ray", types.ModuleType("ray"))
    with pytest.raises(OptionError, match=r"needs Ray: pip install 'meldmind\[ray\]'"):
        _ray_backend("ray")
    assert _ray_backend("auto") is None
    result = meldmind.arena("gin", "easy", "beginner", deals=1, seed=1, processes=1,
                            progress=False)
    assert (result.games, result.backend) == (2, "processes")
