"""A prompt spec from what a user gives (``--prompt``, ``--system``, ``--shots``, or the inspect task's parameters of
the same names): one ``UserError`` for bad input."""

from __future__ import annotations

import os
import re

from ..errors import UserError
from .spec import COT, PAPER, TEMPLATE, PromptSpec
from .template import PromptTemplate

__all__ = ["prompt_spec", "system_text", "given_prompt_spec"]


def _looks_like_a_path(value: str) -> bool:
    """One word with a folder or a file suffix (``prompts/system``, ``system.txt``): a file name, not a text."""
    if not value or any(c.isspace() for c in value):
        return False
    return "/" in value or os.sep in value or re.fullmatch(r"[^.]+\.[A-Za-z0-9]{1,5}", value) is not None


def system_text(value: str) -> str:
    """``--system TEXT|FILE``: the text of the file when ``value`` names one, else ``value`` itself; a folder, or
    one word that looks like a file name but names none (a typo), is refused rather than sent as the text."""
    if os.path.isdir(value):
        raise UserError(f"--system {value}: a folder; give a text or a file")
    if os.path.isfile(value):
        from ..boundary.text_files import read_text

        try:
            text = read_text(value)
        except UserError as exc:  # not UTF-8: named with the option
            raise UserError(f"--system {exc}") from None
        if not text.strip():
            raise UserError(f"--system {value}: the file is empty")
        return text
    if _looks_like_a_path(value):
        raise UserError(
            f"--system {value}: no such file (a system text of one word that looks like a file name "
            f"is refused as a typo)"
        )
    if not value.strip():
        raise UserError("--system: give a text or a file (an empty system prompt is no system prompt)")
    return value


def prompt_spec(
    prompt: str = PAPER, system: str | None = None, shots: int = 0, shots_bank=None, shots_seed: int = 0
) -> PromptSpec:
    """The spec of a prompt variant.

    prompt : ``paper`` (the domain's prompt, the default), ``cot`` (chain of thought, then the final ``MOVES:``
        line) or the path of a template file (``PromptTemplate``); ``paper`` and ``cot`` win over files of those
        names (write ``./cot`` for one)
    system : the system message's text (None: none)
    shots, shots_bank, shots_seed : worked examples drawn from ``shots_bank`` (a ``Bank`` or a bank file)
    """
    if prompt in (PAPER, COT):
        spec = PromptSpec(prompt, system=system)
    else:
        if not os.path.isfile(prompt):
            raise UserError(f"--prompt {prompt}: neither paper, cot nor a template file")
        template = PromptTemplate.read(prompt)
        spec = PromptSpec(TEMPLATE, template.text, template.name, system, template_source=template.source)
    if shots:
        if shots_bank is None:
            raise UserError("--shots needs --shots-bank (the bank the worked examples are drawn from)")
        from .shots import with_shots

        if isinstance(shots_bank, (str, os.PathLike)):
            from ..boundary.banks import load_bank

            shots_bank = load_bank(shots_bank)
        spec = with_shots(spec, shots_bank, shots, shots_seed)
    elif shots_bank is not None:
        raise UserError("--shots-bank needs --shots N (how many worked examples to draw)")
    return spec


def given_prompt_spec(
    prompt: str = PAPER, system: str | None = None, shots: int = 0, shots_bank=None, shots_seed: int = 0
) -> PromptSpec:
    """The spec of the prompt options as given (``fastspe run``'s, or the inspect task's parameters, which arrive
    untyped): ``system`` a text or a file (``system_text``); a value of the wrong kind is one ``UserError``, before
    any file is read."""
    if not isinstance(prompt, str) or not prompt:
        raise UserError(f"--prompt must be paper, cot or a template file, got {prompt!r}")
    if system is not None and not isinstance(system, str):
        raise UserError(f"--system must be a text or a file, got {system!r}")
    from .shots import MAX_SHOTS

    for option, value, high in (("--shots", shots, MAX_SHOTS), ("--shots-seed", shots_seed, None)):
        if type(value) is not int or value < 0 or (high is not None and value > high):  # (bool is refused too)
            span = f"in 0..{high}" if high is not None else "of at least 0"
            raise UserError(f"{option} must be a whole number {span}, got {value!r}")
    return prompt_spec(prompt, system_text(system) if system is not None else None, shots, shots_bank, shots_seed)
