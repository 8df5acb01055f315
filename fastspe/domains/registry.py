"""Which domains are installed, and which domain a name or a file belongs to.

Domains are found through the ``fastspe.domains`` entry-point group (as pytest finds its plugins in ``pytest11``):
an entry point ``NAME = "package.module:OBJECT"`` names a ``Domain`` instance (or a subclass, which is then made with
no arguments) whose ``name`` is ``NAME``. fastspe's own domains are entry points of fastspe's distribution, and
every folder of ``fastspe/domains/`` that holds a ``DOMAIN`` counts as one too (so a source tree that is not
installed still has them). A domain is imported when it is first used; one that fails to import, or does not fill
the contract, raises ``DomainLoadError`` naming it, its package and why, and every other domain keeps working.

A bank or verdicts file names its domain in its schema metadata (``DOMAIN_KEY``); a file without the key was
written before domains had names and is the sliding puzzle's (``DEFAULT_DOMAIN``).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import ContractError, UserError
from .contract import Domain, error_names_of
from .vocabulary import Vocabulary

__all__ = [
    "GROUP",
    "DEFAULT_DOMAIN",
    "DOMAIN_KEY",
    "FRAME_DOMAIN",
    "DomainLoadError",
    "Source",
    "sources",
    "domain_names",
    "domain_named",
    "installed_domains",
    "domain_of",
    "name_in",
    "with_domain",
]

GROUP = "fastspe.domains"
DEFAULT_DOMAIN = "sliding"
DOMAIN_KEY = b"fastspe.domain"
FRAME_DOMAIN = DOMAIN_KEY.decode()  # the key of a bank or verdicts DataFrame's ``attrs`` that names its domain
_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
_LOCK = threading.Lock()
_LOADED: dict[str, Domain] = {}


class DomainLoadError(UserError):
    """An installed domain that cannot be used: it fails to import, or does not fill the ``Domain`` contract."""


@dataclass(frozen=True)
class Source:
    """Where an installed domain comes from: its entry point's target and the distribution that declares it."""

    name: str
    target: str  # "package.module:OBJECT"
    package: str  # the distribution ("fastspe", "fastspe-rushhour"); "" when not installed as one
    package_version: str
    conflict: str = ""  # why the name cannot be used (two packages claim it), else ""

    @property
    def where(self) -> str:
        package = f"{self.package} {self.package_version}".strip() or "a source tree"
        return f"{package}, {self.target}"


@lru_cache(maxsize=1)
def sources() -> dict[str, Source]:
    """Every installed domain by name: the entry points of ``GROUP``, then fastspe's own folders."""
    from importlib.metadata import entry_points

    from .. import __version__

    found: dict[str, Source] = {}
    for ep in entry_points(group=GROUP):
        dist = getattr(ep, "dist", None)
        source = Source(ep.name, ep.value, getattr(dist, "name", "") or "", getattr(dist, "version", "") or "")
        if ep.name in found and found[ep.name].target != ep.value:
            other = found[ep.name]
            source = Source(
                ep.name,
                ep.value,
                source.package,
                source.package_version,
                conflict=f"both {other.where} and {source.where} declare a domain named {ep.name!r}",
            )
        found[ep.name] = source
    for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if module.ispkg and module.name not in found:
            found[module.name] = Source(
                module.name, f"{__name__.rsplit('.', 1)[0]}.{module.name}:DOMAIN", "fastspe", __version__
            )
    return dict(sorted(found.items(), key=lambda item: (item[0] != DEFAULT_DOMAIN, item[0])))


def domain_names() -> tuple[str, ...]:
    """The names of the installed domains, the default first (whether or not each loads)."""
    return tuple(sources())


def domain_named(name) -> Domain:
    """The installed domain called ``name``, imported on first use (a ``Domain`` is returned as it is)."""
    if isinstance(name, Domain):
        return name
    domain = _LOADED.get(name)
    if domain is not None:
        return domain
    known = sources()
    if name not in known:
        raise UserError(
            f"unknown domain {name!r}; the installed domains are {', '.join(known)} (`fastspe domains` lists them)"
        )
    with _LOCK:
        if name not in _LOADED:
            _LOADED[name] = _load(known[name])
    return _LOADED[name]


def installed_domains() -> tuple[list[Domain], dict[str, str]]:
    """The domains that load, and for each one that does not, why (``DomainLoadError``'s text)."""
    good, bad = [], {}
    for name in sources():
        try:
            good.append(domain_named(name))
        except DomainLoadError as exc:
            bad[name] = str(exc)
    return good, bad


def _load(source: Source) -> Domain:
    def refuse(why: str) -> DomainLoadError:
        return DomainLoadError(f"the domain {source.name!r} ({source.where}) cannot be used: {why}")

    if source.conflict:
        raise refuse(source.conflict)
    if not _NAME.match(source.name):
        raise refuse("a domain's name is 1-40 lower-case letters, digits, - and _, starting with a letter")
    module_name, _, attr = source.target.partition(":")
    try:
        obj = importlib.import_module(module_name)
        for part in filter(None, attr.split(".")):
            obj = getattr(obj, part)
        if isinstance(obj, type) and issubclass(obj, Domain):
            obj = obj()
    except Exception as exc:  # noqa: BLE001 - whatever a plugin raises on import is that plugin's fault
        raise refuse(
            f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}".rstrip(": ")
        ) from exc
    if not isinstance(obj, Domain):
        raise refuse(f"{source.target} is a {type(obj).__name__}, not a fastspe.domains.Domain")
    if obj.name != source.name:
        raise refuse(f"its entry point is named {source.name!r} but the domain calls itself {obj.name!r}")
    if not obj.stratum or not isinstance(obj.vocabulary, Vocabulary):
        raise refuse("it sets no stratum column, or its vocabulary is not a fastspe.domains.vocabulary.Vocabulary")
    try:
        error_names_of(obj)
    except ContractError as exc:
        raise refuse(str(exc)) from None
    if not obj.version:
        obj.version = source.package_version
    return obj


# ---- the domain of a file ------------------------------------------------------------------------------------


def name_in(table) -> str | None:
    """The domain name an Arrow table or schema (or a DataFrame's ``attrs``) records, None if it records none."""
    attrs = getattr(table, "attrs", None)
    if isinstance(attrs, dict) and FRAME_DOMAIN in attrs:
        return str(attrs[FRAME_DOMAIN])
    schema = getattr(table, "schema", table)
    metadata = getattr(schema, "metadata", None) or {}
    if DOMAIN_KEY in metadata:
        return metadata[DOMAIN_KEY].decode("utf-8", "replace")
    return None


def domain_of(table, default=None) -> Domain:
    """The domain a table, schema or DataFrame records (``name_in``); ``default`` (a name or ``Domain``, the sliding
    puzzle unless given) when it records none."""
    name = name_in(table)
    return domain_named(name if name is not None else default or DEFAULT_DOMAIN)


def with_domain(table, domain):
    """An Arrow table or schema with ``domain`` (a name or ``Domain``) recorded in its schema metadata."""
    import pyarrow as pa

    name = domain if isinstance(domain, str) else domain.name
    if isinstance(table, pa.Schema):
        return table.with_metadata({**(table.metadata or {}), DOMAIN_KEY: name.encode()})
    return table.replace_schema_metadata({**(table.schema.metadata or {}), DOMAIN_KEY: name.encode()})
