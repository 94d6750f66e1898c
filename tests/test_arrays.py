"""``copy_into``: the kernels' array copy, a loop that compiles no shape-mismatch error path."""
import numpy as np
from numba import njit

from meldmind.kernels.arrays import copy_into


@njit
def _copy_with_helper(target, source):
    copy_into(target, source)


@njit
def _copy_with_slice(target, source):
    target[:] = source


def test_every_element_is_copied_and_the_source_is_unchanged():
    source = np.arange(7, dtype=np.int64) * 3 - 5
    target = np.full(7, 99, dtype=np.int64)
    _copy_with_helper(target, source)
    assert target.tolist() == [-5, -2, 1, 4, 7, 10, 13]
    assert source.tolist() == [-5, -2, 1, 4, 7, 10, 13]
    target[0] = 0
    assert source[0] == -5


def _compiled_ir(function):
    return "".join(function.inspect_llvm().values())


def test_a_caller_compiles_no_shape_error_path_where_a_slice_assignment_does():
    source, target = np.arange(4, dtype=np.int64), np.zeros(4, dtype=np.int64)
    _copy_with_helper(target, source)
    _copy_with_slice(target, source)
    assert "cannot assign slice" in _compiled_ir(_copy_with_slice)
    assert "cannot assign slice" not in _compiled_ir(_copy_with_helper)
