"""``unowned``: a view of an array argument that numba does not reference-count (no memory
owner), writing through to the array; ``inlined``: a copy of a compiled function, inlined."""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from meldmind.kernels.calls import inlined, unowned
from test_bits import printed_without_jit


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


@njit
def _weighted_sum(array, weight):
    total = 0
    for i in range(array.size):
        total += weight * array[i]
    return total


_weighted_sum_inlined = inlined(_weighted_sum)


@njit
def _caller(array):
    return _weighted_sum_inlined(array, 3)


def test_the_inlined_copy_computes_the_same_inside_its_caller():
    array = np.arange(7, dtype=np.int64)
    assert _caller(array) == _weighted_sum(array, 3) == 3 * 21
    # spliced into its caller's numba IR, the copy is never compiled as a function of its own
    assert _weighted_sum_inlined.signatures == []


def test_without_jit_the_view_is_the_array_and_the_copy_the_function():
    code = ("import numpy as np; from meldmind.kernels.calls import inlined, unowned;"
            "from meldmind.kernels import gin;"
            "a = np.zeros(3); print(unowned(a) is a, inlined(gin.hand_value) is gin.hand_value)")
    out = printed_without_jit(code)
    assert out == ["True", "True"]
