"""The domain seam: the registry, the sliding puzzle's Domain, the verdict schema per domain, Sokoban bank tables."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.boundary.banks import check_bank_table
from fastspe.boundary.errors import InputError
from fastspe.boundary.verdict_schema import SCHEMA_KEY, VERDICT_TYPES, verdict_schema, verdict_types
from fastspe.boundary.verdicts import verdict_columns, VERDICT_COLUMNS
from fastspe.domains.contract import STRATUM
from fastspe.domains.registry import (
    DEFAULT_DOMAIN,
    DOMAIN_KEY,
    domain_named,
    domain_names,
    domain_of,
    installed_domains,
    name_in,
    sources,
    with_domain,
)
from fastspe.domains.sliding.domain import DOMAIN as SLIDING
from fastspe.errors import UserError
from fastspe.domains.sliding.kernels.replay import replay_plans
from fastspe.scoring.parse_column import parse_column
from fastspe.scoring.score import bank_tables

HAS_SOKOBAN_DOMAIN = importlib.util.find_spec("fastspe.domains.sokoban.domain") is not None
needs_sokoban_domain = pytest.mark.skipif(
    not HAS_SOKOBAN_DOMAIN, reason="fastspe.domains.sokoban.DOMAIN not merged yet"
)

LEVEL = "#####\n#@$.#\n#####"  # one push right solves it
LEVEL2 = "######\n#@$ .#\n######"


# ---- registry -------------------------------------------------------------------------------------------------


def test_domain_named_gives_the_sliding_domain_and_refuses_unknown_names():
    assert domain_named("sliding") is SLIDING and domain_named(SLIDING) is SLIDING
    assert SLIDING.stratum == "k" and SLIDING.error_names[1:3] == ("boundary", "obstacle")
    with pytest.raises(UserError, match="unknown domain 'chess'; the installed domains are sliding, .*sokoban"):
        domain_named("chess")


def test_both_built_in_domains_are_installed_with_their_package():
    names = domain_names()
    assert names[0] == DEFAULT_DOMAIN == "sliding" and "sokoban" in names  # the default first, then by name
    assert list(names[1:]) == sorted(names[1:])
    found = sources()
    assert found["sokoban"].package == "fastspe" and found["sokoban"].target == "fastspe.domains.sokoban:DOMAIN"
    good, bad = installed_domains()
    assert [d.name for d in good] == list(names) and not bad


@pytest.mark.parametrize("columns", [["board_id", "k", "initial"], ["board_id", "level", "boxes"], []])
def test_a_table_without_the_key_is_the_default_domains_whatever_its_columns(columns):
    """No column sniffing: a table names its domain, or it is the default domain's (files before domains had names)."""
    table = pa.table({c: [1] for c in columns}) if columns else pa.table({"x": [1]})
    assert name_in(table) is None and domain_of(table) is SLIDING
    assert domain_of(pd.DataFrame(columns=columns)) is SLIDING


def test_the_key_names_the_domain_in_tables_schemas_and_frames():
    table = pa.table({"k": [1]})
    assert domain_of(with_domain(table, "sokoban")).name == "sokoban"
    assert with_domain(table, "sliding").schema.metadata[DOMAIN_KEY] == b"sliding"  # every domain's files say it
    assert name_in(with_domain(table.schema, SLIDING)) == "sliding"
    frame = pd.DataFrame({"k": [1]})
    frame.attrs["fastspe.domain"] = "sokoban"
    assert domain_of(frame).name == "sokoban"
    bad = table.replace_schema_metadata({DOMAIN_KEY: b"chess"})
    with pytest.raises(UserError, match="unknown domain 'chess'"):
        domain_of(bad)


# ---- the sliding puzzle through the seam ----------------------------------------------------------------------


def test_sliding_domain_replays_as_the_kernel_does():
    bank = build_bank(paper_design()).head(40)
    tables = bank_tables(bank)
    assert tables.domain == "sliding"
    assert np.array_equal(tables.stratum_values(), bank["k"].to_numpy())
    rng = np.random.default_rng(5)
    texts = ["MOVES: " + ",".join(rng.choice(list("UDLRX"), size=int(rng.integers(0, 30)))) for _ in range(200)]
    rows = rng.integers(0, len(bank), size=200).astype(np.int64)
    parsed = parse_column(texts)
    got = SLIDING.replay(tables, rows, parsed.codes, parsed.offsets)
    want = replay_plans(
        tables.boards,
        rows,
        parsed.codes,
        parsed.offsets,
        tables.layout_index[rows],
        tables.moves,
        tables.dist,
        tables.goal_cell,
        tables.bits,
    )
    for a, b in zip(got, want):
        assert np.array_equal(a, b)
    row = bank.iloc[0]
    assert "sliding puzzle" in SLIDING.render_prompt(row.to_dict())


def test_the_sliding_verdict_schema_names_k_and_its_domain():
    assert list(verdict_types("sliding")) == [("k" if n == STRATUM else n) for n in VERDICT_TYPES]
    assert list(verdict_types("sliding").values()) == list(VERDICT_TYPES.values())
    schema = verdict_schema()
    assert schema.metadata == {SCHEMA_KEY: b"2", DOMAIN_KEY: b"sliding"}  # the one key sliding files gained
    assert verdict_columns("sliding") == [("k" if n == STRATUM else n) for n in VERDICT_COLUMNS]


@needs_sokoban_domain
def test_the_sokoban_verdict_schema_names_boxes_in_the_strata_place():
    types = verdict_types("sokoban")
    assert list(types) == [("boxes" if n == STRATUM else n) for n in VERDICT_TYPES]
    assert verdict_schema(domain="sokoban").metadata[DOMAIN_KEY] == b"sokoban"
    assert verdict_columns("sokoban") == list(types)


# ---- Sokoban bank tables --------------------------------------------------------------------------------------


def _sokoban_table(**changes) -> pa.Table:
    rows = {
        "board_id": ["a", "b"],
        "cohort": ["primary", "primary"],
        "depth": [1, 2],
        "level": [LEVEL, LEVEL2],
        "boxes": [1, 1],
        "certificate": ["R", "R,R"],
        "pushes": [1, 2],
    }
    rows.update(changes)
    return pa.table(rows)


def test_a_sokoban_bank_table_is_checked_and_named_in_its_metadata():
    table = check_bank_table(_sokoban_table(), domain="sokoban")
    assert table.schema.metadata[DOMAIN_KEY] == b"sokoban"
    assert table.column_names == ["board_id", "cohort", "depth", "level", "boxes", "certificate", "pushes"]
    assert domain_of(table).name == "sokoban"
    assert check_bank_table(table).schema.metadata[DOMAIN_KEY] == b"sokoban"  # a table that names it needs no more


def test_a_table_of_another_domain_than_asked_is_refused():
    table = check_bank_table(_sokoban_table(), domain="sokoban")
    with pytest.raises(InputError, match="a sokoban bank, not a sliding one"):
        check_bank_table(table, "b.parquet", domain="sliding")


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"boxes": [1, 2]}, "row 2 .*boxes is 2 but the level has 1"),
        ({"depth": [1, 3]}, "row 2 .*depth is 3 but the certificate has 2 moves"),
        ({"pushes": [1, 3]}, "row 2 .*pushes is 3, must be 0..depth"),
        ({"certificate": ["X", "R,R"]}, "row 1 .*depth is 1 but|row 1 .*not U, D, L or R"),
        ({"level": [LEVEL, "#####\n#@$$#\n#####"]}, "row 2 .*level:"),
        ({"board_id": ["a", "a"]}, "a"),
        ({"depth": [1.5, 2.0]}, "depth holds 1.5, not an integer"),
    ],
)
def test_a_bad_sokoban_bank_row_is_named(changes, message):
    with pytest.raises(InputError, match=message):
        check_bank_table(_sokoban_table(**changes), "bank.parquet", domain="sokoban")


def test_a_sokoban_table_without_its_columns_is_refused():
    with pytest.raises(InputError, match="not a Sokoban bank.*lack columns"):
        check_bank_table(pa.table({"board_id": ["a"], "level": [LEVEL]}), domain="sokoban")


@needs_sokoban_domain
def test_a_sokoban_bank_scores_through_the_seam(tmp_path):
    from fastspe.boundary.verdict_files import read_verdicts, write_verdicts
    from fastspe.scoring.rewards import RewardScorer
    from fastspe.scoring.score import score_responses
    from fastspe.verify.verdicts import verify_verdicts_files

    bank = check_bank_table(_sokoban_table(), domain="sokoban")
    texts = ["MOVES: R", "MOVES: L", "MOVES: R,R", "MOVES: R,R,R", "no plan", "MOVES: U"]
    ids = ["a", "a", "b", "b", "a", "b"]
    scorer = RewardScorer(bank)
    r = scorer(ids, texts)
    assert scorer.error_names[1:3] == ("wall", "box_blocked")
    assert r.status.tolist() == [0, 2, 0, 2, 2, 2]  # R,R,R pushes the box into the wall after the goal
    assert [scorer.error_names[k] for k in r.error_kind] == ["", "wall", "", "box_blocked", "format", "wall"]
    assert r.spe.tolist() == [1.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    responses = pd.DataFrame({"board_id": ids, "condition": "c", "trial": range(6), "response": texts})
    verdicts = score_responses(bank, responses)
    assert "boxes" in verdicts.columns and "k" not in verdicts.columns
    path = tmp_path / "v.parquet"
    write_verdicts(verdicts, path)
    back = read_verdicts(path)
    assert back.frame["boxes"].tolist() == [1] * 6
    diffs, compared = verify_verdicts_files(bank, responses, path)
    assert (diffs, compared) == ([], 6)
