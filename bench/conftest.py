import sys
from pathlib import Path

import numba
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))


def _numba_threads(n):
    """Runs the test on ``n`` numba threads (at most what numba has), then restores the count."""
    before = numba.get_num_threads()
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(before)


@pytest.fixture
def one_thread():
    """The speed targets are per core."""
    yield from _numba_threads(1)


@pytest.fixture
def two_threads():
    """The flat Monte Carlo reference workload is specified on 2 threads."""
    yield from _numba_threads(2)
