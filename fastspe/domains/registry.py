"""Which domain a name, a bank or a verdicts table belongs to.

A file says it in its Parquet schema metadata (``fastspe.domain``; Sokoban banks and verdicts carry it,
sliding-puzzle files do not, so their bytes are those of fastspe before the seam); a table without the key
is told by its columns: without a ``k`` column, a ``level`` column (a Sokoban bank) or a ``boxes`` column
(Sokoban verdicts) is Sokoban; anything else is the sliding puzzle. A domain's module is imported when first named.
"""

from __future__ import annotations

import importlib

import pyarrow as pa

from ..errors import UserError
from .base import Domain

__all__ = ["DOMAIN_KEY", "DOMAIN_NAMES", "domain_named", "domain_name_of", "domain_of", "with_domain"]

DOMAIN_KEY = b"fastspe.domain"
_MODULES = {"sliding": "fastspe.domains.sliding.domain", "sokoban": "fastspe.domains.sokoban.domain"}
DOMAIN_NAMES = tuple(_MODULES)
DEFAULT = "sliding"


def domain_named(name: str) -> Domain:
    """The domain called ``name`` (``sliding``, ``sokoban``)."""
    if name not in _MODULES:
        raise UserError(f"unknown domain {name!r}; the domains are {', '.join(DOMAIN_NAMES)}")
    try:
        module = importlib.import_module(_MODULES[name])
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith(_MODULES[name].rsplit(".", 1)[0]):
            raise
        raise UserError(f"the {name} domain is not part of this fastspe build ({exc.name} is missing)") from None
    return module.DOMAIN


def domain_name_of(table) -> str:
    """The domain name of a bank or verdicts table: an Arrow table or schema (its ``fastspe.domain``
    metadata, else its columns), a DataFrame or a list of column names (its columns)."""
    schema = getattr(table, "schema", table)
    metadata = getattr(schema, "metadata", None) or {}
    if DOMAIN_KEY in metadata:
        name = metadata[DOMAIN_KEY].decode("utf-8", "replace")
        if name not in _MODULES:
            raise UserError(f"the table names domain {name!r}; the domains are {', '.join(DOMAIN_NAMES)}")
        return name
    names = getattr(schema, "names", None)
    if names is None:
        try:
            names = list(getattr(table, "columns", table))
        except TypeError:  # not a table: the caller's own check says so
            return DEFAULT
    if "k" not in names and ("level" in names or "boxes" in names):
        return "sokoban"
    return DEFAULT


def domain_of(table) -> Domain:
    """The ``Domain`` of a bank or verdicts table (``domain_name_of``)."""
    return domain_named(domain_name_of(table))


def with_domain(table, name: str):
    """An Arrow table (or schema) with ``fastspe.domain`` in its metadata; the sliding puzzle's stays as it is
    (its files are byte for byte those written before domains had names)."""
    if name == DEFAULT:
        return table
    if isinstance(table, pa.Schema):
        return table.with_metadata({**(table.metadata or {}), DOMAIN_KEY: name.encode()})
    return table.replace_schema_metadata({**(table.schema.metadata or {}), DOMAIN_KEY: name.encode()})
