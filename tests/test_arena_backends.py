"""Where the arena's games run (ARCHITECTURE.md "Scaling out"): local processes, or one Ray task
per batch of deals. The result does not depend on the backend."""
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import meldmind
from meldmind import OptionError
from meldmind.tournament import _ray_backend, _shut_down


def _figures(result):
    return {key: value for key, value in result.to_json().items() if key not in ("seconds", "backend")}


def test_an_unknown_backend_is_refused_before_playing():
    with pytest.raises(OptionError, match='backend must be one of auto, ray, processes, not "rya"'):
        meldmind.arena("gin", "easy", "beginner", deals=1, progress=False, backend="rya")


def test_without_ray_the_ray_backend_says_how_to_get_it_and_auto_uses_processes(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)     # import ray now fails
    with pytest.raises(OptionError, match=r"pip install 'meldmind\[ray\]'"):
        meldmind.arena("gin", "easy", "beginner", deals=1, progress=False, backend="ray")
    assert _ray_backend("auto") is None
    result = meldmind.arena("gin", "easy", "beginner", deals=2, seed=1, processes=1,
                            progress=False)
    assert result.games == 4


def test_without_ray_a_named_cluster_is_not_replaced_by_local_processes(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)     # import ray now fails
    monkeypatch.setenv("RAY_ADDRESS", "auto")
    with pytest.raises(OptionError, match=r"RAY_ADDRESS names a Ray cluster, but Ray is not "
                                          r"installed: pip install 'meldmind\[ray\]'"):
        meldmind.arena("gin", "easy", "beginner", deals=1, progress=False)
    result = meldmind.arena("gin", "easy", "beginner", deals=1, processes=1, progress=False,
                            backend="processes")
    assert result.backend == "processes" and result.games == 2


# A first script, as a user writes it: no ``if __name__ == "__main__":`` guard
_UNGUARDED_SCRIPT = """
import json, meldmind
print("the script's top level ran")
result = meldmind.arena("gin", "expert", "normal", deals=16, seed=4, iterations=8,
                        processes=2, progress=False, backend="processes")
print(json.dumps({k: v for k, v in result.to_json().items() if k not in ("seconds", "backend")}))
"""


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_a_script_without_a_main_guard_runs_an_arena_on_processes(tmp_path, how):
    """The workers do not run the calling script again: its top level runs once, whether it is
    a file or read from stdin (``python - <<EOF``), and the figures are those of one process."""
    script = tmp_path / "first_arena.py"
    script.write_text(_UNGUARDED_SCRIPT)
    command, stdin = ([sys.executable, str(script)], None) if how == "file" else \
        ([sys.executable, "-"], _UNGUARDED_SCRIPT)
    run = subprocess.run(command, input=stdin, capture_output=True, text=True, cwd=tmp_path,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "the script's top level ran" and len(lines) == 2
    here = meldmind.arena("gin", "expert", "normal", deals=16, seed=4, iterations=8,
                          processes=1, progress=False)
    assert json.loads(lines[1]) == json.loads(json.dumps(_figures(here)))

def test_an_unreachable_ray_cluster_is_a_clear_error(monkeypatch):
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("a Ray instance is already running in this process")
    from ray._private.services import find_gcs_addresses    # where "auto" looks
    if find_gcs_addresses():
        pytest.skip("a Ray cluster runs on this machine (another test run's), and "
                    "RAY_ADDRESS='auto' reaches it")
    monkeypatch.setenv("RAY_ADDRESS", "auto")     # Ray's name for "the cluster running here"
    with pytest.raises(OptionError, match=r'no Ray cluster at RAY_ADDRESS="auto": '):
        meldmind.arena("gin", "easy", "beginner", deals=1, progress=False)


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_ray_tasks_give_the_result_of_one_local_process(local_ray):
    for variant, a, b in (("cardverse", "normal", "easy"), ("gin", "expert", "normal")):
        here = meldmind.arena(variant, a, b, deals=12, seed=5, processes=1, iterations=8,
                              progress=False, backend="processes")
        on_ray = meldmind.arena(variant, a, b, deals=12, seed=5, processes=2, iterations=8,
                                progress=False, backend="ray")
        assert _figures(on_ray) == _figures(here)
        assert here.games == 24


def test_auto_uses_ray_only_when_a_ray_cluster_is_in_use(local_ray, monkeypatch):
    assert _ray_backend("auto") is local_ray          # ray.init was called
    assert _ray_backend("processes") is None
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(local_ray, "is_initialized", lambda: False)
    assert _ray_backend("auto") is None               # no cluster: local processes


def _children(pid):
    return {int(task.name) for task in Path("/proc").iterdir() if task.name.isdigit()
            and _parent_of(task) == pid}


def _parent_of(task):
    try:
        return int(next(line for line in (task / "status").read_text().splitlines()
                        if line.startswith("PPid:")).split()[1])
    except (OSError, StopIteration):    # the process ended meanwhile
        return None


def default_sigint():
    """A child's ``preexec_fn``: a shell's background job starts with SIGINT ignored, and a
    child inherits that; the stories that interrupt one need it as a supervisor starts it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _arena_under_way():
    """A CardVerse arena of master against expert on two worker processes, 12 s in (its batches
    are full games, minutes each): the arena's process and its workers."""
    arena = subprocess.Popen([sys.executable, "-m", "meldmind.cli", "arena", "cardverse",
                              "master", "expert", "--deals", "40", "--processes", "2"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=default_sigint)
    time.sleep(12)
    workers = [pid for pid in _children(arena.pid)
               if b"resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert workers
    return arena, workers


def _ended(arena):
    """The arena's stderr once it ends (killed if it has not in a minute), and the seconds that
    took."""
    started = time.perf_counter()
    try:
        _, err = arena.communicate(timeout=60)
    finally:
        arena.kill()
    return err, time.perf_counter() - started


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_ctrl_c_stops_an_arena_on_processes_at_once():
    """SIGINT to the arena's process alone (a supervisor's stop): status 130 within seconds, no
    traceback, no worker left; the games under way are stopped, not waited for."""
    arena, workers = _arena_under_way()
    arena.send_signal(signal.SIGINT)
    err, seconds = _ended(arena)
    assert arena.returncode == 130 and "Traceback" not in err
    assert seconds < 10
    time.sleep(2)
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]


def test_ctrl_c_stops_an_arena_on_its_own_process_within_a_move():
    """With one process the games run in the arena's own, in native code that Python cannot
    interrupt: SIGINT must still stop it within a move, not at the end of the game under way (a
    CardVerse game of master against expert to 1,000 points lasts a minute). Status 130, no
    traceback."""
    arena = subprocess.Popen([sys.executable, "-m", "meldmind.cli", "arena", "cardverse",
                              "master", "expert", "--deals", "4", "--processes", "1",
                              "--options", '{"target_score": 1000}'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=default_sigint)
    time.sleep(12)
    arena.send_signal(signal.SIGINT)
    err, seconds = _ended(arena)
    assert arena.returncode == 130 and "Traceback" not in err, err
    assert seconds < 2


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
@pytest.mark.parametrize("delay", [0.03, 0.06, 0.1, 0.15])
def test_a_terminals_ctrl_c_while_the_workers_start_prints_no_traceback(delay):
    """A terminal's Ctrl-C goes to the whole process group, the workers too, and may come while
    they are still starting, before they could ignore it: ``delay`` seconds after the first
    worker exists. Status 130, no traceback from any process, no worker left."""
    arena = subprocess.Popen([sys.executable, "-m", "meldmind.cli", "arena", "cardverse",
                              "expert", "normal", "--deals", "40", "--processes", "2"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=default_sigint, start_new_session=True)
    deadline = time.monotonic() + 60
    while not _children(arena.pid) and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(delay)
    children = _children(arena.pid)
    os.killpg(arena.pid, signal.SIGINT)
    err, seconds = _ended(arena)
    assert children and arena.returncode == 130 and "Traceback" not in err, err
    assert seconds < 10
    time.sleep(2)
    assert not [pid for pid in children if Path(f"/proc/{pid}").exists()
                and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_workers_exit_when_the_arenas_process_dies_without_stopping_them(stop):
    """A supervisor's kill of the arena's process alone (``Popen.terminate`` or ``kill``), which
    no handler runs for: its workers and their resource trackers do not play on as orphans."""
    arena, _ = _arena_under_way()
    children = _children(arena.pid)
    arena.send_signal(stop)
    arena.communicate(timeout=60)
    time.sleep(3)       # a worker checks every half second
    alive = [pid for pid in children if Path(f"/proc/{pid}").exists()
             and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"]
    assert len(children) >= 3 and alive == []


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_a_worker_that_dies_fails_the_arena_instead_of_hanging_it():
    """A worker killed (by the OOM killer, say) loses its batch: the arena stops within seconds
    rather than wait for that batch forever, with one error line that says what happened, and
    no traceback."""
    arena, workers = _arena_under_way()
    os.kill(workers[0], signal.SIGKILL)
    err, seconds = _ended(arena)
    assert arena.returncode == 1 and "Traceback" not in err
    error_lines = [line for line in err.splitlines() if line.startswith("meldmind: error: ")]
    assert len(error_lines) == 1 and "terminated" in error_lines[0] and "SIGKILL" in error_lines[0]
    assert err.rstrip().endswith(error_lines[0])     # nothing follows the error line
    assert seconds < 10


class _SlowToSend:
    """A task argument whose pickling takes a second: the task queue's feeder thread is still
    sending it when the pool stops."""

    def __reduce__(self):
        time.sleep(1.0)
        return (_SlowToSend, ())


def test_a_stopped_pool_leaves_no_thread_of_its_own_running():
    """The arena waits for its task queue's feeder thread, the last holder of the queue's
    semaphores: a process that exits while that thread still runs has one unlinked but never
    struck off loky's resource tracker, which warns of it after the arena's last line."""
    from loky import ProcessPoolExecutor

    before = set(threading.enumerate())
    pool = ProcessPoolExecutor(max_workers=1)
    pool.submit(time.sleep, 60)
    pool.submit(id, _SlowToSend())
    time.sleep(0.3)     # the feeder thread is now pickling the second task
    _shut_down(pool, kill_workers=True)
    assert [thread for thread in threading.enumerate() if thread not in before] == []


@pytest.mark.parametrize("progress", [False, True], ids=["quiet", "progress bar"])
def test_an_arena_leaves_no_thread_running(progress):
    """An embedder's process keeps no thread of the arena's: neither the worker pool's nor the
    progress bar's."""
    before = set(threading.enumerate())
    meldmind.arena("gin", "easy", "beginner", deals=2, seed=1, processes=2, progress=progress)
    assert [thread for thread in threading.enumerate() if thread not in before] == []
