"""Bank files in and out: a bank is a checked Arrow table and its domain (``Bank``), resolved once where it comes in.

A bank file is Parquet (page CRCs and a content digest; its domain in the schema metadata, ``fastspe.domain``) or,
for a domain that allows it (``Domain.jsonl_banks``), JSONL: one row per line, read by Arrow's JSON reader into the
domain's columns. JSONL holds no metadata, so a JSONL bank is the default domain's unless the reader is told
another. Banks written before domains had names hold no key and are the sliding puzzle's (``domains.registry``).

What the rows must mean is the domain's own check (``Domain.check_bank``), which every reader and ``score``/``run``
rely on; the full certificate replay stays in ``fastspe bank verify``. A checked table records its domain in its
schema metadata, so a file written from it names its domain.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

import pyarrow as pa

from ..domains.contract import Domain
from ..domains.registry import DEFAULT_DOMAIN, FRAME_DOMAIN, domain_named, domain_of, name_in, with_domain
from ..errors import UserTypeError, expect_path, shown
from .bank_jsonl import jsonl_line_finder, read_jsonl_bank
from .errors import InputError
from .files import atomic_path
from .parquet import parquet_row_groups, read_parquet, write_parquet

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BANK_SUFFIXES",
    "FRAME_DOMAIN",
    "Bank",
    "bank_format",
    "check_bank_path",
    "read_bank_table",
    "load_bank",
    "read_bank",
    "check_bank_table",
    "as_bank",
    "bank_to_table",
    "bank_frame",
    "table_from_frame",
    "write_bank",
    "write_bank_table",
    "write_bank_tables",
]

BANK_SUFFIXES = (".parquet", ".jsonl")


@dataclass(frozen=True, eq=False)
class Bank:
    """A bank that passed its domain's check: later stages trust it and read its domain from here.

    table : the checked Arrow table (canonical types; ``fastspe.domain`` in its metadata)
    domain : its ``Domain``
    source : where it came from (a file name, or "bank rows"), for messages
    """

    table: pa.Table
    domain: Domain
    source: str = "bank"

    @cached_property
    def frame(self):
        """The bank as a DataFrame (``bank_frame``), its domain in ``attrs``; built once."""
        return bank_frame(self.table, self.domain)

    def rows_frame(self, rows):
        """Bank rows ``rows`` (int positions) as a DataFrame (``bank_frame``), without building the whole ``frame``."""
        return bank_frame(self.table.take(pa.array(rows)), self.domain)

    @cached_property
    def prompt_hashes(self):
        """The hashes of its boards' prompts, rendered as answers ask for them (``PromptHashes``); kept."""
        from .prompt_hashes import PromptHashes

        return PromptHashes(self)

    def __len__(self) -> int:
        return self.table.num_rows

    @property
    def board_ids(self) -> pa.Array:
        return self.table.column("board_id").combine_chunks()

    def head(self, n: int) -> "Bank":
        """The first ``n`` rows, as a bank of their own."""
        return Bank(self.table.slice(0, n), self.domain, self.source)


def bank_format(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in BANK_SUFFIXES:
        raise InputError(
            f"{path}: a bank file is .parquet or .jsonl (got {suffix or 'no extension'!r}); "
            "make one with `fastspe bank build --out NAME.parquet`"
        )
    return suffix[1:]


def check_bank_path(path, domain) -> str:
    """``bank_format`` of a bank file of ``domain`` (a name or ``Domain``): JSONL only for a domain that allows it."""
    fmt = bank_format(path)
    if fmt == "jsonl":
        _jsonl_domain(path, domain)
    return fmt


def _jsonl_domain(path, domain) -> Domain:
    domain = domain_named(domain or DEFAULT_DOMAIN)
    if not domain.jsonl_banks:
        raise InputError(f"{path}: a {domain.name} bank is a .parquet file (it records its domain in the file)")
    return domain


def read_bank_table(path, meaning: bool = True, then=None, domain=None):
    """Read and check a bank file; the table is in its domain's canonical types, its domain in its metadata.

    ``meaning=False`` checks the schema only (columns, types, nulls, value ranges) and leaves the rows' meaning to
    the caller: ``fastspe bank verify`` reports every failing row instead of the first. ``domain`` (a name or
    ``Domain``): the domain the bank must be of (a file that records another is refused), and a JSONL bank's (which
    records none; default: the default domain). With ``then``, returns ``then(table)``, run (for Parquet) while the
    content digest is still computed.
    """
    expect_path(path)
    fmt = bank_format(path)
    if not Path(path).is_file():
        raise InputError(f"{path}: no such file")
    then = then or (lambda table: table)
    if fmt == "parquet":  # checked while the content digest is computed
        return read_parquet(
            path,
            "bank",
            then=lambda table: then(
                check_bank_table(table, str(path), "row", meaning=meaning, fresh=True, domain=domain)
            ),
        )
    chosen = _jsonl_domain(path, domain)
    table = read_jsonl_bank(path, chosen.jsonl_schema)
    return then(
        check_bank_table(table, str(path), "line", line_of=jsonl_line_finder(path), meaning=meaning, domain=chosen)
    )


def load_bank(path, domain=None) -> Bank:
    """A bank file, checked (``read_bank_table``), as a ``Bank``. ``domain``: the domain it must be of (and a JSONL
    bank's)."""
    table = read_bank_table(path, domain=domain)
    return Bank(table, domain_named(name_in(table)), str(path))


def read_bank(path, meaning: bool = True, domain=None) -> pd.DataFrame:
    """A bank file, checked (``read_bank_table``), as the DataFrame users work with (its domain in ``attrs``);
    errors name the file, row and board. ``meaning=False`` checks only the schema."""
    return read_bank_table(path, meaning=meaning, then=bank_frame, domain=domain)  # the frame built while hashing


def check_bank_table(
    table: pa.Table,
    source: str = "bank",
    unit: str = "row",
    line_of=None,
    meaning: bool = True,
    fresh: bool = False,
    domain=None,
) -> pa.Table:
    """Check a bank table with its domain's check (``Domain.check_bank``) and return it in canonical types, the
    domain recorded in its metadata. ``domain`` (a name or ``Domain``): the table's domain when the table does not
    record one (default: the default domain). Raises ``InputError`` naming ``source``, the row and the board id."""
    recorded = name_in(table)
    chosen = domain_named(recorded if recorded is not None else domain or DEFAULT_DOMAIN)
    if domain is not None and recorded is not None and domain_named(domain) is not chosen:
        raise InputError(f"{source}: a {chosen.name} bank, not a {domain_named(domain).name} one")
    checked = chosen.check_bank(table, source, unit, line_of, meaning, fresh)
    return with_domain(checked, chosen)


def as_bank(bank, domain=None, source: str = "bank rows") -> Bank:
    """A ``Bank`` (as it is), a bank DataFrame or an Arrow table (checked once, here) as a ``Bank``. A DataFrame's
    domain is the one its ``attrs`` name (fastspe's readers set it), else ``domain``, else the default domain."""
    if isinstance(bank, Bank):
        if domain is not None and domain_named(domain) is not bank.domain:
            raise InputError(f"{bank.source}: a {bank.domain.name} bank, not a {domain_named(domain).name} one")
        return bank
    import pandas as pd

    if isinstance(bank, pd.DataFrame):
        recorded = name_in(bank)
        chosen = domain_named(recorded if recorded is not None else domain or DEFAULT_DOMAIN)
        table = with_domain(table_from_frame(bank, chosen), chosen)
    elif isinstance(bank, pa.Table):
        table = bank
    else:
        raise UserTypeError(
            f"bank must be a Bank, a DataFrame or an Arrow table (read_bank reads a file), got {shown(bank)}"
        )
    table = check_bank_table(table, source, domain=domain)
    return Bank(table, domain_named(name_in(table)), source)


def bank_to_table(bank, source: str = "bank rows", domain=None) -> pa.Table:
    """A bank (a ``Bank``, DataFrame or Arrow table), checked (``as_bank``) and in canonical types."""
    return as_bank(bank, domain, source).table


def write_bank(bank, path, domain=None) -> None:
    """Write a bank (a ``Bank``, DataFrame or Arrow table) atomically: Parquet with its digest, or JSONL."""
    expect_path(path)
    write_bank_table(bank_to_table(bank, domain=domain), path)


def bank_frame(table: pa.Table, domain: Domain | None = None):
    """A checked bank table as a DataFrame (its domain's ``bank_frame``), the domain named in ``attrs``. ``domain``:
    the table's, when the caller holds it (default: the one the table records)."""
    domain = domain or domain_of(table)
    frame = domain.bank_frame(table)
    frame.attrs[FRAME_DOMAIN] = domain.name
    return frame


def table_from_frame(bank, domain=None) -> pa.Table:
    """A bank DataFrame (from ``build_bank``, ``read_bank`` or made by hand) as an Arrow table of its domain's columns
    (``bank_columns`` and ``optional_columns``; others are left out), unchecked."""
    chosen = domain_named(domain or name_in(bank) or DEFAULT_DOMAIN)
    cols = [c for c in (*chosen.bank_columns, *chosen.optional_columns) if c in bank.columns]
    try:
        return pa.Table.from_pandas(bank[cols], preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise InputError(f"bank rows: cannot be read as a bank ({str(exc)[:200]})") from None


def write_bank_table(table: pa.Table, path) -> None:
    """Write a checked bank table (Parquet with digest, or JSONL where the domain allows it), atomically."""
    fmt = bank_format(path)
    if fmt == "parquet":
        write_parquet(table, path, "bank")
        return
    _jsonl_domain(path, name_in(table))
    with atomic_path(path) as tmp:
        bank_frame(table).to_json(tmp, orient="records", lines=True, force_ascii=False)


def write_bank_tables(tables: Iterable[pa.Table], path, domain=None) -> int:
    """Write the concatenation of bank tables of ``domain`` (default: the one each records, else the default
    domain), each checked as it comes (a bank in pieces, board ids unique across them, as a domain's ``bank_pieces``
    yields it), atomically; returns the row count.

    The bytes are those of ``write_bank_table`` of the whole bank, but only one Parquet row group (or one piece of
    JSON lines) waits in memory.
    """
    fmt, rows = bank_format(path), 0
    with contextlib.ExitStack() as stack:
        if fmt == "parquet":
            add = stack.enter_context(parquet_row_groups(path, "bank"))
        else:
            sink = stack.enter_context(open(stack.enter_context(atomic_path(path)), "w", encoding="utf-8"))

            def add(table: pa.Table) -> None:
                _jsonl_domain(path, name_in(table))
                bank_frame(table).to_json(sink, orient="records", lines=True, force_ascii=False)

        for table in tables:
            table = check_bank_table(table, "bank rows", domain=domain)
            rows += table.num_rows
            add(table)
    return rows
