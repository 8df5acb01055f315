"""``fastspe bank export --hub``: a folder that ``datasets.load_dataset`` reads as the bank, config by cohort, with a
card whose YAML parses and names the folders it holds; refused over a folder in use; written whole or not at all."""

from __future__ import annotations

import json
import re
import shlex

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.boundary.banks import as_bank, load_bank, write_bank
from fastspe.cli import main
from fastspe.domains.registry import domain_named
from fastspe.hub import BankItems, export_hub
from fastspe.hub.card import yaml_lines
from fastspe.hub.export import config_names

datasets = pytest.importorskip("datasets")  # in the test extra
yaml = pytest.importorskip("yaml")  # datasets' own dependency

DOMAINS = ("sliding", "sokoban", "hanoi")  # hanoi: a plugin domain with the contract's default card notes
HUB = re.compile(r"\A---\n(.*?)\n---\n", re.S)


def search_bank() -> pa.Table:
    """A sliding bank with a search-certified cell (and the optional columns ``retreat``, ``certificate_kind``)."""
    domain = domain_named("sliding")
    from fastspe.domains.sliding.bank.design import design_from_dict

    design = design_from_dict(
        {
            "seed": 3,
            "cells": [
                {"cohort": "walks", "blocks": [], "depth": 6, "count": 3},
                {"cohort": "retreat", "blocks": [], "depth": 8, "retreat": 2, "count": 2},
            ],
        }
    )
    return pa.concat_tables(domain.bank_pieces(design, lambda *done: None))


def given_bank() -> pa.Table:
    """A Sokoban bank of given levels in two cohorts (with the optional columns ``objective`` and the optima's)."""
    from fastspe.domains.sokoban.given import bank_from_levels

    levels = [
        "####\n# .#\n#  ###\n#*@  #\n#  $ #\n#  ###\n####",
        "######\n#    #\n# #@ #\n# $* #\n# .* #\n#    #\n######",
    ]
    return pa.concat_tables([bank_from_levels(levels[:1], cohort="one"), bank_from_levels(levels[1:], cohort="two")])


BANKS = {"search": search_bank, "given": given_bank}


@pytest.fixture(scope="module", params=DOMAINS + tuple(BANKS))
def bank_file(request, tmp_path_factory):
    table = BANKS[request.param]() if request.param in BANKS else domain_named(request.param).warm_bank()
    path = tmp_path_factory.mktemp("bank") / "bank.parquet"
    write_bank(table, path)
    return path


@pytest.fixture(scope="module")
def exported(bank_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("hub") / "dataset"
    assert main(["bank", "export", str(bank_file), "--hub", str(out)]) == 0
    return load_bank(bank_file), out


def card_of(folder) -> tuple[dict, str]:
    text = (folder / "README.md").read_text(encoding="utf-8")
    found = HUB.match(text)
    assert found, "the card starts with a YAML header between --- lines"
    return yaml.safe_load(found.group(1)), text


def test_load_dataset_gives_the_bank(exported):
    bank, out = exported
    got = datasets.load_dataset(str(out))
    assert list(got) == ["train"]
    assert got["train"].column_names == bank.table.column_names
    assert got["train"].to_list() == bank.table.to_pylist()


def test_each_config_gives_its_cohort(exported):
    bank, out = exported
    cohorts = list(dict.fromkeys(bank.table.column("cohort").to_pylist()))
    assert len(cohorts) >= 2
    names = config_names(cohorts)
    for cohort in cohorts:
        got = datasets.load_dataset(str(out), names[cohort], split="train")
        assert got.to_list() == bank.table.filter(pc.equal(bank.table.column("cohort"), cohort)).to_pylist()
    every = datasets.load_dataset(str(out), "all", split="train")
    assert sorted(every["board_id"]) == sorted(bank.table.column("board_id").to_pylist())


def test_the_card_yaml_parses_and_matches_the_folders(exported):
    bank, out = exported
    header, text = card_of(out)
    configs = {c["config_name"]: c for c in header["configs"]}
    folders = sorted(p.name for p in (out / "data").iterdir())
    assert sorted(configs) == sorted(["all", *folders])
    assert [c["config_name"] for c in header["configs"] if c.get("default")] == ["all"]
    listed = set()
    for name, config in configs.items():
        (files,) = [f["path"] for f in config["data_files"] if f["split"] == "train"]
        assert all((out / f).is_file() for f in files)
        if name != "all":
            assert files == [f"data/{name}/train-00000-of-00001.parquet"]
            listed.update(files)
    assert sorted(configs["all"]["data_files"][0]["path"]) == sorted(listed)
    features = datasets.Features.from_arrow_schema(pa.parquet.read_schema(out / next(iter(listed))))
    info = {i["config_name"]: i for i in header["dataset_info"]}
    assert sorted(info) == sorted(configs)
    rows = {name: datasets.load_dataset(str(out), name, split="train").num_rows for name in configs}
    for name, entry in info.items():
        assert entry["features"] == features._to_yaml_list()
        assert entry["splits"][0]["num_examples"] == rows[name]
    assert rows["all"] == len(bank)
    assert header["license"] == "mit" and header["task_categories"] and "fastspe" in header["tags"]
    notes = bank.domain.dataset_card_notes(bank.table)
    assert notes.citation in text and "arXiv:2610.36415" in text
    assert (notes.certification or "re-checks it") in text
    assert "huggingface-cli upload" in text
    hub = pytest.importorskip("huggingface_hub")  # the Hub's own reader of cards (a dependency of datasets)
    card = hub.DatasetCard.load(out / "README.md")
    assert card.data.license == "mit" and [c["config_name"] for c in card.data.configs] == list(configs)


def test_every_data_file_is_a_bank_of_its_cohort(exported):
    bank, out = exported
    for path in sorted((out / "data").glob("*/train-00000-of-00001.parquet")):
        part = load_bank(path)
        assert part.domain is bank.domain
        cohorts = set(part.table.column("cohort").to_pylist())
        assert len(cohorts) == 1 and config_names(cohorts)[cohorts.pop()] == path.parent.name
        assert set(part.table.column("board_id").to_pylist()) <= set(bank.table.column("board_id").to_pylist())


def test_the_cards_commands_run(exported, monkeypatch, capsys):
    """The card's bash lines run as written in the folder, and its Python snippet scores the certificate 1.0."""
    bank, out = exported
    _, text = card_of(out)
    monkeypatch.chdir(out)
    (bash,) = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    lines = [ln for ln in bash.splitlines() if ln.strip()]
    assert [shlex.split(ln)[:2] for ln in lines] == [
        ["fastspe", "bank"],
        ["fastspe", "run"],
        ["fastspe", "score"],
        ["fastspe", "metrics"],
    ]
    for line in lines:
        assert main(shlex.split(line)[1:]) == 0, line
    (python,) = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    repo = re.search(r'load_dataset\("([^"]+)"', python).group(1)
    scope: dict = {}
    exec(python.replace(repo, str(out)), scope)
    assert scope["items"].score_answer(scope["item"]["answer"], scope["item"]) == 1.0
    assert scope["items"].domain is bank.domain


def test_a_folder_in_use_is_refused_unless_forced(bank_file, tmp_path, capsys):
    out = tmp_path / "dataset"
    (out / "data" / "gone").mkdir(parents=True)
    (out / "data" / "gone" / "train-00000-of-00001.parquet").write_bytes(b"old")
    (out / ".gitattributes").write_text("*.parquet filter=lfs\n")
    capsys.readouterr()
    assert main(["bank", "export", str(bank_file), "--hub", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --hub") and "--force" in err[0]
    assert (out / "data" / "gone").is_dir() and not (out / "README.md").exists()
    assert main(["bank", "export", str(bank_file), "--hub", str(out), "--force"]) == 0
    assert not (out / "data" / "gone").exists(), "the old dataset's files are replaced whole"
    assert (out / ".gitattributes").read_text() == "*.parquet filter=lfs\n", "files that are not the dataset's stay"
    assert datasets.load_dataset(str(out), split="train").num_rows == len(load_bank(bank_file))


def test_a_file_or_no_output_is_refused(bank_file, tmp_path, capsys):
    file = tmp_path / "taken"
    file.write_text("x")
    for argv in (["--hub", str(file)], [], ["--items", str(tmp_path / "items.json")]):
        capsys.readouterr()
        assert main(["bank", "export", str(bank_file), *argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: "), err


def test_a_failed_export_leaves_nothing(bank_file, tmp_path, monkeypatch):
    """Nothing half-written under the final name: a failure at the card leaves no folder and no temporary."""
    import fastspe.hub.export as export

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(export, "write_text", broken)
    with pytest.raises(OSError):
        export_hub(load_bank(bank_file), tmp_path / "dataset")
    assert list(tmp_path.iterdir()) == []


def test_config_names_are_safe_and_distinct():
    names = config_names(["primary", "all", "a b", "a/b", "..", "ALL"])
    assert names["primary"] == "primary"
    assert len(set(n.lower() for n in names.values()) | {"all"}) == len(names) + 1
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+", n) and not n.startswith(".") for n in names.values())


def test_export_of_a_frame_with_odd_cohorts(tmp_path):
    """A bank made by hand, whose cohort names are no folder names, still exports and loads config by config."""
    frame = domain_named("sliding").bank_frame(domain_named("sliding").warm_bank())
    frame["cohort"] = ["easy set" if c == "primary" else "all" for c in frame["cohort"]]
    done = export_hub(as_bank(frame), tmp_path / "odd")
    assert [c.name for c in done.configs] == ["all", "easy-set", "all-2"]
    assert datasets.load_dataset(str(tmp_path / "odd"), "all-2", split="train").num_rows == int(
        (frame["cohort"] == "all").sum()
    )


def test_items_file_is_the_items(bank_file, tmp_path):
    out = tmp_path / "items.jsonl"
    assert main(["bank", "export", str(bank_file), "--items", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines == list(BankItems(load_bank(bank_file)))


# the card's YAML is written by hand (fastspe depends on no YAML library): whatever text a bank brings (a cohort name,
# a repo id, a level), YAML must read back exactly what was written
_YAML_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_YAML_VALUES = st.recursive(
    st.one_of(_YAML_TEXT, st.integers(-(10**9), 10**9), st.booleans()),
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3),
        st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), inner, min_size=1, max_size=3),
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), _YAML_VALUES, min_size=1, max_size=3))
def test_card_yaml_reads_back_as_written(value):
    assert yaml.safe_load("\n".join(yaml_lines(value))) == value
