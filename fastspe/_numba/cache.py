"""fastspe's on-disk kernel cache: numba's, made safe for any number of processes sharing a folder.

Numba's own cache (``numba.core.caching.IndexDataCacheFile``) numbers a function's data files
1, 2, ... in the order overloads arrive and keeps the signature -> number map in one index file
that each writer reads, extends and rewrites. Two processes compiling different overloads of one
kernel at once both pick number 1; the index then maps a signature to the other overload's
machine code, which later runs (a segfault, or a wrong number). Its key also misses stale
callees: a kernel's cached code embeds the kernels it calls, so editing a callee in another
module leaves the caller's old machine code in use.

Here, by construction:

* a data file's name is a hash of the overload's full key (signature, target CPU and features,
  bytecode, numba version), so two overloads never share a file; the payload stores the key and
  the source stamp, and a load whose stored key differs, or a file that cannot be read whole, is
  a miss (compiled afresh and rewritten), never run; the index file only lists what is there;
* the source stamp covers every kernel module and the cache code itself, not only the function's
  own file;
* a loaded overload keeps its load hooks (a parallel kernel's thread-pool start) on its library, so a
  caller compiled afresh over it inherits them, as over a fresh compile (``KernelCacheImpl.rebuild``);
* every write goes to a temporary file that ``os.replace`` publishes;
* load, compile and save of each overload run under the folder's inter-process lock
  (``fastspe._numba.folder.CompileLock``, see ``locked_compile``), so N processes starting
  together compile a kernel once and the others load it.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import sys
import warnings
from pathlib import Path

import numba
from numba.core import caching, sigutils
from numba.core.compiler_lock import global_compiler_lock

from . import folder as folder_mod


_PACKAGE = Path(__file__).resolve().parents[1]  # fastspe's own folder
# what fastspe's kernels import beside one another: the codes and the action vocabulary every domain shares
_KERNEL_CONSTANTS = ("domains/codes.py", "domains/vocabulary.py")


@functools.lru_cache(maxsize=None)
def kernels_stamp(package: str = str(_PACKAGE)) -> str:
    """A hash of every module whose code can end up in a compiled kernel of ``package`` (a folder): the kernels
    (``kernels`` folders, which call and import from one another only, fastspe's shared ones, each domain's, and a
    plugin's own), the constants they import, and this cache's own code."""
    here = Path(__file__).resolve().parent
    files = (
        sorted(_PACKAGE.rglob("kernels/*.py")) + [_PACKAGE / f for f in _KERNEL_CONSTANTS] + sorted(here.glob("*.py"))
    )
    if Path(package) != _PACKAGE:
        files += sorted(Path(package).rglob("kernels/*.py"))
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(path.parents[1])).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def package_of(py_file: str) -> str:
    """The folder of the top-level package a source file belongs to (the folder above which no ``__init__.py``)."""
    folder = Path(py_file).resolve().parent
    while (folder.parent / "__init__.py").is_file():
        folder = folder.parent
    return str(folder)


class KernelLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """The cache folder of one kernel's source file inside fastspe's versioned cache folder (one
    subfolder per source folder, as numba does, so that two checkouts do not overwrite each other)."""

    def __init__(self, py_func, py_file, root: Path):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self.root = root
        self._cache_path = str(root / self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return (super().get_source_stamp(), kernels_stamp(package_of(self._py_file)), folder_mod.LAYOUT)

    @classmethod
    def from_function(cls, py_func, py_file, root: Path | None = None):
        self = cls(py_func, py_file, root or folder_mod.cache_dir())
        self.ensure_cache_path()  # OSError: no cache for this kernel (the caller decides)
        return self


class KernelCacheImpl(caching.CompileResultCacheImpl):
    """numba's CompileResult serialization with fastspe's locator only (no fallback to a
    ``__pycache__`` beside the sources, no ``NUMBA_CACHE_LOCATOR_CLASSES`` override)."""

    def __init__(self, py_func, root: Path | None = None):
        self._lineno = py_func.__code__.co_firstlineno
        source = inspect.getfile(py_func)
        self._locator = KernelLocator.from_function(py_func, source, root)
        modname = os.path.splitext(os.path.basename(source))[0]
        self._filename_base = self.get_filename_base(f"{modname}.{py_func.__qualname__}", getattr(sys, "abiflags", ""))

    def rebuild(self, target_context, payload):
        """A cached overload, its load hooks kept on its library. numba runs the hooks of a loaded result
        (a parallel kernel's: start the thread pool) but leaves its rebuilt library without them, and a
        caller compiled afresh inherits hooks from the libraries it links: it would be saved without the
        pool's start, and a later process that loads that caller alone would call the parallel runtime
        through a null pointer (numba issues 8578 and 4807)."""
        cres = super().rebuild(target_context, payload)
        cres.library._reload_init.update(cres.reload_init)
        return cres


class KeyedCacheFile(caching.IndexDataCacheFile):
    """Data files named by their key's hash, each carrying its key; the index is a listing only."""

    def __init__(self, cache_path, filename_base, source_stamp):
        super().__init__(cache_path, filename_base, source_stamp)
        self._base = filename_base

    def data_name(self, key: str) -> str:
        return f"{self._base}.{hashlib.sha256(key.encode()).hexdigest()[:24]}{folder_mod.DATA_SUFFIX}"

    def _stored(self, key: str):
        return key, self._source_stamp, self._version

    def load(self, key: str):
        try:
            stored, data = self._load_data(self.data_name(key))
        except Exception:  # missing, cut short, foreign or unpicklable: recompile and rewrite
            return None
        if stored != self._stored(key):
            return None
        return data

    def save(self, key: str, data) -> None:
        """Store one overload; a folder that cannot take it (full disk, a file-size limit, read-only) costs
        only the cache: the command goes on with the code compiled in memory."""
        name = self.data_name(key)
        try:
            self._save_data(name, (self._stored(key), data))  # the data first: a listed file always exists
            try:
                listing = self._load_index()
            except Exception:  # a damaged listing is rebuilt; it decides nothing
                listing = {}
            listing[key] = name
            self._save_index(listing)
        except OSError as exc:
            _warn_once(
                f"fastspe: compiled kernels cannot be cached in {self._cache_path} "
                f"({os.strerror(exc.errno) if exc.errno else exc}); they compile again in each process"
            )


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, RuntimeWarning, stacklevel=3)


class KernelCache(caching.FunctionCache):
    """numba's FunctionCache over ``KeyedCacheFile``, with a textual key that names everything the
    compiled code depends on."""

    _impl_class = KernelCacheImpl

    def __init__(self, py_func, root: Path | None = None):
        self._name = repr(py_func)
        self._py_func = py_func
        self._impl = self._impl_class(py_func, root)
        self._cache_path = self._impl.locator.get_cache_path()
        self.folder = self._impl.locator.root
        self._cache_file = KeyedCacheFile(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base,
            source_stamp=self._impl.locator.get_source_stamp(),
        )
        self.enable()

    def _index_key(self, sig, codegen) -> str:
        args, return_type = sigutils.normalize_signature(sig)
        _sig, magic, code_hashes = super()._index_key(sig, codegen)
        return repr((str(tuple(args)), str(return_type), magic, code_hashes, numba.__version__))


def kernel_cache(py_func, root: Path | None = None) -> KernelCache | None:
    """The cache for one kernel, or None where its folder cannot be created or written (the
    kernel then compiles in every process, as with ``FASTSPE_NUMBA_CACHE=0``)."""
    try:
        return KernelCache(py_func, root)
    except OSError:
        return None


def locked_compile(dispatcher, cache: KernelCache):
    """``dispatcher.compile`` under the cache folder's lock: a cache load, or a compile and save,
    of one overload at a time across every process sharing the folder.

    Lock order is ours, then numba's global compiler lock (taken inside ``compile``). A thread that
    already holds numba's lock without ours (a kernel compiled from inside a plain ``numba.njit``
    function's compile) must not wait for ours (the holder of ours may be waiting for numba's), so
    it goes on unlocked: the keyed data files keep that correct, the lock only saves duplicate work.
    """
    compile_unlocked = dispatcher.compile

    @functools.wraps(compile_unlocked)
    def compile(sig):
        lock = folder_mod.compile_lock(cache.folder)  # looked up per call: a forked child gets a fresh one
        args, _ = sigutils.normalize_signature(sig)
        if tuple(args) in dispatcher.overloads or (global_compiler_lock.is_locked() and not lock.held):
            return compile_unlocked(sig)
        with lock:
            return compile_unlocked(sig)

    return compile


__all__ = ["KernelCache", "kernel_cache", "kernels_stamp", "locked_compile"]
