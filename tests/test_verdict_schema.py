"""The verdicts file's typed schema, checked with the libraries researchers load these files with.

A baseline run and an API run (against the fake server, with temperature and max_tokens set) are scored
into Parquet; the two files must have one schema, so pyarrow concatenates them without promotion, polars
concatenates them, DuckDB averages economy over completed rows (a number, not NaN) and Hugging Face
``datasets`` loads both as one split. Read back, they are the frames fastspe always computed with.
"""

from __future__ import annotations

import math
import os

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.fake_llm_server import FakeLLMServer
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import write_bank
from fastspe.domains.sliding.bank.design import Design, DesignCell
from fastspe.boundary.banks import read_bank_table
from fastspe.boundary.errors import InputError
from fastspe.boundary.parquet import write_parquet
from fastspe.boundary.responses import read_responses
from fastspe.boundary.verdict_schema import METADATA_TYPES, SCHEMA_KEY, typed_verdicts
from fastspe.boundary.verdicts import check_verdicts, verdict_columns
from fastspe.boundary.verdict_files import read_verdicts, write_verdicts
from fastspe.domains.sliding.layout import Layout
from fastspe.runners import GenerationSettings, RetryPolicy, run_model
from fastspe.runners.engine import run_baseline
from fastspe.scoring.score import score_file, score_responses
from fastspe.stats.metrics import compute_metrics
from fastspe.verify.verdicts import verify_verdicts_files

VERDICT_COLUMNS = verdict_columns("sliding")  # the shared columns as the sliding puzzle names them

KEY = "sk-fastspe-TEST-schema-k3y-0042-long-enough"
FAST = RetryPolicy(max_retries=3, max_rate_limit_retries=3, base_delay=0.01, max_delay=0.05, retry_after_cap=2.0)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """bank, logs and verdicts of a baseline run (oracle: completed plans) and an API run."""
    tmp = tmp_path_factory.mktemp("schema")
    bank = build_bank(
        Design(
            seed=3,
            rows=4,
            cols=4,
            cells=(DesignCell("primary", Layout(4, 4, ()), 4, 2), DesignCell("stress", Layout(4, 4, (5,)), 6, 2)),
        )
    )
    write_bank(bank, tmp / "bank.parquet")
    run_baseline(bank, "oracle", tmp / "baseline.jsonl", trials=2)
    saved = {k: os.environ.get(k) for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    os.environ["OPENAI_API_KEY"] = KEY
    os.environ.pop("OPENAI_BASE_URL", None)
    try:
        with FakeLLMServer(key=KEY) as server:
            run_model(
                bank,
                "openai:fake-gpt",
                tmp / "api.jsonl",
                base_url=server.openai_url,
                trials=2,
                timeout=60,
                policy=FAST,
                settings=GenerationSettings(temperature=0.0, max_tokens=64),
            )
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    table = read_bank_table(tmp / "bank.parquet")
    for name in ("baseline", "api"):
        score_file(table, tmp / f"{name}.jsonl", tmp / f"{name}.parquet")  # streamed
    return tmp, bank


def paths(files):
    tmp, _ = files
    return [str(tmp / "baseline.parquet"), str(tmp / "api.parquet")]


def test_one_schema_for_every_source(files):
    tmp, bank = files
    base, api = (pq.read_table(p) for p in paths(files))
    assert base.schema.equals(api.schema, check_metadata=True)
    assert base.schema.names == [*VERDICT_COLUMNS, *METADATA_TYPES]
    assert base.schema.metadata[SCHEMA_KEY] == b"2"
    assert api.schema.field("timestamp").type == pa.timestamp("ms", tz="UTC")
    assert not any(pa.types.is_null(f.type) for f in base.schema)
    # the in-memory path (score_responses, write_verdicts) writes the same schema as the streamed one
    write_verdicts(score_responses(bank, read_responses(tmp / "api.jsonl")), tmp / "api_frame.parquet")
    frame_path = pq.read_table(tmp / "api_frame.parquet")
    assert frame_path.schema.equals(api.schema, check_metadata=True)
    assert (
        frame_path.sort_by([("condition", "ascending"), ("board_id", "ascending"), ("trial", "ascending")])
        .drop(["timestamp", "latency_s"])
        .equals(
            api.sort_by([("condition", "ascending"), ("board_id", "ascending"), ("trial", "ascending")]).drop(
                ["timestamp", "latency_s"]
            )
        )
    )


def test_undefined_values_are_nulls(files):
    base, api = (pq.read_table(p).to_pandas() for p in paths(files))
    both = pd.concat([base, api], ignore_index=True)
    assert both["status"].eq("complete").any() and both["status"].ne("complete").any()
    complete, illegal = both["status"] == "complete", both["status"] == "illegal"
    assert both["economy"].isna().eq(~complete).all() and both["excess"].isna().eq(~complete).all()
    assert both["error_kind"].isna().eq(~illegal).all()
    no_index = ~illegal | (both["error_kind"] == "format")
    assert both["first_error"].isna().eq(no_index).all()
    assert api["temperature"].eq(0.0).all() and api["max_tokens"].eq(64).all()
    assert base["temperature"].isna().all() and base["max_tokens"].isna().all()  # not set: null, typed


def test_pyarrow_concatenates_without_promotion(files):
    tables = [pq.read_table(p) for p in paths(files)]
    both = pa.concat_tables(tables, promote_options="none")
    assert both.num_rows == sum(t.num_rows for t in tables)


def test_polars_concatenates(files):
    pl = pytest.importorskip("polars", reason="polars is in the test extra")
    both = pl.concat([pl.read_parquet(p) for p in paths(files)])
    assert both.height == sum(pq.read_metadata(p).num_rows for p in paths(files))
    assert both.schema["economy"] == pl.Float64 and both.schema["max_tokens"] == pl.Int64


def test_duckdb_averages_completed_rows(files):
    duckdb = pytest.importorskip("duckdb", reason="duckdb is in the test extra")
    mean, counted, completed = (
        duckdb.connect()
        .execute(
            f"select avg(economy), count(economy), count(*) filter (where status = 'complete') "
            f"from read_parquet({paths(files)!r})"
        )
        .fetchone()
    )
    frames = [read_verdicts(p).frame for p in paths(files)]
    economy = pd.concat(frames)["economy"]
    assert counted == completed == economy.notna().sum() > 0
    assert not math.isnan(mean) and mean == pytest.approx(economy.dropna().mean(), rel=1e-12)


def test_hugging_face_datasets_loads_both(files, tmp_path, monkeypatch):
    datasets = pytest.importorskip(
        "datasets",
        reason="Hugging Face datasets is not installed (it is in the test "
        "extra); the check that it loads both files is skipped",
    )
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    split = datasets.load_dataset("parquet", data_files=paths(files), split="train", cache_dir=str(tmp_path / "c"))
    assert split.num_rows == sum(pq.read_metadata(p).num_rows for p in paths(files))
    assert split.features["economy"].dtype == "float64"


def test_read_back_in_the_conventions_fastspe_computes_with(files):
    tmp, bank = files
    for name in ("baseline", "api"):
        frame = read_verdicts(tmp / f"{name}.parquet", bank).frame
        scored = check_verdicts(score_responses(bank, read_responses(tmp / f"{name}.jsonl"))).frame
        got = frame.sort_values(["condition", "board_id", "trial"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(got[VERDICT_COLUMNS], scored[VERDICT_COLUMNS])
        assert (got["first_error"] >= -1).all() and got["error_kind"].map(type).eq(str).all()
        diffs, compared = verify_verdicts_files(tmp / "bank.parquet", tmp / f"{name}.jsonl", tmp / f"{name}.parquet")
        assert diffs == [] and compared == len(frame)


def test_schema_1_files_still_read_with_the_same_numbers(files, tmp_path):
    tmp, bank = files
    scored = score_responses(bank, pd.concat([read_responses(tmp / f"{n}.jsonl") for n in ("baseline", "api")]))
    old = pa.Table.from_pandas(scored, preserve_index=False)
    old = old.set_column(
        old.column_names.index("economy"), "economy", pa.array(scored["economy"].to_numpy(), from_pandas=False)
    )  # NaN, as 0.1 wrote it
    write_parquet(old, tmp_path / "old.parquet", "verdicts")  # '' / -1 / NaN / text timestamps, no schema key
    write_verdicts(scored, tmp_path / "new.parquet")
    a, b = read_verdicts(tmp_path / "old.parquet", bank), read_verdicts(tmp_path / "new.parquet", bank)
    pd.testing.assert_frame_equal(a.frame[VERDICT_COLUMNS], b.frame[VERDICT_COLUMNS])
    by = ["condition", "cohort", "depth"]
    pd.testing.assert_frame_equal(compute_metrics(a, by=by), compute_metrics(b, by=by))


def test_settings_given_as_lists_and_objects_are_json_text(files, tmp_path):
    tmp, bank = files
    answers = read_responses(tmp / "api.jsonl")
    answers["stop"] = [["\n\n", "END"]] * len(answers)
    answers["extra_body"] = [{"top_k": 5}] * len(answers)
    write_verdicts(score_responses(bank, answers), tmp_path / "v.parquet")
    table = pq.read_table(tmp_path / "v.parquet")
    assert table.schema.field("stop").type == pa.string()
    assert set(table.column("stop").to_pylist()) == {'["\\n\\n","END"]'}
    assert set(table.column("extra_body").to_pylist()) == {'{"top_k":5}'}


def test_a_value_that_cannot_take_its_type_is_refused():
    rows = pd.DataFrame({"timestamp": ["yesterday"], "board_id": ["b"]})
    with pytest.raises(InputError, match="out.parquet: column timestamp"):
        typed_verdicts(pa.Table.from_pandas(rows), "out.parquet")
    naive = typed_verdicts(pa.table({"timestamp": ["2026-01-02T03:04:05.678"]}))  # no offset: UTC
    assert naive.column("timestamp")[0].as_py().isoformat() == "2026-01-02T03:04:05.678000+00:00"


def test_a_typed_file_rewritten_as_csv_by_another_tool_reads_the_same(files, tmp_path):
    tmp, bank = files
    pd.read_parquet(tmp / "api.parquet").to_csv(tmp_path / "plain.csv", index=False)  # nulls as empty cells
    a, b = read_verdicts(tmp / "api.parquet", bank), read_verdicts(tmp_path / "plain.csv", bank)
    pd.testing.assert_frame_equal(a.frame[VERDICT_COLUMNS], b.frame[VERDICT_COLUMNS])
