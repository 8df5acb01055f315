"""Table files by extension (.parquet, .jsonl, .csv) with atomic writes.

Every write goes to a temporary file in the destination folder and is then ``os.replace``d, so a
crash never leaves a half-written file under the final name.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from ..errors import UserError, UserTypeError

if TYPE_CHECKING:  # (pandas is imported where it is used: `score --workers` imports this module before it
    import pandas as pd  # starts the cluster, and pandas' 0.3-0.5 s delayed the start)

TABLE_SUFFIXES = (".parquet", ".jsonl", ".csv")


def require_columns(df, columns, what: str, fix: str) -> None:
    """Raise ``TypeError`` unless ``df`` is a DataFrame, ``ValueError`` naming the columns it lacks.

    ``what`` names the table in the message (a file path, "verdicts", ...), ``fix`` says how to get a good one.
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise UserTypeError(f"{what} must be a DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise UserError(f"{what} lack columns {missing}; {fix}")


def table_format(path: str | os.PathLike, allowed=TABLE_SUFFIXES) -> str:
    """The format of ``path`` from its extension, or a ``ValueError`` listing the allowed ones."""
    suffix = Path(path).suffix.lower()
    if suffix not in allowed:
        raise UserError(f"{path}: unknown file type {suffix or '(none)'!r}; use one of {', '.join(allowed)}")
    return suffix[1:]


_TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.(?P<token>[0-9a-f]{8,})\.(?P<kind>tmp|old)$")


def temp_sibling(final: str | os.PathLike, kind: str = "tmp") -> Path:
    """A fresh name ``.NAME.<pid>.<random>.<kind>`` beside ``final``.

    The pid says which process owns it, so ``remove_stale_temps`` can tell a crashed writer's leftovers
    from a live writer's work in progress; the random part keeps two writers in one process apart.
    """
    final = Path(final)
    return final.parent / f".{final.name}.{os.getpid()}.{secrets.token_hex(6)}.{kind}"


def _pid_alive(pid: int, since: float) -> bool:
    """Whether process ``pid`` may still be writing a temporary last changed at ``since`` (a file time)."""
    if os.name == "nt":  # os.kill(pid, 0) would terminate the process there: never guess, keep the file
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's live process (or a pid we cannot ask about): not ours to remove
    return _still_the_writer(pid, since)


def _still_the_writer(pid: int, since: float) -> bool:
    """False when Linux's ``/proc`` shows ``pid`` killed but not yet reaped by its parent (a zombie writes nothing;
    a killed ``bank build`` under a harness that never waits stays one), or started after the temporary last
    changed (the pid reused by another process); True where it cannot tell."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rpartition(b")")[2].split()  # (the name before ")" may hold spaces)
        if fields[0] in (b"Z", b"X"):
            return False
        with open("/proc/stat", "rb") as fh:
            boot = next(int(line.split()[1]) for line in fh if line.startswith(b"btime "))
        started = boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return True
    return started <= since + 2  # (boot time is whole seconds: a margin that only ever keeps a file)


def stale_temps(final: str | os.PathLike) -> list[Path]:
    """Temporaries of ``final`` (files or folders named by ``temp_sibling``) whose writing process is gone."""
    final = Path(final)
    try:
        entries = list(os.scandir(final.parent))
    except OSError:
        return []
    stale = []
    for entry in entries:
        m = _TEMP_NAME.match(entry.name)
        if not m or m["name"] != final.name or int(m["pid"]) == os.getpid():
            continue
        try:
            since = entry.stat(follow_symlinks=False).st_mtime
        except OSError:  # gone already
            continue
        if not _pid_alive(int(m["pid"]), since):
            stale.append(final.parent / entry.name)
    return sorted(stale)


def remove_stale_temps(final: str | os.PathLike) -> None:
    """Remove the leftovers of writers of ``final`` that died (see ``stale_temps``); never raises.

    A folder set aside as ``.NAME.<pid>.<random>.old`` by a writer that died mid-swap is the previous
    content of ``final``: it is moved back when ``final`` is missing, and removed otherwise.
    """
    final = Path(final)
    for path in stale_temps(final):
        with contextlib.suppress(OSError):
            if path.name.endswith(".old") and not os.path.lexists(final):
                os.rename(path, final)
            elif path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                os.unlink(path)


# Folders that ``atomic_dir`` is building in this process: what is written in them is synced once, all of
# it together, before the folder is swapped in (one group commit, where a sync per file cost 2 x 3.5 ms)
_BUILDING: set[Path] = set()


def _fsync_file(path) -> None:
    fd = os.open(path, os.O_RDWR)  # Windows syncs only files open for writing
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_tree(root: Path) -> None:
    """Sync every file under ``root``, then every folder, side by side: the file system commits syncs that
    wait together at once, where one after the other each waits for its own journal commit."""
    from concurrent.futures import ThreadPoolExecutor

    files, folders = [], []
    for folder, _, names in os.walk(root):
        folders.append(Path(folder))
        files += [Path(folder) / name for name in names]
    with ThreadPoolExecutor(max_workers=16) as pool:
        list(pool.map(_fsync_file, files))  # raises the first error (a full disk) here
        list(pool.map(_fsync_dir, reversed(folders)))


def _fsync_dir(folder: Path) -> None:
    if os.name == "nt":
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class WriteError(OSError):
    """A write that failed (a full disk, say); the message names the path the user asked for."""


def _write_error(errno_: int | None, path: Path, reason: str) -> WriteError:
    what = f"cannot write {path}: {reason}; nothing was written under that name"
    exc = WriteError(errno_, what) if errno_ is not None else WriteError(what)
    exc.path, exc.reason = path, reason  # (for a folder built aside to name it in its final place)
    return exc


def _naming(final: Path, exc: BaseException, temp: Path) -> BaseException:
    """An ``OSError`` as a ``WriteError`` naming ``final`` rather than its temporary ``temp``; anything else as it
    is. A ``WriteError`` of a file in ``temp`` (the folder ``atomic_dir`` fills) names it inside ``final``."""
    inner = getattr(exc, "path", None) if isinstance(exc, WriteError) else None
    if inner is not None and temp in inner.parents:
        return _write_error(exc.errno, final / inner.relative_to(temp), exc.reason)
    if not isinstance(exc, OSError) or isinstance(exc, WriteError):
        return exc
    reason = os.strerror(exc.errno) if exc.errno else (exc.strerror or str(exc) or type(exc).__name__)
    # a library's text without an errno (pyarrow's) may quote the temporary: the user asked for ``final``
    return _write_error(exc.errno, final, str(reason).replace(os.fspath(temp), os.fspath(final)))


def _make_parent(final: Path) -> None:
    """The folder ``final`` goes in (made if missing); one that cannot be made is a ``WriteError`` naming ``final``."""
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _naming(final, exc, final) from exc


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it is synced and replaces ``path``.

    On any failure the temporary is removed and ``path`` keeps its old content (or stays absent); an
    ``OSError`` (a full disk, say) is raised again naming ``path``. Leftovers of writers of ``path``
    that died are removed first.
    """
    final = Path(path)
    _make_parent(final)
    remove_stale_temps(final)
    tmp = temp_sibling(final)
    later = not _BUILDING.isdisjoint(final.parents)  # in a folder atomic_dir syncs whole before its swap
    try:
        # O_EXCL: never write through a name someone else made; 0o666 & ~umask, the usual permissions
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        yield tmp
        if tmp.is_file() and not later:  # a full disk may only show when the data reach it: sync first
            _fsync_file(tmp)
        os.replace(tmp, final)
        if not later:
            _fsync_dir(final.parent)
    except BaseException as exc:
        with contextlib.suppress(OSError):  # (never made, or a read-only folder: the first error is the one to tell)
            os.unlink(tmp)
        named = _naming(final, exc, tmp)
        if named is exc:
            raise
        raise named from exc


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a new empty folder beside ``path``; on success it takes the place of ``path`` whole.

    The old folder's entries that the new one lacks (files that are not the writer's, such as the
    demo's bank and verdicts next to its report) are carried over as hard links (copies where links
    are not possible), then the old folder is renamed aside, the new one renamed in and the old one
    removed. On any failure before the swap the old folder is untouched and the new one removed; a
    writer that dies between the two renames leaves ``.NAME.<pid>.<random>.old``, which the next
    writer of ``path`` moves back (``remove_stale_temps``). What ``atomic_path`` writes in the new folder
    is synced all together just before the swap, not file by file.
    """
    final = Path(path)
    _make_parent(final)
    remove_stale_temps(final)
    build = temp_sibling(final)
    try:
        build.mkdir()  # in a read-only folder this fails: the error names ``path``, not the temporary
        _BUILDING.add(build)
        try:
            yield build
        finally:
            _BUILDING.discard(build)
        _sync_tree(build)  # a full disk may only show now: before the swap, the error naming ``path``
        if final.is_dir():
            _carry_over(final, build)
            shutil.copymode(final, build)
            aside = temp_sibling(final, "old")
            os.rename(final, aside)
            try:
                os.rename(build, final)
            except BaseException:
                os.rename(aside, final)
                raise
            shutil.rmtree(aside, ignore_errors=True)  # what is left is cleaned as stale once we exit
        else:
            os.rename(build, final)
        _fsync_dir(final.parent)
    except BaseException as exc:
        shutil.rmtree(build, ignore_errors=True)
        named = _naming(final, exc, build)
        if named is exc:
            raise
        raise named from exc


def _carry_over(old: Path, new: Path) -> None:
    """Link (or copy) into ``new`` every entry of ``old`` that ``new`` does not have."""
    for entry in os.scandir(old):
        target = new / entry.name
        if os.path.lexists(target):
            continue
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), target)
        elif entry.is_dir():
            shutil.copytree(entry.path, target, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(entry.path, target)


def _link_or_copy(src, dst) -> None:
    try:
        os.link(src, dst)
    except OSError:  # a file system without hard links
        shutil.copy2(src, dst)


@contextlib.contextmanager
def scratch_folder(prefix: str = "fastspe-") -> Iterator[Path]:
    """A temporary folder of fastspe's own, removed with everything in it when the block ends."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield Path(tmp)


def write_text(text: str, path: str | os.PathLike) -> None:
    """Write ``text`` (UTF-8) atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_jsonl(records, path: str | os.PathLike) -> int:
    """Write ``records`` (an iterable of JSON-able dicts) as JSONL (UTF-8, one object a line) atomically, streamed;
    the number of lines written."""
    n = 0
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
            n += 1
    return n


def write_figure(figure, path: str | os.PathLike, **options) -> None:
    """Save a matplotlib ``figure`` atomically; ``options`` go to its ``savefig`` (format, dpi, metadata)."""
    with atomic_path(path) as tmp:
        figure.savefig(tmp, **options)


@contextlib.contextmanager
def arrow_file(path, mode: str = "rb"):
    """``path`` as pyarrow should get it: the path itself, or an open Python file when the name is not UTF-8
    (pyarrow encodes names as UTF-8 and fails on a name such as ``bank\\xff.parquet``, which the OS accepts)."""
    name = os.fspath(path)
    try:
        name.encode("utf-8")
    except (UnicodeEncodeError, AttributeError):  # lone surrogates (Python's surrogateescape), or bytes
        with open(path, mode) as fh:
            yield fh
        return
    yield path


# A cell that a spreadsheet would run as a formula: it starts (after any quotes added by an earlier
# escape) with = + - @ tab or CR. Numbers such as -1.5 are not formulas and are left alone.
_FORMULA_START = re.compile(r"^'*[=+\-@\t\r]")
_ESCAPED_START = re.compile(r"^'+[=+\-@\t\r]")
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:inf|nan)$", re.IGNORECASE)


def text_cells(values: pd.Series) -> pd.Series:
    """The string cells of ``values``, ``""`` for anything else (NaN, numbers, flags), ready for ``.str``."""
    import pandas as pd

    if pd.api.types.is_string_dtype(values.dtype) and values.dtype != object:
        return values.fillna("")
    if pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
        return values.where(values.notna(), "")
    return values.map(lambda v: v if isinstance(v, str) else "")  # mixed columns only (rare)


def escape_formulas(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with every text cell that a spreadsheet would run as a formula prefixed with ``'``.

    Reversible (``unescape_formulas``): a cell that already starts with quotes before such a character
    gets one more quote, so every original string has exactly one escaped form. Only string cells of
    text columns change; numbers, and strings that read as numbers (``-1``, ``+2.5e3``), stay as they are.
    """
    import pandas as pd

    out = None
    for col in df.columns:
        values = df[col]
        if not (values.dtype == object or pd.api.types.is_string_dtype(values.dtype)):
            continue
        text = text_cells(values)
        risky = text.str.match(_FORMULA_START) & ~text.str.match(_NUMBER)
        if risky.any():
            out = df.copy() if out is None else out
            out[col] = values.astype(object).mask(risky, "'" + text)
    return df if out is None else out


def unescape_formulas(values: pd.Series) -> pd.Series:
    """Undo ``escape_formulas`` on one text column (non-strings pass through)."""
    text = text_cells(values)
    escaped = text.str.match(_ESCAPED_START)
    return values.astype(object).mask(escaped, text.str.slice(1)) if escaped.any() else values


def write_table(df: pd.DataFrame, path: str | os.PathLike, formulas_escaped: bool = False) -> None:
    """Write ``df`` atomically as Parquet, JSONL or CSV, chosen by the extension of ``path``.

    ``formulas_escaped``: in a CSV, prefix text cells that a spreadsheet would run as formulas with
    ``'`` (``escape_formulas``); for files people open (report tables, metrics) and files whose reader
    undoes it (verdicts). Data files read back by other code keep their text byte for byte.
    """
    fmt = table_format(path)
    with atomic_path(path) as tmp:
        if fmt == "parquet":
            with arrow_file(tmp, "wb") as sink:
                df.to_parquet(sink, index=False)
        elif fmt == "jsonl":
            # 15 digits, pandas' most (its default of 10 would change economy values in the 11th digit)
            df.to_json(tmp, orient="records", lines=True, force_ascii=False, double_precision=15)
        else:
            (escape_formulas(df) if formulas_escaped else df).to_csv(tmp, index=False)


def read_table(path: str | os.PathLike) -> pd.DataFrame:
    """Read a Parquet, JSONL or CSV table chosen by extension; errors name the file and line."""
    import pandas as pd

    fmt = table_format(path)
    p = Path(path)
    if not p.is_file():
        raise UserError(f"{path}: no such file")
    if fmt == "jsonl":
        return pd.DataFrame.from_records(read_jsonl(p))
    try:
        if fmt == "parquet":
            with arrow_file(p) as source:
                return pd.read_parquet(source)
        return pd.read_csv(p)
    except (ValueError, UnicodeDecodeError) as exc:  # Arrow's and pandas' parse errors are ValueErrors
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise UserError(f"{path}: not a readable {fmt.upper() if fmt == 'csv' else 'Parquet'} file ({first})") from None


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    """Objects of a JSONL file; a ``ValueError`` names the line that is not a JSON object."""
    records = []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise UserError(f"{path}: line {lineno} is not UTF-8 text") from None
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise UserError(f"{path}: line {lineno} is not valid JSON ({exc.msg})") from None
            except (RecursionError, ValueError):  # nesting, or an integer of over 4300 digits
                raise UserError(
                    f"{path}: line {lineno} is not usable JSON (nested too deeply or a huge number)"
                ) from None
            if not isinstance(obj, dict):
                raise UserError(f"{path}: line {lineno} is not a JSON object")
            records.append(obj)
    return records
