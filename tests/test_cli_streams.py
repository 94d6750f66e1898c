"""The command line with unusual standard streams: a stdout whose encoding lacks the table's
dashes, a full disk, a closed stdout or stderr. Each either works or fails with one error line,
never a traceback, and never after playing an arena for nothing."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ARENA = [sys.executable, "-m", "meldmind.cli", "arena", "gin", "easy", "beginner", "--deals", "2",
         "--processes", "1"]


def _run(command, env=None, close=None, **streams):
    """``command`` run with its output captured; ``close`` (1 or 2) starts it with that standard
    stream closed."""
    return subprocess.run(command, capture_output=not streams, text=True, timeout=300,
                          env={**os.environ, **(env or {})},
                          preexec_fn=(lambda: os.close(close)) if close else None, **streams)


def test_an_ascii_stdout_gets_the_table_with_ascii_dashes():
    run = _run(ARENA, env={"PYTHONIOENCODING": "ascii"})
    assert run.returncode == 0, run.stderr
    assert "51.0% - 100.0%" in run.stdout and "\u2013" not in run.stdout
    assert run.stdout.splitlines()[2].split()[-2] == "-"        # Elo: none at a 100 % rate


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", [ARENA, [sys.executable, "-m", "meldmind.cli", "analyze",
                                             "gin", "AS", "2S", "3S"]], ids=["arena", "analyze"])
def test_a_full_disk_under_stdout_is_one_error_line(command):
    with open("/dev/full", "w") as full:
        run = _run(command, stdout=full, stderr=subprocess.PIPE)
    assert run.returncode == 1
    assert run.stderr.splitlines()[-1].endswith("meldmind: error: [Errno 28] No space left on "
                                                "device")
    assert "Traceback" not in run.stderr and "Exception ignored" not in run.stderr


def test_a_closed_stdout_is_refused_before_the_arena_plays():
    run = _run(ARENA, close=1, stdout=None, stderr=subprocess.PIPE)
    assert run.returncode == 1
    assert run.stderr == ("meldmind: error: standard output is closed, so the result would be "
                          "lost\n")


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_closed_stderr_leaves_the_result_on_stdout(json_flag):
    run = _run(ARENA + json_flag, close=2, stdout=subprocess.PIPE)
    assert run.returncode == 0
    if json_flag:
        assert json.loads(run.stdout)["games"] == 4
    else:
        assert run.stdout.splitlines()[0].startswith("variant")
