"""Where compiled kernels are cached, the lock that serializes compilation into that folder across
processes, and what ``fastspe cache info|clear`` reports and removes. No numba import here: the
CLI reads and clears the folder without loading the compiler.

The folder is ``<root>/<fastspe version>-c<LAYOUT>``: ``LAYOUT`` names the cache scheme (file names,
payload format, what a key holds), so a folder written by an older scheme (numba's own numbered
data files, which concurrent writers could mix up) is never read, and a later change of scheme
(kernels moving between modules) bumps it instead of trusting old entries.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

LAYOUT = 4  # 4: the kernels of each domain moved into its folder (fastspe.domains.NAME.kernels)
LOCK_NAME = "compile.lock"
INDEX_SUFFIX = ".nbi"
DATA_SUFFIX = ".nbc"
_OFF = {"0", "false", "no", "off"}


def cache_enabled(environ=os.environ) -> bool:
    """False when ``FASTSPE_NUMBA_CACHE`` is 0/false/no/off (read-only installs, debugging)."""
    return environ.get("FASTSPE_NUMBA_CACHE", "1").strip().lower() not in _OFF


def cache_root(environ=os.environ) -> Path:
    """The folder that holds every fastspe version's cache: ``$NUMBA_CACHE_DIR/fastspe`` if set (a
    subfolder, so that ``cache clear`` never touches other projects' kernels), else
    ``$XDG_CACHE_HOME/fastspe/numba`` (default ``~/.cache``), never inside the installed package."""
    numba_dir = environ.get("NUMBA_CACHE_DIR", "").strip()
    if numba_dir:
        return Path(numba_dir).expanduser() / "fastspe"
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fastspe" / "numba"


def cache_dir(environ=os.environ) -> Path:
    """This version's and layout's cache folder."""
    from .. import __version__

    return cache_root(environ) / f"{__version__}-c{LAYOUT}"


class CompileLock:
    """One inter-process lock per cache folder, reentrant within a process.

    A thread-level RLock is taken first, then the file lock (held once, however deeply compiles
    nest: a kernel's callees compile inside its own compile). The file lock alone would not
    serialize threads of one process, and the RLock alone not processes.
    """

    def __init__(self, folder: Path):
        from filelock import FileLock

        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self._threads = threading.RLock()
        self._file = FileLock(str(self.path), thread_local=False)  # guarded by _threads
        self._depth = threading.local()

    @property
    def held(self) -> bool:
        """Whether the calling thread holds the lock."""
        return getattr(self._depth, "n", 0) > 0

    def __enter__(self):
        self._threads.acquire()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._file.acquire()
        except BaseException:
            self._threads.release()
            raise
        self._depth.n = getattr(self._depth, "n", 0) + 1
        return self

    def __exit__(self, *exc):
        self._depth.n -= 1
        try:
            self._file.release()
        finally:
            self._threads.release()


_LOCKS: dict[Path, CompileLock] = {}
_LOCKS_GUARD = threading.Lock()


def compile_lock(folder: Path | None = None) -> CompileLock:
    """The process's one lock object for ``folder`` (default: this version's cache folder)."""
    folder = Path(folder or cache_dir()).absolute()
    with _LOCKS_GUARD:
        if folder not in _LOCKS:
            _LOCKS[folder] = CompileLock(folder)
        return _LOCKS[folder]


def _forget_locks_in_child() -> None:
    # a forked child must not inherit a lock another thread of the parent held at fork time
    global _LOCKS_GUARD
    _LOCKS.clear()
    _LOCKS_GUARD = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_locks_in_child)


@dataclass(frozen=True)
class CacheInfo:
    folder: Path
    enabled: bool
    kernels: int  # index files: one per cached function
    overloads: int  # data files: one per compiled signature
    bytes: int
    other_folders: tuple[Path, ...]  # older versions or layouts beside this one


def _cache_files(folder: Path):
    if not folder.is_dir():
        return
    for path in folder.rglob("*"):
        if path.is_file() and (path.suffix in (INDEX_SUFFIX, DATA_SUFFIX) or ".tmp." in path.name):
            yield path


def cache_info(environ=os.environ) -> CacheInfo:
    folder = cache_dir(environ)
    files = list(_cache_files(folder))
    root = folder.parent
    others = tuple(sorted(p for p in root.iterdir() if p.is_dir() and p != folder)) if root.is_dir() else ()
    return CacheInfo(
        folder=folder,
        enabled=cache_enabled(environ),
        kernels=sum(p.suffix == INDEX_SUFFIX for p in files),
        overloads=sum(p.suffix == DATA_SUFFIX for p in files),
        bytes=sum(p.stat().st_size for p in files),
        other_folders=others,
    )


def clear_cache(environ=os.environ, every_version: bool = False) -> int:
    """Remove the cache files of this version's folder (of every version's with ``every_version``),
    under the compile lock so that no process is writing meanwhile; the number of files removed.
    Only cache files go (index, data, temporaries), never anything else a user put there."""
    folder = cache_dir(environ)
    folders = [folder]
    if every_version and folder.parent.is_dir():
        folders += [p for p in folder.parent.iterdir() if p.is_dir() and p != folder]
    removed = 0
    for each in folders:
        if not each.is_dir():
            continue
        with compile_lock(each):
            for path in list(_cache_files(each)):
                path.unlink(missing_ok=True)
                removed += 1
        for sub in sorted((p for p in each.rglob("*") if p.is_dir()), reverse=True):
            try:
                sub.rmdir()  # empty subfolders only
            except OSError:
                pass
    return removed
