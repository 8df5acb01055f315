"""The dataset card (``README.md``) of a bank exported for the Hugging Face Hub: a YAML header that the Hub and
``datasets`` read (configs per cohort, features, license, tags) and a prose part (what the rows are, how d* is
certified, how to score answers with fastspe, how to upload, what to cite).

The domain's parts come from the domain (``Domain.dataset_card_notes``); the rest is the same for every domain.
The YAML is written here, not by a YAML library (fastspe does not depend on one): plain keys, strings plain or
double-quoted with YAML's own escapes (tests/test_hub.py reads arbitrary text back), integers and lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import pyarrow as pa

from .. import __version__
from ..boundary.banks import Bank

__all__ = ["HubConfig", "ALL_CONFIG", "features_yaml", "dataset_card", "yaml_lines"]

ALL_CONFIG = "all"  # the default config: every cohort's rows, in bank order
SPLIT = "train"  # one split per config (a bank is an evaluation set, but the Hub's viewer expects a split name)
BASE_TAGS = ("planning", "reasoning", "llm-evaluation", "certified-optimal", "fastspe")


@dataclass(frozen=True)
class HubConfig:
    """One config of an exported bank: its name, the cohorts it holds, its data files (relative to the folder) and
    row count."""

    name: str
    cohorts: tuple[str, ...]
    files: tuple[str, ...]
    rows: int
    nbytes: int = 0  # the rows' size in memory (Arrow), as ``datasets`` records a split's ``num_bytes``


def arrow_feature(kind: pa.DataType) -> dict:
    """A column type as ``datasets`` writes a feature in YAML (``dtype``, or ``list`` and ``length``)."""
    if pa.types.is_fixed_size_list(kind):
        return {"list": arrow_feature(kind.value_type).get("dtype"), "length": kind.list_size}
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return {"list": arrow_feature(kind.value_type).get("dtype")}
    return {"dtype": "bool" if pa.types.is_boolean(kind) else str(kind)}


def features_yaml(schema: pa.Schema) -> list[dict]:
    """The ``features`` list of ``dataset_info``: one ``{name, dtype}`` (or ``{name, list[, length]}``) per column."""
    return [{"name": field.name, **arrow_feature(field.type)} for field in schema]


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")  # a string YAML reads as that string without quotes ...
_KEYWORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}  # ... unless it is one of these


def _scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _KEYWORDS:
        return text
    return '"' + "".join(map(_quoted_char, text)) + '"'


def _quoted_char(ch: str) -> str:
    """One character inside a YAML double-quoted scalar: as itself where YAML reads it back as itself, else escaped
    (JSON's escaping is not enough: YAML refuses DEL and folds NEL and the Unicode line separators to spaces)."""
    code = ord(ch)
    if ch in '"\\':
        return "\\" + ch
    if 0x20 <= code <= 0x7E or (0xA0 <= code <= 0xD7FF and code not in (0x2028, 0x2029)) or 0xE000 <= code <= 0xFFFD:
        return ch if code != 0xFEFF else "\\uFEFF"  # a byte-order mark is dropped by YAML readers
    if code <= 0xFF:
        return f"\\x{code:02X}"
    return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"


def yaml_lines(value, indent: int = 0) -> list[str]:
    """``value`` (dicts of str keys, lists, str, int, bool) as block YAML lines."""
    pad = " " * indent
    if isinstance(value, dict):
        lines = []
        for name, item in value.items():
            key = _scalar(str(name))  # a key YAML would read as another value (``no``: false) is quoted too
            if isinstance(item, (dict, list)) and item:
                lines += [f"{pad}{key}:", *yaml_lines(item, indent + 2)]
            else:
                lines.append(f"{pad}{key}: {_scalar(item) if not isinstance(item, (dict, list)) else '[]'}")
        return lines
    lines = []
    for item in value:
        inner = yaml_lines(item, indent + 2) if isinstance(item, (dict, list)) else [f"{pad}  {_scalar(item)}"]
        lines += [f"{pad}- {inner[0].lstrip()}", *inner[1:]]
    return lines


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` value of ``n`` rows."""
    bounds = [
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
        (10_000_000, "1M<n<10M"),
        (100_000_000, "10M<n<100M"),
    ]
    return next((label for bound, label in bounds if n < bound), "100M<n<1B")


def card_header(bank: Bank, schema: pa.Schema, configs: Sequence[HubConfig], notes) -> dict:
    features = features_yaml(schema)
    return {
        "pretty_name": notes.pretty_name or bank.domain.title,
        "license": "mit",
        "language": ["en"],
        "task_categories": ["text-generation"],
        "tags": list(dict.fromkeys((*BASE_TAGS, *notes.tags))),
        "size_categories": [size_category(len(bank))],
        "configs": [
            {
                "config_name": c.name,
                "data_files": [{"split": SPLIT, "path": list(c.files)}],
                **({"default": True} if c.name == configs[0].name else {}),
            }
            for c in configs
        ],
        "dataset_info": [
            {
                "config_name": c.name,
                "features": features,
                "splits": [{"name": SPLIT, "num_bytes": c.nbytes, "num_examples": c.rows}],
            }
            for c in configs
        ],
    }


def column_rows(schema: pa.Schema, described: dict) -> list[str]:
    rows = ["| column | type | what it holds |", "|---|---|---|"]
    for field in schema:
        feature = arrow_feature(field.type)
        kind = feature.get("dtype") or f"list of {feature['list']}" + (
            f" ({feature['length']})" if "length" in feature else ""
        )
        rows.append(f"| `{field.name}` | {kind} | {described.get(field.name, '')} |")
    return rows


def scoring_text(bank: Bank, first: HubConfig, repo_id: str) -> str:
    domain, path = bank.domain, first.files[0]
    unit = domain.unit
    # an offline baseline, so the commands run as written (a domain without one: a model's name to fill in)
    model = (
        f"baseline:{'greedy' if 'greedy' in domain.planners else domain.planners[0]}"
        if domain.planners
        else "openai:MODEL"
    )
    return f"""\
Each data file is itself a fastspe bank (Parquet with its content digest and `fastspe.domain: {domain.name}` in the
metadata), so fastspe's commands read it as it is. In a clone of this dataset (`pip install fastspe`):

```bash
fastspe bank verify {path}
fastspe run --bank {path} --model {model} --out answers.jsonl
fastspe score --bank {path} --responses answers.jsonl --out verdicts.parquet
fastspe metrics --verdicts verdicts.parquet
```

`bank verify` re-checks every certificate independently; `run` asks a model with the paper's prompt
(`--model openai:MODEL` or `anthropic:MODEL`, `--base-url` for a local OpenAI-compatible server; `baseline:` planners
answer offline); `score` replays every answer and
writes one verdict per answer (complete, legal but unfinished, or illegal, and where it failed); `metrics` prints
R, Q, E and SPE (`fastspe report` adds the paper's tables, figures and bootstrap intervals). Answers made elsewhere
are JSONL lines `{{"board_id", "condition", "trial", "response"}}`, the response ending in a line `MOVES: ...`.

For training loops, the items face gives each {unit} as `{{question, answer, metadata}}` (the paper's prompt, the
certified plan as an answer, the row) and scores one answer with fastspe's own parser and replay:

```python
from datasets import load_dataset
from fastspe.hub import BankItems

rows = load_dataset("{repo_id}", "{first.name}", split="{SPLIT}")
items = BankItems(rows.to_pandas(), domain="{domain.name}")
item = items[0]
items.score_answer(item["answer"], item)  # 1.0: the certified plan is optimal
```

`score_answer` is the SPE term of one answer: d*/L for a plan that reaches the goal in L moves, 0 otherwise (an
illegal move, a plan that stops short, no `MOVES:` line), exactly what `fastspe.RewardScorer` gives (its `spe`)."""


def dataset_card(bank: Bank, schema: pa.Schema, configs: Sequence[HubConfig], repo_id: str) -> str:
    """The ``README.md`` of an exported bank: ``schema`` the data files' columns, ``configs`` the default config first,
    ``repo_id`` the Hub name the card's examples load (``USER/NAME``)."""
    domain = bank.domain
    notes = domain.dataset_card_notes(bank.table)
    header = "\n".join(yaml_lines(card_header(bank, schema, configs, notes)))
    listed = [
        f"| `{c.name}` | {', '.join(c.cohorts)} | {c.rows:,} | {', '.join(f'`{f}`' for f in c.files)} |"
        for c in configs
    ]
    unit = f"{domain.unit}s"
    return f"""---
{header}
---

# {notes.pretty_name or domain.title}

{len(bank):,} {unit} of fastspe's `{domain.name}` domain, {domain.title}: each with its certified optimum d*
(`depth`) and a **certificate**: a plan of exactly d* moves, proved shortest. They are for measuring how well a
language model plans *without tools*: the model writes a whole plan in one answer and fastspe replays it, so every
answer's legality, completion and efficiency (d*/L) are verified, not judged. Exported by fastspe {__version__}
(`fastspe bank export --hub`).

## Configs

One config per cohort, and `{configs[0].name}` (the default) with every row, cohort by cohort; each has one split,
`{SPLIT}`.

| config | cohorts | rows | files |
|---|---|---|---|
{chr(10).join(listed)}

## Columns

{chr(10).join(column_rows(schema, dict(notes.columns)))}

## How d* is certified

{notes.certification or "The domain's bank builder certifies each row's d*; `fastspe bank verify FILE` re-checks it."}

## Scoring answers with fastspe

{scoring_text(bank, configs[0], repo_id)}

## Uploading

fastspe writes this folder and never uploads: `huggingface-cli upload {repo_id} . . --repo-type dataset` (from this
folder) publishes it.

## License

The rows are generated data: fastspe (MIT) built and certified them, and they are released under the MIT license
as its code is. Levels or boards given to `bank build` from elsewhere keep their source's terms.

## Citation

```bibtex
{notes.citation}
```
"""
