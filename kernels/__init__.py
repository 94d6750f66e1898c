"""meldmind's native core: the Cython hand algebra and the numba kernels built on it."""
