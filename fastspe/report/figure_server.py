"""The report's figure server: a ``forked.server`` that has loaded and warmed matplotlib (``figures.warm``).

Apart from ``forked``, which runs any call and knows no figure, and from ``figures``, which draws them: the command
line starts the server before it reads its inputs, so this module imports neither matplotlib nor pandas.
"""

from __future__ import annotations

from .forked import InProcess, Server, server


def figure_server() -> Server | InProcess:
    """A figure server: ``forked.server`` with matplotlib loaded and warmed in it."""
    return server(_load_figures)


def _load_figures() -> None:
    from . import figures

    figures.warm()


__all__ = ["figure_server"]
