"""The hot paths are native: no Python interaction ("yellow" in `cython -a`) inside any
nogil C function of the hand algebra."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

KERNELS = Path(__file__).resolve().parents[1] / "kernels"
_LINE = re.compile(r'<pre class="cython line score-(\d+)"[^>]*>(?:&#xA0;|\+)<span class="">(\d+)</span>')


@pytest.mark.parametrize("name", sorted(p.stem for p in KERNELS.glob("*.pyx")))
def test_nogil_functions_have_no_python_interaction(tmp_path, name):
    for suffix in (".pyx", ".pxd"):
        if (KERNELS / f"{name}{suffix}").exists():
            shutil.copy(KERNELS / f"{name}{suffix}", tmp_path)
    subprocess.run([sys.executable, "-m", "cython", "-3", "-a", f"{name}.pyx", "-o", f"{name}.c"],
                   cwd=tmp_path, check=True, capture_output=True)
    scores = {int(n): int(s) for s, n in _LINE.findall((tmp_path / f"{name}.html").read_text())}
    source = (tmp_path / f"{name}.pyx").read_text().splitlines()
    yellow, function, checked = [], None, 0
    for number, line in enumerate(source, 1):
        if line and not line[0].isspace() and not line.startswith(("#", ")")):
            signature = line
            for more in source[number:]:
                if signature.rstrip().endswith(":"):
                    break
                signature += more
            is_nogil = line.startswith("cdef ") and "nogil" in signature and "extern" not in line
            function = line.split("(")[0] if is_nogil else None
            checked += is_nogil
        if function and scores.get(number, 0) > 0:
            yellow.append((number, function, line.strip()))
    assert checked >= 10
    assert yellow == []
