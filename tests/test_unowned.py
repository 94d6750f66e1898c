"""``unowned``: a view of an array argument that numba does not reference-count (no memory
owner), writing through to the array."""
import os
import subprocess
import sys

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from meldmind.kernels.unowned import unowned


@intrinsic
def _owner_address(typingctx, array):
    """The address of the array's memory owner (0: none, so increfs and decrefs skip it)."""
    def codegen(context, builder, signature, args):
        meminfo = context.make_array(array)(context, builder, value=args[0]).meminfo
        return builder.ptrtoint(meminfo, context.get_value_type(types.intp))
    return types.intp(array), codegen


@njit
def _owners(array):
    return _owner_address(array), _owner_address(unowned(array))


@njit
def _fill_through_view(array, value):
    view = unowned(array)
    for i in range(view.size):
        view[i] = value + i
    return view.sum()


def test_the_view_has_no_owner_and_the_array_keeps_its_own():
    owned, view = _owners(np.zeros(4, np.int64))
    assert owned != 0
    assert view == 0


def test_writes_through_the_view_reach_the_array():
    array = np.zeros(5, np.int64)
    assert _fill_through_view(array, 10) == 10 + 11 + 12 + 13 + 14
    assert array.tolist() == [10, 11, 12, 13, 14]


def test_without_jit_the_view_is_the_array():
    code = ("import numpy as np; from meldmind.kernels.unowned import unowned;"
            "a = np.zeros(3); print(unowned(a) is a)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "NUMBA_DISABLE_JIT": "1"}).stdout.split()
    assert out == ["True"]
