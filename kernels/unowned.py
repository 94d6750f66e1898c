"""Array views that numba does not reference-count.

Numba increfs and decrefs each array argument of a compiled function with atomic operations,
and its pruning pass removes them only from functions without loops or calls. In random gin
games, where every move calls ``legal_actions`` and ``apply_action``, those atomics took over a
third of the time. A view without a memory owner turns each of them into a null check.

Take views only of a function's own array arguments, in that function: the caller holds them
until the call returns. A local array gives no such guarantee, since numba may free it after its
last use while a view of it lives on. Never return a view.

With ``NUMBA_DISABLE_JIT=1`` the view is the array itself.
"""
from numba import config
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
