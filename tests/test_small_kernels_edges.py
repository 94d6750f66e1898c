"""The small kernel modules and the error helpers at their edges, from a mutation audit of
``kernels/calls.py``, ``kernels/bridge.py``, ``kernels/jit.py``, ``kernels/bits.py``,
``kernels/arrays.py`` and ``src/meldmind/errors.py``: what the kernels' caches are stamped with,
the bit helpers and the bridge run as Python as they run compiled, the search of the legal moves
at the ends of its range, and the exact words and kinds of meldmind's input errors.
"""
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

import numba.core.dispatcher
import numpy as np
import pytest
from numba import njit

from meldmind import (CardError, IllegalMove, MeldmindError, OptionError, analyze_hand,
                      encode_hands, new_game)
from meldmind.errors import MOST_SHOWN, clipped, parse_json, shown
from meldmind.kernels import bridge, jit
from meldmind.kernels.arrays import sorted_contains
from meldmind.kernels.bits import lowest_bit
from test_bits import printed_without_jit

KERNELS = Path(jit.__file__).resolve().parent
EXTENSION = importlib.machinery.EXTENSION_SUFFIXES[0]


# ---- jit.py: what a kernel's cache is stamped with --------------------------------------------

def _fingerprint_of(directory, monkeypatch):
    monkeypatch.setattr(jit, "_KERNELS", directory)
    return jit._fingerprint()


def test_a_rebuilt_hand_algebra_changes_the_fingerprint(tmp_path, monkeypatch):
    """The kernels call the compiled extension by symbol, so a rebuild (a ``.pyx`` edit) with
    every Python file unchanged must compile them again too."""
    (tmp_path / "gin.py").write_text("S_HAND = 1\n")
    extension = tmp_path / f"handalg{EXTENSION}"
    extension.write_bytes(b"one build")
    before = _fingerprint_of(tmp_path, monkeypatch)
    extension.write_bytes(b"another build")
    assert jit._fingerprint() != before


def test_a_line_moved_to_the_next_file_changes_the_fingerprint(tmp_path, monkeypatch):
    """Each file is hashed with its name: the same bytes split otherwise between two files (a
    constant moved from the end of one module to the start of the next) are other sources."""
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text("X = 1\nY = 2\n")
    second.write_text("Z = 3\n")
    before = _fingerprint_of(tmp_path, monkeypatch)
    first.write_text("X = 1\n")
    second.write_text("Y = 2\nZ = 3\n")
    assert jit._fingerprint() != before


def test_the_fingerprint_does_not_depend_on_the_order_the_files_are_listed_in(tmp_path,
                                                                               monkeypatch):
    """A file system lists a folder in its own order, which may change when a file is written
    again with the same text (a checkout): that must not compile every kernel again."""
    for name in ("a.py", "b.py", f"c{EXTENSION}"):
        (tmp_path / name).write_text(name)
    listed = _fingerprint_of(tmp_path, monkeypatch)
    iterdir = Path.iterdir
    monkeypatch.setattr(Path, "iterdir", lambda self: reversed(list(iterdir(self))))
    assert jit._fingerprint() == listed


def test_an_editors_lock_file_beside_the_kernels_neither_breaks_nor_changes_the_fingerprint(
        tmp_path, monkeypatch):
    """Emacs marks a file with unsaved changes by a link to nothing named ``.#gin.py``; in an
    editable checkout that must not stop ``import meldmind``, nor compile every kernel again."""
    (tmp_path / "gin.py").write_text("S_HAND = 1\n")
    before = _fingerprint_of(tmp_path, monkeypatch)
    (tmp_path / ".#gin.py").symlink_to("user@host.1234:1700000000")
    assert jit._fingerprint() == before


def test_in_a_strict_editable_install_the_fingerprint_reads_the_build_tree(tmp_path):
    """A strict editable install links each source into the build tree, beside the compiled
    extension; jit.py, imported through its link, hashes that tree (the folder the link's
    target is in holds no extension there)."""
    build = tmp_path / "build"
    build.mkdir()
    (build / "jit.py").symlink_to(KERNELS / "jit.py")
    extension = build / f"handalg{EXTENSION}"
    fingerprints = []
    for output in (b"one build", b"another build"):
        extension.write_bytes(output)
        spec = importlib.util.spec_from_file_location("linked_jit", build / "jit.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        fingerprints.append(module.FINGERPRINT)
    assert fingerprints[0] != fingerprints[1]


def test_an_error_other_than_nowhere_to_cache_is_raised_not_warned_away(monkeypatch):
    """Only numba's "cannot cache" (no writable place for a cache) falls back to an uncached
    kernel with a warning; any other failure to set up a cache is a fault to surface."""
    def broken_cache(py_func):
        raise RuntimeError("the cache index is corrupt")
    monkeypatch.setattr(numba.core.dispatcher, "FunctionCache", broken_cache)

    def add_one(x):
        return x + 1
    with pytest.raises(RuntimeError, match="the cache index is corrupt"):
        jit.njit(cache=True)(add_one)


# ---- bits.py: compiled and as Python ----------------------------------------------------------

@njit
def _is_empty_by_lowest_bit(mask):
    return lowest_bit(mask) == 64


def test_the_lowest_bit_of_no_card_is_64_even_where_the_optimiser_sees_a_comparison():
    """``lowest_bit(0)`` is 64, as the arithmetic gives (``_DEFINED_AT_ZERO``): were LLVM's
    cttz left undefined at zero, the optimiser would fold ``lowest_bit(m) == 64`` to False."""
    assert _is_empty_by_lowest_bit(np.int64(0))
    assert not _is_empty_by_lowest_bit(np.int64(-2 ** 63))


def test_without_jit_the_bit_helpers_agree_with_the_instructions_at_the_edges_of_every_sign():
    """The arithmetic stands in for the CPU instructions when the kernels run as Python: the
    same counts on masks with the sign bit set and on zero, where the compiled test checks
    them (test_bits._both, run both ways)."""
    from test_bits import _both
    edges = [0, -1, -2 ** 63, 2 ** 63 - 1, 1 << 62, -(1 << 62), 5]
    masks = np.array(edges, np.int64)
    counts, lowest = np.empty_like(masks), np.empty_like(masks)
    _both(masks, counts, lowest)
    out = printed_without_jit(
        "import numpy as np; from test_bits import _both\n"
        f"masks = np.array({edges}, np.int64)\n"
        "counts, lowest = np.empty_like(masks), np.empty_like(masks)\n"
        "_both(masks, counts, lowest); print(*counts, *lowest)")
    assert [int(v) for v in out] == counts.tolist() + lowest.tolist()


# ---- bridge.py: the hand algebra's names as Python ---------------------------------------------

_GIN = int(encode_hands("gin", ["AS 2S 3S 5C 9D KH QH"])[0])
_CARDVERSE = int(encode_hands("cardverse", ["5H 6H 7H 9C QD"])[0])
_RAMI = int(encode_hands("rami", ["QH KH AH 5S 6S JK1"])[0])
_KIROLO = [int(m) for m in encode_hands(
    "kirolo", [["FI01a", "FI02a", "FI03a", "WA09a", "ME09b", "EA12a", "JOKER"]])[0]]
_RUN = int(encode_hands("gin", ["5H 6H 7H"])[0])
_EXTRA = int(encode_hands("gin", ["4H 8H 9H KS"])[0])


@njit
def _bridge_answers(gin, cardverse, rami, k0, k1, k2, run, extra):
    """Each name of the bridge called once (compiled, or as Python with the JIT disabled)."""
    return (bridge.deadwood(0, gin, 0), bridge.leftover(0, gin, 0),
            bridge.leftover(1, cardverse, 0), bridge.rami_opening(rami),
            bridge.kirolo_unmelded(k0, k1, k2, 1),
            bridge.layoff_cards(0, 1, run, 0, 0, extra, 1, 1))


def test_without_jit_each_name_of_the_bridge_answers_as_its_compiled_symbol():
    """With NUMBA_DISABLE_JIT=1 the bridge's names are the Cython functions themselves; each
    must be the one its compiled symbol calls, or the kernels run as Python play another game."""
    args = (_GIN, _CARDVERSE, _RAMI, *_KIROLO, _RUN, _EXTRA)
    compiled = [int(v) for v in _bridge_answers(*args)]
    out = printed_without_jit("from test_small_kernels_edges import _bridge_answers\n"
                             f"print(*_bridge_answers(*{args}))")
    assert [int(v) for v in out] == compiled
    assert len(set(compiled)) == len(compiled)   # no two names could stand in for each other


# ---- arrays.py: the search of the legal moves --------------------------------------------------

def test_sorted_contains_finds_each_of_the_first_n_items_and_nothing_past_them():
    """The legal moves fill the first ``n`` slots of a larger buffer, sorted: each of them is
    found, the first and the last too, and neither a value between them nor one left past
    ``n`` by an earlier position."""
    buffer = np.array([2, 3, 5, 8, 13, 21], np.int64)
    for n in range(buffer.size):
        for value in buffer[:n]:
            assert sorted_contains(buffer, n, value), (n, value)
        for value in (0, 4, 9, 14, buffer[n]):
            assert not sorted_contains(buffer, n, value), (n, value)


# ---- errors.py: the kinds and the words of the errors ------------------------------------------

def test_each_kind_of_input_error_is_caught_by_its_own_name_only():
    """CardError, OptionError and IllegalMove are siblings under MeldmindError (a ValueError):
    a client's ``except OptionError`` must not take a bad card or an illegal move for a bad
    option, nor ``except CardError`` a bad option for a bad card."""
    causes = {CardError: lambda: analyze_hand("gin", "AS 2S ZZ"),
              OptionError: lambda: new_game("gin", options={"bogus": 1}),
              IllegalMove: lambda: new_game("gin", seed=1).play("knock")}
    for kind, cause in causes.items():
        with pytest.raises(MeldmindError) as raised:
            cause()
        assert isinstance(raised.value, ValueError)
        assert [k for k in causes if isinstance(raised.value, k)] == [kind]


def test_a_json_integer_of_as_many_digits_as_python_reads_is_read_signed_or_not():
    """Python reads integers of up to ``sys.get_int_max_str_digits()`` digits, the sign not
    counted; meldmind's own refusal starts one digit later, at the same place."""
    limit = sys.get_int_max_str_digits()
    if not limit:
        pytest.skip("Python's digit limit is switched off here")
    assert parse_json("9" * limit, "x") == 10 ** limit - 1
    assert parse_json("-" + "9" * limit, "x") == 1 - 10 ** limit
    with pytest.raises(MeldmindError, match=rf"too many digits \({limit + 1}; meldmind reads at "
                                            rf"most {limit}\)"):
        parse_json("-" + "9" * (limit + 1), "x")


def test_with_pythons_digit_limit_switched_off_a_json_integer_of_any_length_is_read():
    """``sys.set_int_max_str_digits(0)`` lifts Python's limit (a server may do so for its own
    reasons); meldmind then reads what Python reads, not refusing against a limit of 0."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert parse_json("9" * 5000, "x") == 10 ** 5000 - 1
    finally:
        sys.set_int_max_str_digits(limit)


def test_clipped_keeps_a_text_of_the_most_shown_length_whole_and_a_longer_one_to_that_length():
    """A message repeats at most ``MOST_SHOWN`` characters of a client's value: a text of that
    length whole, a longer one cut to exactly that many, its length said."""
    text = "".join(str(i % 10) for i in range(MOST_SHOWN + 1))
    assert clipped(text[:MOST_SHOWN]) == text[:MOST_SHOWN]
    assert clipped(text) == f"{text[:MOST_SHOWN]}... ({MOST_SHOWN + 1:,} characters)"


def test_shown_writes_infinities_as_python_does_since_json_has_none():
    """JSON has no infinity (Python's json would write the non-standard ``Infinity``), so a
    message shows one as its ``repr``, like nan."""
    assert shown(float("inf")) == "inf"
    assert shown([0.5, float("-inf")]) == "[0.5, -inf]"


def test_an_integer_too_long_to_write_is_described_by_its_bit_length():
    """Python refuses to write an integer of more than 4300 digits; a message then gives its
    size in bits, and for a container holding one, the container's kind."""
    if not sys.get_int_max_str_digits():
        pytest.skip("Python's digit limit is switched off here")
    value = 7 ** 6000
    assert shown(value) == f"an integer of {value.bit_length()} bits"
    assert shown(-value) == f"an integer of {value.bit_length()} bits"
    assert shown([value]) == "a list holding an integer too long to write"
