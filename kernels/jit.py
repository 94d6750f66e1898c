"""numba's ``njit``, with caches that notice a change anywhere in the kernels.

numba keeps a cached function while the timestamp of its own file stays the same. The kernels,
though, compile in what other files define: the state layouts of ``gin.py`` and ``cardverse.py``
(the AI kernels index states with them), functions inlined from other modules, and the symbols
of the Cython hand algebra. After an edit or a ``git pull`` in an editable install, a cached
function could still read the old layout, out of its arrays. Here each cache is stamped with a
hash of every kernel file and of the compiled extension as well, so a change in any of them
compiles every kernel again. (The stamp lives in a private attribute of numba's cache;
``tests/test_kernel_caches.py`` checks on every numba version that each kernel gets it.)
"""
import hashlib
import importlib.machinery
import warnings
from pathlib import Path

import numba

# not resolved: a strict editable install links the sources into the build tree beside the
# compiled extension, which the fingerprint must read too
_KERNELS = Path(__file__).parent


def _fingerprint() -> str:
    """A hash of the kernel sources and the compiled extension modules beside them."""
    digest = hashlib.blake2b(digest_size=16)
    suffixes = (".py", *importlib.machinery.EXTENSION_SUFFIXES)
    # is_file: an editor's lock file (Emacs' ``.#gin.py``) is a link to nothing
    sources = (p for p in _KERNELS.iterdir() if p.name.endswith(suffixes) and p.is_file())
    for path in sorted(sources):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


FINGERPRINT = _fingerprint()


_uncached_warned = False


def _warn_uncached(why: Exception) -> None:
    """One warning per process that the kernels compile without a cache, and why."""
    global _uncached_warned
    if not _uncached_warned:
        _uncached_warned = True
        warnings.warn(f"meldmind's kernels could not use numba's cache ({why}), so they compile "
                      "again (tens of seconds); if this repeats, set NUMBA_CACHE_DIR to a "
                      "writable directory", RuntimeWarning, stacklevel=4)


def _compile_uncached(function, options: dict, why: Exception):
    """``function`` compiled without a cache: a read-only install with no writable home leaves
    numba nowhere to write one, and refusing would stop every game."""
    _warn_uncached(why)
    return numba.njit(**{**options, "cache": False})(function)


def _tolerate_cache_faults(cache) -> None:
    """A cache that fails on disk costs only a compilation. numba would raise from the call that
    compiles: when it saves into a full or no longer writable directory, or loads a truncated
    file (any unpickling error)."""
    load, save = cache.load_overload, cache.save_overload

    def load_or_compile(signature, target_context):
        try:
            return load(signature, target_context)
        except Exception as error:      # noqa: BLE001 - None makes numba compile it afresh
            _warn_uncached(error)
            return None

    def save_or_skip(signature, data):
        try:
            save(signature, data)
        except OSError as error:
            _warn_uncached(error)

    cache.load_overload, cache.save_overload = load_or_compile, save_or_skip


def njit(**options):
    """``numba.njit(**options)``; with ``cache=True``, the cache is also stamped with the
    kernels' fingerprint, its faults on disk cost a compilation instead of the call, and it is
    left out (with a warning) when numba has nowhere to write it."""
    def compile_lazily(function):
        try:
            dispatcher = numba.njit(**options)(function)
        except RuntimeError as error:
            if not (options.get("cache") and "cannot cache" in str(error)):
                raise
            return _compile_uncached(function, options, error)
        # absent with NUMBA_DISABLE_JIT=1 (and should numba rename it: the test then fails, while
        # the package still runs)
        cache = getattr(dispatcher, "_cache", None)
        index = getattr(cache, "_cache_file", None)
        if options.get("cache") and index is not None:
            index._source_stamp = (index._source_stamp, FINGERPRINT)
            _tolerate_cache_faults(cache)
        return dispatcher
    return compile_lazily
