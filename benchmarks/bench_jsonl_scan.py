"""The JSONL scanner (``kernels.jsonl_scan.scan_records``) beside its plain-Python twin (``tests/naive_jsonl_scan``).

Run with ``python -m pytest benchmarks/bench_jsonl_scan.py --benchmark-only -s``. The lines are a run log's, as
``fastspe run`` writes them (~20 metadata fields, a 64-character prompt digest, an answer with its plan), in one
32 MB chunk, the batch ``fastspe score`` reads. The twin reads a tenth of the lines (it is slow); the ratio is of
bytes per second. Both give the same kinds and values on the twin's lines (checked here too).
"""

from __future__ import annotations

import json

import numpy as np

from benchmarks.timing import best_of, target
from fastspe.boundary.jsonl_records import KnownKeys
from fastspe.kernels.jsonl_scan import CLEAN, scan_records
from tests.naive_jsonl_scan import naive_scan

CHUNK_BYTES = 32 << 20


def run_log_lines(n: int, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        plan = ",".join(rng.choice(list("UDLR"), size=int(rng.integers(20, 60))))
        lines.append(
            json.dumps(
                {
                    "board_id": f"primary-k0-d40-bnone-{i % 100_000:05d}",
                    "condition": "openai:gpt-5",
                    "trial": i % 10,
                    "trial_id": f"{rng.integers(2**63):016x}{rng.integers(2**63):016x}",
                    "provider": "openai",
                    "requested_model": "gpt-5",
                    "base_url": None,
                    "seed": 0,
                    "fastspe_version": "0.1.0",
                    "prompt_version": "appendix-b/1",
                    "prompt_sha256": "9e" * 32,
                    "prompt_text_sha256": f"{i:064x}",
                    "response": f"The blank starts at the corner.\nMOVES: {plan}",
                    "finish_reason": "stop",
                    "status": "ok",
                    "attempt": 1,
                    "returned_model": "gpt-5-2026-08-07",
                    "timestamp": "2026-12-04T00:59:34.959+00:00",
                    "latency_s": float(rng.random() * 30),
                    "cost_usd": 0.0123,
                    "output_tokens": int(rng.integers(10, 4000)),
                }
            )
        )
    return ("\n".join(lines) + "\n").encode()


def test_scan_records_vs_twin(benchmark):
    one = len(run_log_lines(1)) - 1
    data = np.frombuffer(run_log_lines(CHUNK_BYTES // one), dtype=np.uint8)
    names = list(json.loads(bytes(data[: np.flatnonzero(data == 10)[0]])))
    keys = KnownKeys(names)
    scan = lambda: scan_records(data, keys.bytes, keys.offsets, scratch=keys.scratch)  # noqa: E731
    assert scan()[0] == CLEAN  # (compiled or loaded from the cache here)
    benchmark.pedantic(scan, rounds=5, iterations=1, warmup_rounds=1)
    kernel_rate = len(data) / benchmark.stats.stats.min
    tenth = bytes(data[: int(np.flatnonzero(data == 10)[len(data) // one // 10])])
    twin = []
    twin_rate = len(tenth) / best_of(lambda: twin.append(naive_scan(tenth, names)), repeat=1)
    status, rows, _ = twin[0]
    kind = scan()[1]
    assert status == CLEAN
    assert all(
        {name: int(kind[r, k]) for k, name in enumerate(names) if name in row}
        == {name: value[0] for name, value in row.items()}
        for r, row in enumerate(rows)
    )
    ratio = kernel_rate / twin_rate
    benchmark.extra_info.update(bytes_per_s=kernel_rate, twin_bytes_per_s=twin_rate, ratio=ratio)
    print(
        f"\nscan a run log's {len(data) / 1e6:,.0f} MB chunk: {kernel_rate / 1e6:,.0f} MB/s; twin "
        f"{twin_rate / 1e6:,.1f} MB/s; ratio {ratio:,.0f}x"
    )
    target(ratio >= 20, f"compiled scanner >= 20x its twin, got {ratio:.0f}x")
