"""Cheaper calls in the hot loops of the numba kernels.

A call from one compiled function to another passes each array as seven words, checks for an
exception on return, and increfs and decrefs each array argument with atomic operations. Numba's
pruning pass removes those reference counts only from functions without loops or calls. In
random gin games, where every move calls ``legal_actions`` and ``apply_action``, the atomics took
over a third of the time, and the calls themselves about half of what was left.

- ``unowned(array)``: a view of an array argument with no memory owner, so each incref and decref
  of it is a null check. Take views only of a function's own array arguments, in that function:
  the caller holds them until the call returns. A local array gives no such guarantee, since
  numba may free it after its last use while a view of it lives on. Never return a view.
- ``inlined(function)``: a copy of a compiled function that numba inlines into each caller. Use
  it only in loops where the calls were measured to cost (the random-play loops); each caller
  compiles its own copy, so inlining everywhere would slow the compilation of the AI kernels.

With ``NUMBA_DISABLE_JIT=1`` the view is the array itself and the copy is the Python function.
"""
from numba import config, njit
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def _unowned(typingctx, array):
    def codegen(context, builder, signature, args):
        view = context.make_array(array)(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()
    return array(array), codegen


def _same_array(array):
    return array


# numba sets DISABLE_JIT at import; an intrinsic is typed as its codegen, not as what it computes
unowned = _same_array if config.DISABLE_JIT else _unowned  # type: ignore[attr-defined]


def inlined(function):
    """An inlined copy of the compiled ``function`` (a dispatcher, or the plain function when
    the JIT is disabled)."""
    return njit(inline="always")(getattr(function, "py_func", function))
