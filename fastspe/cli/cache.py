"""``fastspe cache info | clear | warm``: the on-disk cache of compiled kernels (no numba import but in ``warm``)."""

from __future__ import annotations

import time

from ..errors import UserError
from ._common import note, say


def register(subparsers) -> None:
    cache = subparsers.add_parser(
        "cache",
        help="see or clear the cache of compiled kernels",
        description="Compiled Numba kernels are cached in one folder per fastspe version "
        "($XDG_CACHE_HOME/fastspe/numba/VERSION-cN, or $NUMBA_CACHE_DIR/fastspe/VERSION-cN), shared "
        "safely by any number of processes; FASTSPE_NUMBA_CACHE=0 turns it off.",
    )
    verbs = cache.add_subparsers(dest="cache_command", metavar="VERB", required=True)
    info = verbs.add_parser(
        "info",
        help="the folder, its kernels, overloads and size",
        description="Print where compiled kernels are cached, whether caching is on, how many "
        "kernels and compiled signatures (overloads) the folder holds, its size, and "
        "any folders of other fastspe versions beside it.",
    )
    info.set_defaults(func=cmd_info)
    clear = verbs.add_parser(
        "clear",
        help="remove the cached kernels",
        description="Remove this version's cached kernels (waiting for any process compiling "
        "into the folder to finish); the next command compiles afresh.",
    )
    clear.add_argument(
        "--all",
        action="store_true",
        dest="every_version",
        help="also remove the caches of other fastspe versions beside it",
    )
    clear.set_defaults(func=cmd_clear)
    warm = verbs.add_parser(
        "warm",
        help="compile every kernel into the cache now (for CI images)",
        description="Compile the kernels that score, demo and report use, for each domain (by "
        "running its demo pipeline on a small input in a temporary folder), into "
        "the cache, so that later commands on this machine start warm. Bake the "
        "cache folder into a CI image, or keep it between jobs.",
    )
    warm.add_argument(
        "--domain",
        action="append",
        dest="domains",
        metavar="NAME",
        help="warm only this domain's kernels (repeat it for several; default: every installed "
        "domain with baseline planners)",
    )
    warm.set_defaults(func=cmd_warm, compile_notice=False)


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def cmd_info(args) -> int:
    from .._numba.folder import cache_info

    info = cache_info()
    say(f"folder: {info.folder}")
    say(f"caching: {'on' if info.enabled else 'off (FASTSPE_NUMBA_CACHE)'}")
    say(f"kernels: {info.kernels:,}")
    say(f"overloads: {info.overloads:,}")
    say(f"size: {_size(info.bytes)}")
    if info.other_folders:
        say(
            f"other versions beside it: {', '.join(p.name for p in info.other_folders)} "
            f"(`fastspe cache clear --all` removes them)"
        )
    return 0


def cmd_clear(args) -> int:
    from .._numba.folder import cache_dir, clear_cache

    removed = clear_cache(every_version=args.every_version)
    where = f"{cache_dir().parent} (every version)" if args.every_version else str(cache_dir())
    say(f"removed {removed:,} cache files from {where}")
    return 0


def cmd_warm(args) -> int:
    from .._numba.folder import cache_dir, cache_enabled
    from ..domains.registry import domain_names
    from ..demo import warm_kernels

    unknown = sorted(set(args.domains or ()) - set(domain_names()))
    if unknown:
        raise UserError(f"--domain {unknown[0]}: not an installed domain ({', '.join(domain_names())})")
    if not cache_enabled():
        raise UserError("FASTSPE_NUMBA_CACHE turns the cache off: there is nothing to warm")
    start = time.perf_counter()
    names = warm_kernels(args.domains, step=lambda what: note(f"· {what}"))
    say(f"warmed the kernels of {', '.join(names)} in {cache_dir()} ({time.perf_counter() - start:.1f} s)")
    return 0
