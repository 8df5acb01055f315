"""fastspe's user-facing errors (the bottom of the house: every layer may raise them).

The command line prints a ``FastspeError`` as one ``error:`` line; any other exception is a bug and
keeps its traceback. Each class also derives from the built-in that callers caught before
(``ValueError``, ``TypeError``, ``RuntimeError``), so their ``except`` clauses keep working.
"""

from __future__ import annotations


class FastspeError(Exception):
    """An error whose message tells the user what to fix (an option, a file, a setting); not a bug."""


class UserError(FastspeError, ValueError):
    """A bad value given to fastspe: an option, an argument, a setting, a design."""


class UserTypeError(UserError, TypeError):
    """A value of the wrong type given to fastspe (also a ``TypeError``, as it was raised before)."""
