"""Builds the Cython hand-algebra kernels; everything else is in pyproject.toml."""
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

# Cython finds each module's .pxd by the module's dotted name under its own directory, so the
# kernels are cythonized as `kernels.<name>` and then installed as `meldmind.kernels.<name>`
# (pyproject.toml maps that package onto kernels/).
extensions = cythonize(
    [
        Extension(
            f"kernels.{pyx.stem}",
            [str(pyx)],
            include_dirs=[numpy.get_include()],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            extra_compile_args=["-O3"],
        )
        for pyx in sorted(Path("kernels").glob("*.pyx"))
    ],
    language_level=3,
)
for extension in extensions:
    extension.name = f"meldmind.{extension.name}"

setup(ext_modules=extensions)
