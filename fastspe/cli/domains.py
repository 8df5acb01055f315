"""``fastspe domains``: the installed planning domains, their versions and where each comes from."""

from __future__ import annotations

from ._common import cell, say


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "domains",
        help="list the installed planning domains",
        description="List the planning domains fastspe can use (--domain NAME, and the domain a bank file names): "
        "fastspe's own and those other packages add through the fastspe.domains entry-point group, each "
        "with its version, the package that provides it and what it is. A domain that cannot be loaded "
        "is listed with the reason, and the others keep working; the command then exits 1.",
    )
    p.set_defaults(func=cmd_domains)


def cmd_domains(args) -> int:
    from rich.table import Table

    from ..domains.registry import DEFAULT_DOMAIN, installed_domains, sources

    good, bad = installed_domains()
    loaded = {d.name: d for d in good}
    table = Table(title="installed domains")
    for col in ("domain", "version", "package", "entry point", "what it is"):
        table.add_column(col)
    for name, source in sources().items():
        domain = loaded.get(name)
        shown = f"{name} (default)" if name == DEFAULT_DOMAIN else name
        what = domain.title if domain is not None else "cannot be used (below)"
        table.add_row(
            cell(shown),
            cell(domain.version if domain is not None else source.package_version),
            cell(source.package or "-"),
            cell(source.target),
            cell(what),
        )
    say(table)
    for name, why in bad.items():
        say(f"error: {why}", err=True)
    return 1 if bad else 0
