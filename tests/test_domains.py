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
from fastspe.boundary.verdicts import stratum_of, verdict_columns, VERDICT_COLUMNS
from fastspe.domains.registry import DOMAIN_KEY, domain_name_of, domain_named, with_domain
from fastspe.domains.sliding.domain import DOMAIN as SLIDING
from fastspe.errors import UserError
from fastspe.domains.sliding.kernels.replay import replay_plans
from fastspe.scoring.parse_column import parse_column
from fastspe.scoring.score import bank_tables

HAS_SOKOBAN_DOMAIN = importlib.util.find_spec("fastspe.domains.sokoban.domain") is not None
needs_sokoban_domain = pytest.mark.skipif(not HAS_SOKOBAN_DOMAIN, reason="fastspe.domains.sokoban.DOMAIN not merged yet")

LEVEL = "#####\n#@$.#\n#####"  # one push right solves it
LEVEL2 = "######\n#@$ .#\n######"


# ---- registry -------------------------------------------------------------------------------------------------

def test_domain_named_gives_the_sliding_domain_and_refuses_unknown_names():
    assert domain_named("sliding") is SLIDING
    assert SLIDING.stratum == "k" and SLIDING.error_names[1:3] == ("boundary", "obstacle")
    with pytest.raises(UserError, match="unknown domain 'chess'"):
        domain_named("chess")


@pytest.mark.parametrize("columns, name", [
    (["board_id", "k", "initial"], "sliding"),
    (["board_id", "level", "boxes"], "sokoban"),
    (["board_id", "boxes", "layout"], "sokoban"),  # Sokoban verdicts
    (["board_id", "k", "boxes"], "sliding"),  # k wins: a sliding table with a metadata column named boxes
    (["board_id", "k", "level"], "sliding"),
    ([], "sliding"),
])
def test_domain_name_of_columns(columns, name):
    assert domain_name_of(columns) == name
    assert domain_name_of(pd.DataFrame(columns=columns)) == name
    assert domain_name_of(pa.table({c: [1] for c in columns}) if columns else pa.table({"x": [1]})) == name


def test_domain_name_of_reads_the_metadata_first():
    table = pa.table({"k": [1]})
    assert domain_name_of(with_domain(table, "sokoban")) == "sokoban"
    assert with_domain(table, "sliding") is table  # the sliding puzzle's files carry no key
    bad = table.replace_schema_metadata({DOMAIN_KEY: b"chess"})
    with pytest.raises(UserError, match="names domain 'chess'"):
        domain_name_of(bad)


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
    want = replay_plans(tables.boards, rows, parsed.codes, parsed.offsets, tables.layout_index[rows], tables.moves,
                        tables.dist, tables.goal_cell, tables.bits)
    for a, b in zip(got, want):
        assert np.array_equal(a, b)
    row = bank.iloc[0]
    assert "sliding puzzle" in SLIDING.render_prompt(row.to_dict())


def test_the_sliding_verdict_schema_is_unchanged():
    assert verdict_types("sliding") == VERDICT_TYPES
    schema = verdict_schema()
    assert schema.metadata == {SCHEMA_KEY: b"2"}  # no domain key: sliding files stay byte-identical
    assert verdict_columns(pd.DataFrame(columns=VERDICT_COLUMNS)) == VERDICT_COLUMNS
    assert stratum_of(pd.DataFrame(columns=VERDICT_COLUMNS)) == "k"


@needs_sokoban_domain
def test_the_sokoban_verdict_schema_names_boxes_in_ks_place():
    types = verdict_types("sokoban")
    assert list(types) == [("boxes" if n == "k" else n) for n in VERDICT_TYPES]
    assert verdict_schema(domain="sokoban").metadata[DOMAIN_KEY] == b"sokoban"
    frame = pd.DataFrame(columns=list(types))
    assert stratum_of(frame) == "boxes" and verdict_columns(frame) == list(types)


# ---- Sokoban bank tables --------------------------------------------------------------------------------------

def _sokoban_table(**changes) -> pa.Table:
    rows = {"board_id": ["a", "b"], "cohort": ["primary", "primary"], "depth": [1, 2], "level": [LEVEL, LEVEL2],
            "boxes": [1, 1], "certificate": ["R", "R,R"], "pushes": [1, 2]}
    rows.update(changes)
    return pa.table(rows)


def test_a_sokoban_bank_table_is_checked_and_named_in_its_metadata():
    table = check_bank_table(_sokoban_table())
    assert table.schema.metadata[DOMAIN_KEY] == b"sokoban"
    assert table.column_names == ["board_id", "cohort", "depth", "level", "boxes", "certificate", "pushes"]
    assert domain_name_of(table) == "sokoban"


@pytest.mark.parametrize("changes, message", [
    ({"boxes": [1, 2]}, "row 2 .*boxes is 2 but the level has 1"),
    ({"depth": [1, 3]}, "row 2 .*depth is 3 but the certificate has 2 moves"),
    ({"pushes": [1, 3]}, "row 2 .*pushes is 3, must be 0..depth"),
    ({"certificate": ["X", "R,R"]}, "row 1 .*depth is 1 but|row 1 .*not U, D, L or R"),
    ({"level": [LEVEL, "#####\n#@$$#\n#####"]}, "row 2 .*level:"),
    ({"board_id": ["a", "a"]}, "a"),
    ({"depth": [1.5, 2.0]}, "depth is 1.5, not an integer"),
])
def test_a_bad_sokoban_bank_row_is_named(changes, message):
    with pytest.raises(InputError, match=message):
        check_bank_table(_sokoban_table(**changes), "bank.parquet")


def test_a_sokoban_table_without_its_columns_is_refused():
    with pytest.raises(InputError, match="not a Sokoban bank.*lack columns"):
        check_bank_table(pa.table({"board_id": ["a"], "level": [LEVEL]}))


@needs_sokoban_domain
def test_a_sokoban_bank_scores_through_the_seam(tmp_path):
    from fastspe.boundary.verdict_files import read_verdicts, write_verdicts
    from fastspe.scoring.rewards import RewardScorer
    from fastspe.scoring.score import score_responses
    from fastspe.verify.verdicts import verify_verdicts_files

    bank = check_bank_table(_sokoban_table())
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
