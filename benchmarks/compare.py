"""Guard fastspe's own speed: compare the kernel-to-twin ratios of two benchmark runs.

Absolute times move with the machine and its load; the ratio of a kernel to its plain-Python twin,
timed in the same run, moves far less. Each benchmark stores its ratio in pytest-benchmark's
``extra_info["ratio"]``. This tool reads pytest-benchmark JSON files (``--benchmark-json``, or the
``.benchmarks/`` files that ``--benchmark-autosave`` keeps) or a saved ratio table, and fails when a
ratio dropped by more than ``--margin``::

    python -m pytest benchmarks/ --benchmark-only --benchmark-json=new.json
    python -m benchmarks.compare benchmarks/baseline_ratios.json new.json --margin 0.3
    python -m benchmarks.compare new.json --save benchmarks/baseline_ratios.json   # a new baseline

Exit codes: 0 no ratio dropped by more than the margin, 1 some did (each named), 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DEFAULT_MARGIN = 0.3


def ratios(path) -> dict[str, float]:
    """``{benchmark name: ratio}`` from a pytest-benchmark JSON file or a saved ratio table."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read a benchmark file ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("ratios"), dict):
        table = data["ratios"]
    elif isinstance(data, dict) and isinstance(data.get("benchmarks"), list):
        table = {b["fullname"]: b.get("extra_info", {}).get("ratio") for b in data["benchmarks"]}
    else:
        raise ValueError(f"{path}: neither pytest-benchmark JSON (--benchmark-json) nor a ratio table")
    out = {}
    for name, value in table.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            out[str(name)] = float(value)
    return out


def drops(saved: dict[str, float], new: dict[str, float], margin: float) -> list[tuple[str, float, float]]:
    """(name, saved, new) for every benchmark in both whose ratio fell below ``saved * (1 - margin)``."""
    return [
        (name, saved[name], new[name])
        for name in sorted(saved)
        if name in new and new[name] < saved[name] * (1.0 - margin)
    ]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", metavar="FILE", help="SAVED NEW, or one run with --save")
    parser.add_argument(
        "--margin",
        type=float,
        default=DEFAULT_MARGIN,
        help=f"the largest tolerated relative drop of a ratio (default: {DEFAULT_MARGIN})",
    )
    parser.add_argument("--save", metavar="OUT", help="write the ratio table of the last FILE to OUT")
    args = parser.parse_args(argv)
    try:
        tables = [ratios(f) for f in args.files]
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.save:
        Path(args.save).write_text(json.dumps({"ratios": tables[-1]}, indent=2, sort_keys=True) + "\n")
        print(f"saved {len(tables[-1])} ratios to {args.save}")
    if len(tables) < 2:
        return 0 if args.save else 2
    if not 0 <= args.margin < 1:
        print("error: --margin must be in [0, 1)", file=sys.stderr)
        return 2
    saved, new = tables[0], tables[-1]
    shared = sorted(set(saved) & set(new))
    for name in shared:
        print(f"{new[name] / saved[name]:6.2f}x of saved  {name}: {saved[name]:,.1f} -> {new[name]:,.1f}")
    for name in sorted(set(saved) - set(new)):
        print(f"   not run      {name}")
    bad = drops(saved, new, args.margin)
    for name, old, now in bad:
        print(
            f"error: {name}: ratio {now:,.1f} is {1 - now / old:.0%} below the saved {old:,.1f} "
            f"(margin {args.margin:.0%})",
            file=sys.stderr,
        )
    if not shared:
        print("error: no benchmark in common", file=sys.stderr)
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
