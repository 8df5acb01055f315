"""fastspe's user-facing errors (the bottom of the house: every layer may raise them).

The command line prints a ``FastspeError`` as one ``error:`` line; any other exception is a bug and
keeps its traceback. Each class also derives from the built-in that callers caught before
(``ValueError``, ``TypeError``, ``RuntimeError``), so their ``except`` clauses keep working.
"""

from __future__ import annotations

import os


class FastspeError(Exception):
    """An error whose message tells the user what to fix (an option, a file, a setting); not a bug."""


class UserError(FastspeError, ValueError):
    """A bad value given to fastspe: an option, an argument, a setting, a design."""


class UserTypeError(UserError, TypeError):
    """A value of the wrong type given to fastspe (also a ``TypeError``, as it was raised before)."""


class ContractError(UserError):
    """A planning domain that does not fill the ``Domain`` contract (a bad vocabulary, error names, an option): the
    domain's author has to fix it; the registry names the domain and its package."""


class ParameterError(UserError):
    """A bad value of API parameters, the message naming them as the API does (``trials must be >= 1``).

    ``template`` is a ``str.format`` text with a field for each name in ``parameters`` and for each of ``values``;
    ``for_options`` fills the parameter fields with a command's option names instead (``--trials must be >= 1``),
    so the command line tells of its options from the same error (``fastspe.cli._common.as_options``).
    """

    def __init__(self, template: str, parameters: str | tuple[str, ...], **values):
        self.template, self.values = template, values
        self.parameters = (parameters,) if isinstance(parameters, str) else tuple(parameters)
        super().__init__(self.for_options({}))

    def for_options(self, options: dict) -> str:
        """The message with each parameter named as ``options`` names it (a parameter it lacks keeps its name)."""
        return self.template.format(**self.values, **{p: options.get(p, p) for p in self.parameters})


def shown(value: object) -> str:
    """A value as an error message shows it: a number or short text as itself, anything else (a table) by its type,
    never its repr."""
    if value is None or isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) < 60):
        return repr(value)
    return f"a {type(value).__name__}"


def expect(value: object, parameter: str, types: type | tuple[type, ...], what: str) -> None:
    """``UserTypeError`` naming ``parameter`` and what it must be (``what``), unless ``value`` is one of ``types``."""
    if not isinstance(value, types) or (
        bool not in (types if isinstance(types, tuple) else (types,)) and isinstance(value, bool)
    ):
        raise UserTypeError(f"{parameter} must be {what}, got {shown(value)}")


def expect_path(value: object, parameter: str = "path") -> None:
    """``UserTypeError`` unless ``value`` is a file path (``str`` or ``os.PathLike``)."""
    expect(value, parameter, (str, os.PathLike), "a file path (str or os.PathLike)")
