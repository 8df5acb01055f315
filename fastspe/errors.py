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
