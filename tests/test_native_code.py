"""The hot paths are native.

Cython: no Python interaction ("yellow" in `cython -a`) inside any nogil C function of the hand
algebra, nor inside a `with nogil:` block of its Python entry points (the batch loops).

numba: the four playout loops compile to bodies that touch no reference count, allocate
nothing and call no Python, and neither random play nor the search allocates per move."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
KERNELS = TESTS.parent / "kernels"
_LINE = re.compile(r'<pre class="cython line score-(\d+)"[^>]*>(?:&#xA0;|\+)<span class="">(\d+)</span>')


def _indent(line):
    return len(line) - len(line.lstrip())


def _line_scores(tmp_path, name):
    for suffix in (".pyx", ".pxd"):
        if (KERNELS / f"{name}{suffix}").exists():
            shutil.copy(KERNELS / f"{name}{suffix}", tmp_path)
    subprocess.run([sys.executable, "-m", "cython", "-3", "-a", f"{name}.pyx", "-o", f"{name}.c"],
                   cwd=tmp_path, check=True, capture_output=True)
    scores = {int(n): int(s) for s, n in _LINE.findall((tmp_path / f"{name}.html").read_text())}
    source = (tmp_path / f"{name}.pyx").read_text().splitlines()
    # every line read, and yellow seen where it must be: else a changed annotation format
    # would pass every line as white
    assert sorted(scores) == list(range(1, len(source) + 1))
    imports = [n for n, line in enumerate(source, 1) if line.startswith("import numpy")]
    assert imports and all(scores[n] > 0 for n in imports)
    return scores, source


@pytest.mark.parametrize("name", sorted(p.stem for p in KERNELS.glob("*.pyx")))
def test_nogil_code_has_no_python_interaction(tmp_path, name):
    scores, source = _line_scores(tmp_path, name)
    yellow, function, functions, nogil_blocks = [], None, 0, 0
    block_indent = None          # indent of the `with nogil:` line whose block we are in
    for number, line in enumerate(source, 1):
        if line and not line[0].isspace() and not line.startswith(("#", ")")):
            signature = line
            for more in source[number:]:
                if signature.rstrip().endswith(":"):
                    break
                signature += more
            is_nogil = line.startswith("cdef ") and "nogil" in signature and "extern" not in line
            function = line.split("(")[0] if is_nogil else None
            functions += is_nogil
        if block_indent is not None and line.strip() and _indent(line) <= block_indent:
            block_indent = None
        if (function or block_indent is not None) and scores[number] > 0:
            yellow.append((number, function or "with nogil", line.strip()))
        if line.strip() == "with nogil:":
            block_indent, nogil_blocks = _indent(line), nogil_blocks + 1
    assert functions >= 10 and nogil_blocks >= 4
    assert yellow == []


@pytest.fixture(scope="module")
def native_report(tmp_path_factory):
    # a fresh cache: overloads loaded from one carry no LLVM IR to read
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path_factory.mktemp("numba_cache")),
               NUMBA_NRT_STATS="1", NUMBA_NUM_THREADS="1")
    done = subprocess.run([sys.executable, str(TESTS / "native_probe.py")], env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout)


def test_playout_loops_touch_no_reference_count_and_no_python(native_report):
    bodies = native_report["bodies"]
    assert len(bodies) == 4 and all(len(found) == 1 for found in bodies.values()), bodies
    for name, (body,) in bodies.items():
        assert body == {"incref": 0, "decref": 0, "alloc": 0, "python": []}, name


def test_random_play_and_search_do_not_allocate_per_move(native_report):
    # ten times the games (about 1,200 moves against 12,000) may regrow a buffer, no more
    for variant, (ten, hundred) in native_report["random"].items():
        assert hundred <= ten + 2, variant
    # a determinization's playouts play dozens of moves per candidate move: an allocation per
    # move would cost hundreds; its fixed buffers and master's candidate hands cost under 40
    for search, (eight, sixty_four) in native_report["search"].items():
        assert 0 < (sixty_four - eight) / 56 < 40, (search, eight, sixty_four)
