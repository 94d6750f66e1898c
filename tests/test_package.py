"""Packaging: doctests of the public modules, the installed packages, and the message of an
unbuilt tree."""
import doctest
import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import meldmind

# every module with examples in its docstrings (games.gin's run in test_gin_rules.py)
DOCUMENTED = ["meldmind.ai", "meldmind.analysis", "meldmind.cards", "meldmind.errors",
              "meldmind.explain", "meldmind.game", "meldmind.games.cardverse",
              "meldmind.kernels.bridge", "meldmind.tournament", "meldmind.variants"]


@pytest.mark.parametrize("name", DOCUMENTED)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_every_package_of_the_tree_is_installed():
    """pyproject.toml lists the packages by hand (two directories make up one namespace), so a
    subpackage missing there is missing from a non-editable install, while an editable install
    still finds it. Every directory counts, data-only ones (schemas) too: Python can import
    them, and setuptools drops them from a build unless they are listed."""
    try:
        import tomllib
    except ImportError:     # Python 3.10
        import tomli as tomllib
    root = Path(meldmind.__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = set()
    for name, directory in config["package-dir"].items():
        base = root / directory
        for directory in [base, *base.rglob("*")]:
            if directory.is_dir() and directory.name != "__pycache__":
                found.add(".".join((name, *directory.relative_to(base).parts)))
    assert found == set(config["packages"])


def test_one_version_for_the_package_and_its_metadata(capsys):
    """pyproject.toml reads the version from meldmind.__version__, so pip, the CLI and the
    package tell the same one."""
    from importlib.metadata import version

    from meldmind.cli import main
    assert version("meldmind") == meldmind.__version__
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.split() == ["meldmind", meldmind.__version__]


def _mypy_on_the_installed_layout(tmp_path, *paths):
    """mypy's report and status on ``paths``, with the package laid out as it is installed
    (kernels/ becomes meldmind/kernels, handalg.pyi stands for the compiled module)."""
    from mypy import api
    limit = sys.getrecursionlimit()     # mypy's api raises it for the rest of the process
    root = Path(meldmind.__file__).resolve().parents[2]
    package = tmp_path / "meldmind"
    shutil.copytree(root / "src" / "meldmind", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(root / "kernels", package / "kernels",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c", "*.html"))
    try:
        out, err, status = api.run(["--ignore-missing-imports",
                                    "--cache-dir", str(tmp_path / "cache"),
                                    *(str(tmp_path / p) for p in paths)])
    finally:
        sys.setrecursionlimit(limit)
    return out + err, status


def test_the_package_type_checks(tmp_path):
    """py.typed promises annotations a type checker can use: mypy passes on the package."""
    report, status = _mypy_on_the_installed_layout(tmp_path, "meldmind")
    assert status == 0, report


def test_a_type_checker_sees_the_openspiel_bots_signature(tmp_path):
    """MeldmindBot is built when first used, on pyspiel.Bot, which meldmind does not depend
    on; a type checker still sees its arguments and methods, and flags a misuse."""
    (tmp_path / "use.py").write_text(
        "from meldmind.integrations.openspiel import MeldmindBot\n"
        "bot = MeldmindBot(0, level='expert', iterations='many')\n"
        "reveal_type(bot.step)\n")
    report, status = _mypy_on_the_installed_layout(tmp_path, "use.py")
    assert status == 1
    assert 'use.py:2: error: Argument "iterations"' in report and '"SupportsIndex | None"' in report
    assert "def (state: Any) -> int" in report


def test_numpy_integers_type_check_where_the_api_takes_integers(tmp_path):
    """The API reads any integer with ``__index__`` (numpy's too), and its annotations say so:
    an embedder passing numpy's integers gets no type error."""
    (tmp_path / "use.py").write_text(
        "import numpy as np\n"
        "import meldmind\n"
        "game = meldmind.new_game('cardverse', players=np.int64(2), seed=np.int64(5))\n"
        "game.play(np.int64(0))\n"
        "hint = meldmind.suggest(game.observation(0), iterations=np.int32(4), seed=np.int64(1))\n"
        "result = meldmind.arena('gin', 'easy', 'beginner', deals=np.int64(2), seed=np.int64(0),\n"
        "                        processes=np.int64(1), iterations=np.int64(4))\n")
    report, status = _mypy_on_the_installed_layout(tmp_path, "use.py")
    assert status == 0, report


def test_import_of_an_unbuilt_tree_says_how_to_build(tmp_path):
    root = Path(meldmind.__file__).resolve().parents[2]
    tree = tmp_path / "meldmind"
    shutil.copytree(root / "src" / "meldmind", tree, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(root / "kernels", tree / "kernels",
                    ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    # -S: no site-packages, so neither an installed nor an editable meldmind is found
    result = subprocess.run([sys.executable, "-S", "-c", "import meldmind"], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "native kernels are not built" in result.stderr and "pip install ." in result.stderr


def test_readme_examples_run():
    readme = Path(__file__).resolve().parents[1] / "README.md"
    result = doctest.testfile(str(readme), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_cli_analyze(capsys):
    from meldmind.cli import main
    assert main(["analyze", "gin", "AS", "2S", "3S", "7C", "7D", "7H", "KD", "9C", "4H", "5H"]) == 0
    out = capsys.readouterr().out
    assert "run   AS 2S 3S" in out and "4 cards, 28 points" in out
    assert main(["analyze", "gin", "AS", "2S", "XX"]) == 2
    assert "'XX'" in capsys.readouterr().err
    assert main(["analyze", "--samples", "--json"]) == 0
    assert '"variant": "kirolo"' in capsys.readouterr().out
    assert main(["analyze", "rami", "--samples", "--options", '{"opening_threshold": 70}']) == 0
    out = capsys.readouterr().out
    assert out.count("rami ") == 2 and "kirolo" not in out and "cannot open" in out
    for bad, message in ((["rami", "5H", "--options", "{oops"], "malformed --options JSON"),
                         (["--samples", "--options", "{}"], "name one"),
                         (["gin", "AS", "--samples"], "not both")):
        assert main(["analyze", *bad]) == 2
        assert message in capsys.readouterr().err


def test_cli_output_into_a_closed_pipe_ends_quietly():
    """``meldmind analyze --samples | head -1``: no BrokenPipeError traceback."""
    shell = f"'{sys.executable}' -m meldmind.cli analyze --samples | head -1"
    done = subprocess.run(["sh", "-c", shell], capture_output=True, text=True, timeout=120)
    assert done.stdout.startswith("gin") and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("given, kept", [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_openmp_threads_sleep_when_idle_unless_the_embedder_chose(given, kept):
    """Spinning idle threads slow the search on a loaded host (kernels/__init__.py)."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    code = "import os, meldmind.kernels; print(os.environ['OMP_WAIT_POLICY'])"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == kept
