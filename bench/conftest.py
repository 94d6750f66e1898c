import sys
from pathlib import Path

import numba
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))


@pytest.fixture
def one_thread():
    """Runs a benchmark on one numba thread (the speed targets are per core)."""
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)
