"""A spec's user message for each board, through the domain contract only (``Domain.render_prompt``,
``Domain.prompts`` and ``Domain.prompt_fields``): no domain is named here."""

from __future__ import annotations

import json
import warnings
from typing import Mapping

from .._text import count
from ..errors import ContractError, UserError
from .spec import COT, PAPER, TEMPLATE, PromptSpec
from .template import PromptTemplate

__all__ = ["COT_INSTRUCTION", "user_texts", "row_fields", "cot_text", "plain_value", "warn_one_text"]

# Replaces the paper prompt's answer instruction ("Return only MOVES: ..."): reasoning first, and the same answer
# form last (the scorer parses the last MOVES: label of an answer).
COT_INSTRUCTION = (
    "Think step by step: reason about the moves before you answer.\n"
    "Then end your answer with one final line: MOVES: followed by {answer_form}."
)


def _prompt_parts(domain, row: Mapping) -> dict[str, str]:
    try:
        return domain.prompt_fields(row)
    except NotImplementedError as exc:
        raise UserError(f"prompt variants: {exc}") from None


def plain_value(value):
    """A bank cell as a plain Python value (NumPy arrays and scalars as lists and numbers)."""
    return value.tolist() if hasattr(value, "tolist") else value


def _column_text(value) -> str:
    value = plain_value(value)
    return json.dumps(value) if isinstance(value, (list, tuple, dict)) else str(value)


def row_fields(domain, row: Mapping) -> dict[str, str]:
    """A template's fields for one bank row: its columns as text, the domain's prompt parts over them, and
    ``prompt`` (the paper prompt)."""
    fields = {str(k): _column_text(v) for k, v in row.items()}
    fields.update(_prompt_parts(domain, row))
    fields["prompt"] = domain.render_prompt(row)
    return fields


def cot_text(paper: str, parts: Mapping[str, str], domain_name: str = "") -> str:
    """The paper prompt ``paper`` with its answer instruction (``parts["answer"]``, once in it) asking for reasoning
    first and the final ``MOVES:`` line last."""
    answer = parts.get("answer", "")
    if not answer or paper.count(answer) != 1:
        raise ContractError(
            f"domain {domain_name!r}: prompt_fields()['answer'] must be the answer instruction, once in the prompt"
        )
    return paper.replace(answer, COT_INSTRUCTION.format(answer_form=parts["answer_form"]))


def user_texts(spec: PromptSpec, domain, frame) -> list[str]:
    """The user message of every row of the bank DataFrame ``frame`` under ``spec``, in order."""
    if spec.variant == PAPER:
        return list(domain.prompts(frame))  # the domain's own (fast) rendering: the paper prompt, byte for byte
    rows = frame.to_dict("records")
    if spec.variant == COT:
        return [cot_text(domain.render_prompt(row), _prompt_parts(domain, row), domain.name) for row in rows]
    template = PromptTemplate.parse(spec.template, spec.template_source or spec.template_name, spec.template_name)
    texts = []
    for i, row in enumerate(rows):
        fields = row_fields(domain, row)
        if i == 0:
            template.check_fields(fields, domain.name)
        try:
            texts.append(template.render(fields))
        except KeyError as exc:  # a row without a field the first one had
            raise UserError(
                f"{template.source}: template field {{{exc.args[0]}}} is missing for "
                f"{domain.unit} {row.get('board_id')!r}"
            ) from None
    return texts


def warn_one_text(spec: PromptSpec, domain, texts: list) -> None:
    """Warn when a template gives every board of a run the same message: it names no field of a board (only the
    rules, say), so each paid trial asks one question. A warning, not an error: a probe may mean it."""
    if spec.variant == TEMPLATE and len(texts) > 1 and len(set(texts)) == 1:
        warnings.warn(
            f"{spec.template_source or spec.template_name}: the template gives all "
            f"{count(len(texts), domain.unit)} the same message: it names no field that tells them apart "
            f"(such as {{prompt}} or the start state's), so every trial asks the same question",
            stacklevel=3,
        )
