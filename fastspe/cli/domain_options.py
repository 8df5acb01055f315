"""The domains' side of the command line: ``--domain``, the options each installed domain adds to a command, and the
``Ui`` through which a domain's command code prints and shows progress.

A domain's options (``Domain.options(command)``) are offered whatever the domain (a bank's domain is known only once
it is read), each in a ``--help`` group named after its domain; given with another domain, the command refuses them
(``check_domain_options``), naming the domain they go with. A domain that fails to load adds no options here; using it
(``--domain NAME``, or a bank of it) names the failure.
"""

from __future__ import annotations

import argparse
import math

from ..domains.registry import DomainLoadError, domain_named, domain_names
from ..errors import ContractError, UserError
from ._common import float_option, int_option, say, text_option, warn
from .progress import progress

__all__ = ["domain_option", "add_domain_options", "check_domain_options", "CliUi", "UI"]

_OWNERS = "_domain_options"  # args attribute: {dest: (flag, (domain names))} of the options domains added


def domain_option(parser: argparse.ArgumentParser, default: str | None = None, what: str = "") -> None:
    """``--domain NAME`` among the installed domains."""
    names = domain_names()
    parser.add_argument(
        "--domain",
        choices=names,
        default=default,
        metavar="NAME",
        help=what or f"the planning domain: {', '.join(names)} (default: {default}; `fastspe domains` lists them)",
    )


def _option_type(spec):
    """A domain option's ``type``: a callable as it is, or ``"int:LOW:HIGH"``, ``"float:LOW:HIGH"``, ``"text"``."""
    if not isinstance(spec, str):
        return spec
    kind, _, bounds = spec.partition(":")
    if kind == "text":
        return text_option
    low, _, high = bounds.partition(":")
    if kind == "int":
        return int_option(int(low), int(high))
    if kind == "float":
        return float_option(float(low), float(high) if high else math.inf)
    raise ContractError(f"unknown option type {spec!r}: use a callable, 'int:LOW:HIGH', 'float:LOW:HIGH' or 'text'")


def add_domain_options(parser: argparse.ArgumentParser, command: str) -> None:
    """Add every installed domain's options for ``command``, a help group per domain. An option two domains declare
    alike (same flags and keywords) is one option of both."""
    owners: dict[str, tuple[str, tuple[str, ...], dict]] = {}
    for name in domain_names():
        try:
            options = domain_named(name).options(command)
        except DomainLoadError:
            continue  # named when the domain is used
        group = None
        for option in options:
            kwargs = dict(option.kwargs)
            kwargs["type"] = _option_type(kwargs["type"]) if "type" in kwargs else None
            if kwargs["type"] is None:
                del kwargs["type"]
            kwargs.setdefault("default", None)
            dest = option.dest
            if dest in owners:
                flag, domains, seen = owners[dest]
                if seen != {"flags": option.flags, **option.kwargs}:
                    raise UserError(
                        f"the {name} domain declares {option.flags[0]} for `fastspe {command}` unlike "
                        f"the {domains[0]} domain; rename one of them"
                    )
                owners[dest] = (flag, domains + (name,), seen)
                continue
            if group is None:
                group = parser.add_argument_group(f"--domain {name}", domain_named(name).command_help(command))
            group.add_argument(*option.flags, help=option.help, **kwargs)
            owners[dest] = (option.flags[0], (name,), {"flags": option.flags, **option.kwargs})
    parser.set_defaults(**{_OWNERS: {dest: (flag, domains) for dest, (flag, domains, _) in owners.items()}})


def check_domain_options(args, domain, bank: str = "") -> None:
    """Refuse an option (given: not None, not False) that ``domain`` does not offer, naming the domain it goes with
    (``bank``: the bank file the domain came from, when it came from one)."""
    for dest, (flag, domains) in getattr(args, _OWNERS, {}).items():
        if domain.name not in domains and getattr(args, dest, None) not in (None, False):
            owner = " and ".join(domains)
            if bank:
                raise UserError(f"{flag} is an option of the {owner} domain, and {bank} is a {domain.name} bank")
            raise UserError(f"{flag} is an option of the {owner} domain: add --domain {domains[0]}")


class CliUi:
    """The command line's ``domains.contract.Ui``: plain lines, warnings and progress displays on stderr."""

    def say(self, text: str, err: bool = False) -> None:
        say(text, err=err)

    def warn(self, text: str) -> None:
        warn(text)

    def progress(self, stage: str, total: int | None, unit: str):
        return progress(stage, total, unit)


UI = CliUi()
