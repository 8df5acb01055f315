"""A bank as a Hugging Face Hub dataset folder, which ``datasets.load_dataset(DIR)`` reads::

    DIR/README.md                                     the dataset card (fastspe.hub.card)
    DIR/data/<cohort>/train-00000-of-00001.parquet    each cohort's rows, in bank order

Each cohort is a config, and ``all`` (the default) holds them all. Every data file is a fastspe bank in its own
right (Parquet with its content digest and domain). The folder is built aside and swapped in whole
(``boundary.files.atomic_dir``): nothing half-written is ever under its name. Uploading is the user's
``huggingface-cli upload``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow.compute as pc

from ..boundary.banks import as_bank, write_bank_table
from ..boundary.files import atomic_dir, write_text
from ..errors import UserError
from .card import ALL_CONFIG, SPLIT, HubConfig, dataset_card

if TYPE_CHECKING:
    from .items import BankLike

__all__ = ["HubExport", "export_hub", "config_names", "check_hub_dir"]

SHARD = f"{SPLIT}-00000-of-00001.parquet"  # the Hub's shard naming: one file per config
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class HubExport:
    """What ``export_hub`` wrote: the folder, its configs (the default first) and the bank's row count."""

    path: Path
    configs: tuple[HubConfig, ...]
    rows: int


def config_names(cohorts) -> dict[str, str]:
    """cohort -> config name: the cohort itself where it is a safe folder name (letters, digits, ``_ . -``) and not
    ``all``; otherwise a safe spelling of it, numbered where two would meet."""
    names: dict[str, str] = {}
    taken = {ALL_CONFIG}
    for cohort in cohorts:
        base = _UNSAFE.sub("-", cohort).strip("-.") or "cohort"
        name, n = base, 1
        while name.lower() in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name.lower())
        names[cohort] = name
    return names


def is_empty(folder: Path) -> bool:
    with os.scandir(folder) as entries:
        return next(entries, None) is None


def check_hub_dir(path: str | os.PathLike[str], force: bool = False) -> None:
    """Refuse ``path`` when it is a file, or a folder with anything in it unless ``force``."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UserError(f"--hub {path} is a file; give a folder to write the dataset to")
    if path.is_dir() and not force and not is_empty(path):
        raise UserError(
            f"--hub {path} is a folder that is not empty; give a new or empty folder, or --force to "
            "replace the dataset's files there (README.md and data/; other files are kept)"
        )


def export_hub(
    bank: BankLike, path: str | os.PathLike[str], force: bool = False, repo_id: str | None = None
) -> HubExport:
    """Write ``bank`` (a ``Bank``, or a bank DataFrame or Arrow table, checked here) as a Hub dataset folder at
    ``path`` (see the module docstring); ``force`` replaces the dataset's files in a folder that is not empty.
    ``repo_id`` is the Hub name the card's examples load (default ``YOUR-NAME/<folder name>``)."""
    bank = as_bank(bank)
    check_hub_dir(path, force)
    if not len(bank):
        raise UserError(f"{bank.source}: the bank has no rows; there is nothing to export")
    table = bank.table
    cohorts = table.column("cohort")
    order = list(dict.fromkeys(cohorts.to_pylist()))  # cohorts in bank order
    names = config_names(order)
    configs = [HubConfig(names[c], (c,), (f"data/{names[c]}/{SHARD}",), 0) for c in order]
    parts = [table.filter(pc.equal(cohorts, c)) for c in order]
    configs = [HubConfig(c.name, c.cohorts, c.files, part.num_rows, part.nbytes) for c, part in zip(configs, parts)]
    every = HubConfig(
        ALL_CONFIG,
        tuple(order),
        tuple(f for c in configs for f in c.files),
        table.num_rows,
        sum(c.nbytes for c in configs),
    )
    configs = [every, *configs]
    name = repo_id or f"YOUR-NAME/{Path(path).resolve().name}"
    with atomic_dir(path) as build:
        for config, part in zip(configs[1:], parts):
            write_bank_table(part, build / config.files[0])
        write_text(dataset_card(bank, table.schema, configs, name), build / "README.md")
    return HubExport(Path(path), tuple(configs), table.num_rows)
