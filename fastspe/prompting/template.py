"""A prompt template of the user's own (``--prompt FILE``): a UTF-8 text with named fields ``{name}``.

The fields are a bank row's columns and the domain's named prompt parts (``Domain.prompt_fields``: ``rules``,
``answer``, ``answer_form``, the states), plus ``prompt`` (the paper prompt of the row); ``{{`` and ``}}`` are literal
braces. A field is a plain name: no conversion, format spec, index or attribute, so a template can reach nothing but
the texts it is given. Every mistake is one ``UserError`` naming the file (and the field).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..errors import UserError

__all__ = ["PromptTemplate"]


@dataclass(frozen=True)
class PromptTemplate:
    """A checked template: its ``name`` (the file's stem: the variant ``template:NAME``), ``text`` and ``source``."""

    name: str
    text: str
    source: str
    fields: tuple[str, ...]

    @classmethod
    def parse(cls, text: str, source: str, name: str | None = None) -> "PromptTemplate":
        """``text`` checked as a template; a ``UserError`` naming ``source`` when it is not one."""
        if not text.strip():
            raise UserError(f"{source}: the prompt template is empty")
        fields: list[str] = []
        try:
            parts = list(string.Formatter().parse(text))
        except ValueError as exc:  # a lone "{" or "}"
            raise UserError(
                f"{source}: not a prompt template ({exc}; write {{{{ and }}}} for literal braces)"
            ) from None
        for _, field, spec, conversion in parts:
            if field is None:
                continue
            if not field.isidentifier() or spec or conversion:
                shown = field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
                raise UserError(
                    f"{source}: template field {{{shown}}} is not a plain name (write {{name}}; "
                    f"{{{{ and }}}} for literal braces)"
                )
            if field not in fields:
                fields.append(field)
        return cls(name or Path(source).stem, text, source, tuple(fields))

    @classmethod
    def read(cls, path) -> "PromptTemplate":
        """The template in the file ``path``."""
        from ..boundary.text_files import read_text

        try:
            text = read_text(path)
        except OSError as exc:
            raise UserError(f"{path}: cannot read the prompt template ({exc.strerror or exc})") from None
        return cls.parse(text, str(path))

    def check_fields(self, known: Mapping[str, str], domain_name: str) -> None:
        """Refuse a field that ``known`` (one row's fields) lacks, naming it and the fields there are."""
        for field in self.fields:
            if field not in known:
                raise UserError(
                    f"{self.source}: template field {{{field}}} is neither a bank column nor a prompt "
                    f"part of the {domain_name} domain; fields: {', '.join(sorted(known))}"
                )

    def render(self, fields: Mapping[str, str]) -> str:
        """The template with each field replaced by its text (``check_fields`` first)."""
        return self.text.format_map(fields)
