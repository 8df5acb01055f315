"""Tables against a small hand-computed set of verdicts, and their Markdown/LaTeX/CSV export.

Tables are views of the long metrics frame (one bootstrap pass); the expected values are computed by
hand from the verdicts, so a table that drifted from its definition fails here."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from fastspe.report import render, tables as tb
from fastspe.stats.intervals import REPORT_GROUPINGS, bootstrap_intervals
from fastspe.stats.metrics import board_sums

BOARDS = {
    "b1": ("primary", 0, 10),
    "b2": ("primary", 0, 10),
    "b3": ("primary", 0, 20),
    "b4": ("primary", 1, 10),
    "b5": ("primary", 1, 20),
    "s1": ("stress", 2, 50),
}
# (status, L, error_kind, parse_mode) per trial; "c" complete, "n" legal noncompletion, "i" illegal
PLANS = {
    "A": {
        "b1": [("c", 10), ("c", 20)],
        "b2": [("c", 10), ("c", 10)],
        "b3": [("c", 20), ("n", 5)],
        "b4": [("c", 10), ("i", 3, "boundary")],
        "b5": [("i", 4, "obstacle"), ("i", 0, "format", "no_plan")],
        "s1": [("c", 100), ("n", 7)],
    },
    "B": {
        "b1": [("n", 2), ("n", 3)],
        "b2": [("i", 2, "invalid_action", "normalized"), ("c", 10)],
        "b3": [("i", 1, "boundary"), ("i", 2, "boundary")],
        "b4": [("c", 20), ("c", 10)],
        "b5": [("n", 9), ("c", 40)],
        "s1": [("i", 1, "boundary"), ("i", 5, "boundary")],
    },
    "O": {**{b: [("c", BOARDS[b][2])] * 2 for b in BOARDS}, "b5": [("c", 20), ("n", 3)]},
    "Z": {b: [("c", BOARDS[b][2])] * 2 for b in BOARDS},
}


def hand_verdicts() -> pd.DataFrame:
    rows = []
    for cond, plans in PLANS.items():
        for bid, trials in plans.items():
            cohort, k, depth = BOARDS[bid]
            for t, plan in enumerate(trials):
                status = {"c": "complete", "n": "legal_noncompletion", "i": "illegal"}[plan[0]]
                L = plan[1]
                done = status == "complete"
                rows.append(
                    {
                        "board_id": bid,
                        "condition": cond,
                        "trial": t,
                        "cohort": cohort,
                        "k": k,
                        "layout": f"k{k}",
                        "depth": depth,
                        "L": L,
                        "status": status,
                        "error_kind": plan[2] if len(plan) > 2 else "",
                        "parse_mode": plan[3] if len(plan) > 3 else "exact",
                        "multiple_moves": cond == "B" and bid == "b1" and t == 0,
                        "truncated": False,
                        "optimal": done and L == depth,
                        "economy": depth / L if done else np.nan,
                        "excess": float(L - depth) if done else np.nan,
                    }
                )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def verdicts():
    return hand_verdicts()


@pytest.fixture(scope="module")
def metrics(verdicts):
    return bootstrap_intervals(board_sums(verdicts), draws=200, seed=1, groupings=REPORT_GROUPINGS)


@pytest.fixture(scope="module")
def order(metrics):
    return tb.condition_order(metrics)


def row(table: tb.Table, condition: str, **where) -> pd.Series:
    f = table.frame
    mask = f["condition"] == condition
    for col, val in where.items():
        mask &= f[col] == val
    assert mask.sum() == 1
    return f[mask].iloc[0]


def test_condition_order_is_by_primary_spe(verdicts, order):
    assert order == ["Z", "O", "A", "B"]  # SPE 1.0, 0.9, 0.55, 0.30


def test_table1(metrics, order):
    t = tb.table1_primary(metrics, order)
    assert list(t.frame["condition"]) == order
    a = row(t, "A")
    assert a["N"] == 10
    assert a["R"] == pytest.approx(0.7) and a["Q"] == pytest.approx(0.6 / 0.7)
    assert a["E"] == pytest.approx(5.5 / 6) and a["G"] == pytest.approx(10 / 6) and a["SPE"] == pytest.approx(0.55)
    b = row(t, "B")
    assert b["Q"] == pytest.approx(0.4 / 0.7) and b["E"] == pytest.approx(0.75) and b["G"] == pytest.approx(7.5)
    assert b["SPE"] == pytest.approx(0.3)
    for _, r in t.frame.iterrows():  # SPE = R x Q x E
        assert r["SPE"] == pytest.approx(r["R"] * r["Q"] * r["E"])
    # Section 3.3: A completes b1 twice, b2 twice (d* 10), b3 once (d* 20), b4 once (d* 10) -> 70/6
    assert a["Dc"] == pytest.approx(70 / 6)
    for m in ("R", "SPE", "Dc"):  # intervals ride along for the CSV, hidden in Markdown unless asked
        assert a[f"{m}_lo"] <= a[m] <= a[f"{m}_hi"]
    assert "_lo" not in render.to_markdown(t) and "[" not in render.to_markdown(t).split("\n", 2)[2]
    cells = tb.table1_primary(metrics, order, interval_cells=True).formatted().set_index("condition")
    assert cells.loc["A", "SPE"] == f"0.550 [{a['SPE_lo']:.3f}, {a['SPE_hi']:.3f}]"
    assert cells.loc["A", "N"] == "10"


def test_table2_outcomes_partition(verdicts, order):
    t = tb.table2_outcomes(verdicts, order)
    a, b = row(t, "A"), row(t, "B")
    assert (a["complete_optimal"], a["complete_not_optimal"], a["legal_noncompletion"]) == (5, 1, 1)
    assert (a["illegal_boundary"], a["illegal_obstacle"], a["illegal_invalid_action"], a["illegal_format"]) == (
        1,
        1,
        0,
        1,
    )
    assert (b["complete_optimal"], b["complete_not_optimal"], b["legal_noncompletion"]) == (2, 2, 3)
    assert (b["illegal_boundary"], b["illegal_obstacle"], b["illegal_invalid_action"], b["illegal_format"]) == (
        2,
        0,
        1,
        0,
    )
    parts = t.frame.drop(columns=["condition", "total"]).sum(axis=1)
    assert (parts == t.frame["total"]).all() and (t.frame["total"] == 10).all()


def test_table3_rates(metrics, order):
    a = row(tb.table3_rates(metrics, order), "A")
    assert (a["C_pct"], a["O_pct"], a["I_pct"]) == pytest.approx((60.0, 50.0, 30.0))
    b = row(tb.table3_rates(metrics, order), "B")
    assert (b["C_pct"], b["O_pct"], b["I_pct"]) == pytest.approx((40.0, 20.0, 30.0))


def test_table4_averages_depths_equally(metrics, order):
    t = tb.table4_blocks(metrics, order)
    a, b = row(t, "A"), row(t, "B")
    # A, k=0: d10 has 4/4 complete (2 boards), d20 1/2 -> (100 + 50) / 2 = 75, not the pooled 5/6
    assert a["k=0"] == pytest.approx(75.0) and a["k=1"] == pytest.approx(25.0)
    assert b["k=0"] == pytest.approx(12.5) and b["k=1"] == pytest.approx(75.0)
    assert list(t.frame.columns) == ["condition", "k=0", "k=1"]


def test_table5_stress(metrics, order):
    t = tb.table5_stress(metrics, order)
    assert set(t.frame["cohort"]) == {"stress"}
    a, b = row(t, "A"), row(t, "B")
    assert (a["N"], a["C"], a["R"], a["Q"], a["E"], a["G"], a["SPE"]) == pytest.approx(
        (2, 0.5, 1.0, 0.5, 0.5, 50.0, 0.25)
    )
    assert b["C"] == 0 and b["R"] == 0 and b["SPE"] == 0
    assert math.isnan(b["Q"]) and math.isnan(b["E"]) and math.isnan(b["G"])
    assert "n/a" in render.to_markdown(t)


def test_h90(metrics, order):
    t = tb.h90_table(metrics, order)
    h = dict(zip(t.frame["condition"], t.frame["H.9"]))
    assert h["Z"] == 20 and h["O"] == 10  # O: d10 all complete, d20 3/4
    assert h["A"] is pd.NA and h["B"] is pd.NA  # A: d10 5/6 < 90%
    assert row(t, "A")["C_pct_d10"] == pytest.approx(500 / 6)
    assert tb.h_threshold(pd.Series({10: 0.95, 20: 0.8, 30: 0.99})) == 10  # stops at the first failure
    assert tb.h_threshold(pd.Series({30: 0.9, 10: 0.91, 20: 0.92})) == 30
    assert tb.h_threshold(pd.Series({10: np.nan, 20: 1.0})) is None


def test_h90_an_untested_length_does_not_qualify(verdicts):
    # Z completes everything it answers, but gives no output at depth 20; only it answers a depth-30 board
    z30 = verdicts[(verdicts["condition"] == "Z") & (verdicts["board_id"] == "b1")].assign(
        board_id="b6", depth=30, L=30
    )
    v = pd.concat([verdicts[~((verdicts["condition"] == "Z") & (verdicts["depth"] == 20))], z30], ignore_index=True)
    t = tb.h90_table(bootstrap_intervals(board_sums(v), draws=50, seed=1, groupings=REPORT_GROUPINGS), ["Z", "O"])
    assert t.frame["H.9"].tolist() == [10, 10]  # not 30: depth 20 is a tested length Z did not answer
    assert math.isnan(row(t, "Z")["C_pct_d20"]) and row(t, "Z")["C_pct_d30"] == 100.0
    assert math.isnan(row(t, "O")["C_pct_d30"])
    assert tb.h_threshold(pd.Series({10: 1.0, 20: np.nan, 30: 1.0})) == 10


def test_by_depth_and_format_audit(verdicts, metrics, order):
    d = tb.depth_table(metrics, order)
    r = d.frame[(d.frame["cohort"] == "primary") & (d.frame["depth"] == 20) & (d.frame["condition"] == "B")].iloc[0]
    # B at depth 20: b3 two illegal, b5 one noncompletion and one complete L=40
    assert (r["N"], r["R"], r["Q"], r["E"], r["G"], r["SPE"]) == pytest.approx((4, 0.5, 0.5, 0.5, 20.0, 0.125))
    f = tb.format_audit(verdicts, order)
    a, b = row(f, "A"), row(f, "B")
    assert (a["N"], a["exact"], a["normalized"], a["no_plan"]) == (12, 11, 0, 1)
    assert (b["N"], b["exact"], b["normalized"], b["no_plan"], b["multiple_moves"]) == (12, 11, 1, 0, 1)


def test_table6_from_intervals(verdicts, metrics, order):
    t = tb.table6_intervals(metrics, order)
    assert list(t.frame["condition"]) == [c for c in order for _ in range(6)]
    assert list(t.frame["metric"][:6]) == ["R", "Q", "E", "G", "SPE", "Dc"]
    a_spe = row(t, "A", metric="SPE")
    assert a_spe["estimate"] == pytest.approx(0.55) and a_spe["lo"] <= 0.55 <= a_spe["hi"]
    assert row(t, "Z", metric="E")["draws_used"] == 200
    tables = tb.paper_tables(verdicts, metrics, order)
    assert [x.name for x in tables] == [
        "table1_primary",
        "table2_outcomes",
        "table3_rates",
        "table4_blocks",
        "table5_stress",
        "table6_intervals",
        "by_depth",
        "h90",
        "format_audit",
    ]
    labelled = tb.paper_tables(verdicts, metrics, order, labels={"A": "Model A", "Z": "Zed"})
    assert list(labelled[0].frame["condition"]) == ["Zed", "O", "Model A", "B"]
    assert all("A" not in set(t.frame["condition"]) for t in labelled if "condition" in t.frame.columns)


def test_exports(tmp_path, verdicts, metrics, order):
    t = tb.table5_stress(metrics, order)
    md = render.to_markdown(t).splitlines()
    assert md[0].startswith("**Table 5: ")
    assert md[2] == "| cohort | condition | N | C | R | Q | E | G | SPE | Dc |"
    assert md[3] == "|:---|:---|---:|---:|---:|---:|---:|---:|---:|---:|"
    assert "| stress | A | 2 | 0.500 | 1.000 | 0.500 | 0.500 | 50.00 | 0.250 | 50.0 |" in md
    tex = render.to_latex(tb.h90_table(metrics, order))
    assert r"\begin{tabular}{lrrr}" in tex and r"$C$ (\%), $d^*=10$" in tex and r"$\geq 90\%$" in tex
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex and r"\hline" not in tex
    assert r"\caption{Reliable horizon $H_{.9}$. The largest primary depth" in tex and r"\label{tab:h90}" in tex
    assert r"A & n/a & 83.3 & 25.0 \\" in tex
    tex1 = render.to_latex(tb.table1_primary(metrics, order))
    assert r"\caption{Primary results pooled over $d^* \in$ \{10, 20\}. Cohort primary:" in tex1
    assert "Table 1:" not in tex1  # LaTeX numbers it
    assert r"SPE $= R \times Q \times E$" in tex1 and r"$\bar{d}^*_c$" in tex1
    assert render.to_markdown(tb.table1_primary(metrics, order)).startswith(
        r"**Table 1: Primary results pooled over d\* ∈ {10, 20}.** Cohort primary:"
    )
    assert "SPE = R × Q × E" in render.to_markdown(tb.table1_primary(metrics, order))
    assert render.latex_escape("a_b & 5% {x}") == r"a\_b \& 5\% \{x\}"
    paths = render.write_table_files(t, tmp_path / "tables")
    assert [p.name for p in paths] == ["table5_stress.csv", "table5_stress.md", "table5_stress.tex"]
    back = pd.read_csv(paths[0])
    np.testing.assert_array_equal(back["SPE"].to_numpy(), t.frame["SPE"].to_numpy())  # full precision
    assert paths[1].read_text() == render.to_markdown(t)


def test_headings_are_the_papers_titles(verdicts, metrics, order):
    tables = {t.name: t for t in tb.paper_tables(verdicts, metrics, order)}
    assert {name: render.heading_text(t) for name, t in tables.items()} == {
        "table1_primary": "Table 1: Primary results pooled over d* ∈ {10, 20}",
        "table2_outcomes": "Table 2: Mutually exclusive primary outcomes",
        "table3_rates": "Table 3: Primary completion, optimal completion and illegal-plan percentages",
        "table4_blocks": "Table 4: Primary completion percentages by block count",
        "table5_stress": "Table 5: Separate stress cohort",
        "table6_intervals": "Table 6: Primary 95% percentile intervals",
        "by_depth": "Results by certified depth",
        "h90": "Reliable horizon H.9",
        "format_audit": "Format audit",
    }
    for t in tables.values():  # a percent sign is one in every target (was "\\%" in Markdown, \textbackslash in LaTeX)
        assert "\\%" not in render.to_markdown(t) and r"\textbackslash" not in render.to_latex(t)
        assert render.caption_text(t).startswith(render.heading_text(t) + ". ")


def test_a_table_with_no_rows_says_why(metrics, order):
    t = tb.table5_stress(metrics[metrics["cohort"] == "primary"], order)
    assert t.frame.empty and list(t.frame.columns)[:3] == ["cohort", "condition", "N"]  # the CSV keeps its header
    why = "No rows: the bank has no cohort besides primary, so there is no stress cohort to report."
    md = render.to_markdown(t)
    assert (
        md == f"**Table 5: Separate stress cohort.** Every cohort besides primary, pooled over its depths and "
        f"never with primary.\n\n*{why}*\n"
    )
    tex = render.to_latex(t)
    assert rf"\emph{{{why}}}" in tex and r"\begin{tabular}" not in tex and r"\midrule" not in tex
    assert tex.count(r"\begin{table}") == tex.count(r"\end{table}") == 1
    from fastspe.report.page import html_table, md_section

    assert f"<p><i>{why}</i></p>" in html_table(t) and "<table" not in html_table(t)
    section = md_section(t)
    assert section.startswith("### Table 5: Separate stress cohort\n") and "|" not in section
    assert "`tables/table5_stress.csv` (a header and no rows)" in section
    plain = tb.Table("x", "A caption.", pd.DataFrame({"v": []}))
    assert render.to_markdown(plain) == "**A caption.**\n\n*No rows.*\n"


def test_pipes_in_names_are_escaped():
    t = tb.Table("x", "cap", pd.DataFrame({"condition": ["a|b"], "v": [float("nan")]}), {"v": ".2f"})
    assert r"| a\|b | n/a |" in render.to_markdown(t)


def test_bad_verdicts(verdicts):
    with pytest.raises(ValueError, match="lack columns"):
        tb.check_table_inputs(verdicts.drop(columns=["error_kind"]))
    with pytest.raises(ValueError, match="empty"):
        tb.check_table_inputs(verdicts.iloc[:0])
    with pytest.raises(TypeError):
        tb.check_table_inputs([1, 2])


def test_user_text_is_literal_in_latex():
    assert render.latex_escape("a_b & 50%\n\x07$x$") == r"a\_b \& 50\%  \$x\$"


def test_user_text_in_captions_is_never_math_or_markup(metrics, order):
    odd = "co_ho$rt «x» \\ *"
    t = tb.Table(
        "t", "«cohort» cohort, $R \\times Q$.", pd.DataFrame({"condition": ["a"]}), number="1", values={"cohort": odd}
    )
    tex = render.to_latex(t)
    assert r"\caption{co\_ho\$rt «x» \textbackslash{} * cohort, $R \times Q$.}" in tex
    md = render.to_markdown(t)
    assert md.startswith(r"**Table 1: co\_ho\$rt «x» \\ \* cohort, R × Q.**")


@pytest.mark.parametrize("mark", ["\u202e", "\u2066", "\x9b"])
def test_bidi_overrides_and_c1_controls_in_a_name_are_spaces_in_markdown_and_latex(mark):
    from fastspe.report.render import latex_escape, markdown_text

    name = f"model{mark}reversed"
    assert markdown_text(name) == "model reversed"
    assert latex_escape(name) == "model reversed"
