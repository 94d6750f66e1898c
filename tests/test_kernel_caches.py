"""numba's caches of the kernels follow every kernel file, not only a function's own
(kernels/jit.py): a kernel compiles in other modules' layouts and inlined functions."""
import importlib
import os
import subprocess
import sys
from pathlib import Path

from numba.core.registry import CPUDispatcher

from meldmind.kernels import jit

KERNELS = Path(jit.__file__).resolve().parent


def test_every_kernel_is_cached_and_stamped_with_the_fingerprint():
    kernels = []
    for path in sorted(KERNELS.glob("*.py")):
        module = importlib.import_module(f"meldmind.kernels.{path.stem}")
        # each kernel defined there, under its own name (not calls.inlined's uncached copies)
        kernels += [value for name, value in vars(module).items()
                    if isinstance(value, CPUDispatcher) and value.py_func.__name__ == name
                    and value.py_func.__module__ == module.__name__]
    assert len(kernels) > 150
    for kernel in kernels:
        # the private attribute jit.py sets: a numba that renames it fails here
        assert kernel._cache._cache_file._source_stamp[1] == jit.FINGERPRINT, kernel


_CALL = ("import numpy as np\n"
         "from meldmind.kernels import jit\n"
         "jit.FINGERPRINT = {fingerprint!r}\n"
         "from meldmind.kernels.rng import seed_slot\n"
         "seed_slot(np.zeros(1, dtype=np.int64), 0, 5)\n"
         "stats = seed_slot.stats\n"
         "print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))")


def _hits_and_misses(cache_dir, fingerprint):
    out = subprocess.run([sys.executable, "-c", _CALL.format(fingerprint=fingerprint)],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}).stdout
    return [int(n) for n in out.split()]


def test_a_change_of_any_kernel_file_compiles_again(tmp_path):
    """A new fingerprint (what an edit of another kernel file gives) misses the cache that the
    same source file would otherwise hit."""
    assert _hits_and_misses(tmp_path, "before") == [0, 1]
    assert _hits_and_misses(tmp_path, "before") == [1, 0]
    assert _hits_and_misses(tmp_path, "after") == [0, 1]
    assert _hits_and_misses(tmp_path, "after") == [1, 0]


def test_the_fingerprint_follows_the_files(tmp_path, monkeypatch):
    (tmp_path / "layout.py").write_text("S_HAND = 1\n")
    monkeypatch.setattr(jit, "_KERNELS", tmp_path)
    before = jit._fingerprint()
    (tmp_path / "layout.py").write_text("S_HAND = 2\n")
    assert jit._fingerprint() != before


def test_with_nowhere_to_write_a_cache_the_kernels_run_uncached_with_one_warning():
    """A read-only install run by a user with no writable home: numba finds no cache locator
    (simulated here), and the games still play, compiled afresh, with one warning."""
    code = ("import numba.core.dispatcher as dispatcher\n"
            "def no_locator(py_func):\n"
            "    raise RuntimeError(f'cannot cache function {py_func.__name__!r}: no locator "
            "available for file')\n"
            "dispatcher.FunctionCache = no_locator\n"
            "import meldmind\n"
            "game = meldmind.new_game('gin', seed=1)\n"
            "print([move.text for move in game.legal_moves()])\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split("\n")[0] == "['draw upcard', 'pass']"
    assert run.stderr.count("RuntimeWarning") == 1
    assert "could not use numba's cache (cannot cache function" in run.stderr
    assert "set NUMBA_CACHE_DIR to a writable directory" in run.stderr


_LEGAL_MOVES = ("import meldmind\n"
                "game = meldmind.new_game('gin', seed=1)\n"
                "print([move.text for move in game.legal_moves()])\n")


def _run_with_cache(cache_dir, code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)})


def _plays_with_one_warning(run, why):
    assert run.stdout.split("\n")[0] == "['draw upcard', 'pass']"
    assert run.stderr.count("RuntimeWarning") == 1
    assert f"could not use numba's cache ({why}" in run.stderr


def test_a_cache_that_cannot_be_written_costs_a_compilation_not_the_game(tmp_path):
    """A full disk (or a cache directory no longer writable) when numba saves a compiled kernel,
    simulated here: the game plays, with one warning, instead of an OSError from every call."""
    full = ("import errno, numba.core.caching as caching\n"
            "def disk_full(self, signature, data):\n"
            "    raise OSError(errno.ENOSPC, 'No space left on device')\n"
            "caching.Cache._save_overload = disk_full\n")
    _plays_with_one_warning(_run_with_cache(tmp_path, full + _LEGAL_MOVES),
                            "[Errno 28] No space left on device")
    assert not list(tmp_path.rglob("*.nbc"))


def test_a_truncated_cache_file_is_compiled_again(tmp_path):
    _run_with_cache(tmp_path, _LEGAL_MOVES)
    files = list(tmp_path.rglob("*.nbc"))
    assert files
    for path in files:
        path.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2])
    _plays_with_one_warning(_run_with_cache(tmp_path, _LEGAL_MOVES), "")
    # and the cache written again serves the next process without a warning
    again = _run_with_cache(tmp_path, _LEGAL_MOVES)
    assert again.stdout.split("\n")[0] == "['draw upcard', 'pass']" and not again.stderr
