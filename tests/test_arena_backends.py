"""Where the arena's games run (ARCHITECTURE.md "Scaling out"): local processes, or one Ray task
per batch of deals. The result does not depend on the backend."""
import signal
import subprocess
import sys
import time

import pytest

import meldmind
from meldmind import OptionError
from meldmind.tournament import _ray_backend


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


def test_an_unreachable_ray_cluster_is_a_clear_error(monkeypatch):
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("a Ray instance is already running in this process")
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


def test_ctrl_c_stops_an_arena_on_processes():
    """Ctrl-C drops the batches not yet started: the command ends with status 130 instead of
    playing out the rest (here about ten minutes of master against expert)."""
    arena = subprocess.Popen([sys.executable, "-m", "meldmind.cli", "arena", "gin", "master",
                              "expert", "--deals", "2000", "--processes", "2"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(10)
    arena.send_signal(signal.SIGINT)
    try:
        _, err = arena.communicate(timeout=120)
    finally:
        arena.kill()
    assert arena.returncode == 130 and "Traceback" not in err

