"""Optional dependencies: which extra installs each, and one clear error when it is missing.

The base install (numba, numpy, pandas, pyarrow, rich) builds, scores and reports tables; model
APIs (``fastspe[api]``), figures (``fastspe[plots]``), Dask clusters (``fastspe[dask]``) and inspect_ai
(``fastspe[inspect]``) are extras, imported only where they are used.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

EXTRA_OF = {
    "openai": "api",
    "anthropic": "api",
    "matplotlib": "plots",
    "inspect_ai": "inspect",
    "dask": "dask",
    "distributed": "dask",
}
IN_ALL = ("api", "plots", "dask")  # the extras that fastspe[all] holds


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message names the extra that installs it."""


def missing_message(module: str, needed_for: str) -> str:
    extra = EXTRA_OF[module]
    also = " (or 'fastspe[all]')" if extra in IN_ALL else ""
    return f"{needed_for} needs {module}, which is not installed: pip install 'fastspe[{extra}]'{also}"


def require(module: str, needed_for: str) -> ModuleType:
    """``import module``, or a ``MissingExtra`` saying which extra to install for ``needed_for``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if exc.name not in (module, None) and not str(exc.name).startswith(module + "."):
            raise  # the module is there but one of its own imports is broken: show that error
        raise MissingExtra(missing_message(module, needed_for)) from None


def check_installed(module: str, needed_for: str) -> None:
    """Fail early, before long work, when ``module`` cannot be imported (without importing it)."""
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a None entry in sys.modules (tests) or a broken parent
        found = False
    if not found:
        raise MissingExtra(missing_message(module, needed_for))
