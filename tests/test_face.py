"""The front door: ``import fastspe`` offers the researcher's verbs, light to import, seen by ``dir()`` and type
checkers as the real objects, each refusing a wrong type with one line that names the parameter."""

import ast
import importlib
import importlib.util
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

import fastspe
from fastspe import _names

ROOT = Path(__file__).resolve().parents[1]
VERBS = {
    "solve",
    "build_bank",
    "read_bank",
    "write_bank",
    "load_bank",
    "baseline_responses",
    "read_responses",
    "score_responses",
    "score_file",
    "read_verdicts",
    "write_verdicts",
    "compute_metrics",
    "board_sums",
    "bootstrap_intervals",
    "compare",
    "write_report",
    "RewardScorer",
    "reward",
    "domain_names",
}
FACES = [
    "fastspe",
    "fastspe.stats",
    "fastspe.report",
    "fastspe.scoring",
    "fastspe.verify",
    "fastspe.runners",
    "fastspe.domains",
    "fastspe.protocols",
    "fastspe.domains.sliding",
    "fastspe.domains.sliding.bank",
    "fastspe.domains.sliding.planners",
    "fastspe.hub",
]


def test_dir_lists_the_verbs():
    assert VERBS <= set(dir(fastspe))
    assert set(dir(fastspe)) == set(fastspe.__all__)


@pytest.mark.parametrize("face", FACES)
def test_every_name_of_a_face_resolves_quietly_and_dir_lists_them(face):
    module = importlib.import_module(face)
    assert sorted(dir(module)) == sorted(module.__all__)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in module.__all__:
            assert getattr(module, name) is not None, (face, name)


@pytest.mark.parametrize("face", FACES)
def test_no_face_name_is_a_module_of_its_package(face):
    """Importing a submodule sets it as the package's attribute of that name: a face name that is also a module's
    (``fastspe.stats.compare``) would be the module once anything imported it, not the name the face offers."""
    import pkgutil

    module = importlib.import_module(face)
    assert not set(module.__all__) & {m.name for m in pkgutil.iter_modules(module.__path__)}


def _type_checking_names(path: Path) -> dict[str, str]:
    """name -> module (relative, as the face's map writes it) of a face's ``if TYPE_CHECKING:`` imports."""
    found = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.level == 1:
                    found.update({a.name: stmt.module for a in stmt.names})
    return found


@pytest.mark.parametrize("face", FACES)
def test_what_type_checkers_see_is_what_the_face_gives(face):
    """The ``TYPE_CHECKING`` imports name the same objects, from the same modules, as the lazy map: a name added to
    one and not the other fails here."""
    module = importlib.import_module(face)
    lazy = getattr(module, "_LAZY", None) or module._NAMES
    seen = _type_checking_names(Path(module.__file__))  # (and what annotations need, which the face does not offer)
    assert {name: where for name, where in seen.items() if name in module.__all__} == lazy
    assert set(lazy) <= set(module.__all__)


def test_import_fastspe_stays_light():
    code = (
        "import sys, fastspe\nnames = dir(fastspe)\n"
        "heavy = [m for m in ('numba', 'pandas', 'pyarrow', 'matplotlib') if m in sys.modules]\n"
        "assert not heavy, heavy\nprint(len(names))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.fixture(scope="module")
def small():
    bank = fastspe.build_bank("paper")
    answers = pd.concat(
        [fastspe.baseline_responses(bank, planner, trials=1, seed=3) for planner in ("greedy", "random")]
    )
    return bank, fastspe.score_responses(bank, answers)


def test_build_bank_is_the_domains_own_build():
    from fastspe.domains.sliding.bank import build_bank, paper_design

    ours, theirs = fastspe.build_bank("paper", seed=11), build_bank(paper_design(seed=11))
    pd.testing.assert_frame_equal(ours, theirs)
    assert ours.attrs == {"fastspe.domain": "sliding"}


def test_solve_takes_the_domains_solve_options_and_names_a_wrong_one():
    answer = fastspe.solve(board="1 2 3 4 0 -1 5 6 7 8 -1 9 10 11 12 13", blocks=[5, 10], heuristic="layout")
    assert answer["length"] == len(answer["moves"]) and answer["blocks"] == [5, 10]
    with pytest.raises(
        fastspe.UserTypeError, match="^bord is not a solve option of the sliding domain; it takes board"
    ):
        fastspe.solve(bord=[1, 2, 3, 0])


def test_intervals_straight_from_verdicts_equal_those_from_board_sums(small):
    _, verdicts = small
    direct = fastspe.bootstrap_intervals(verdicts, draws=100, seed=1)
    pd.testing.assert_frame_equal(direct, fastspe.bootstrap_intervals(fastspe.board_sums(verdicts), draws=100, seed=1))


@pytest.mark.parametrize(
    "call, parameter",
    [
        (lambda bank, verdicts: fastspe.bootstrap_intervals(bank, verdicts), "draws"),
        (lambda bank, verdicts: fastspe.bootstrap_intervals([1, 2]), "sums"),
        (lambda bank, verdicts: fastspe.bootstrap_intervals(verdicts, draws="many"), "draws"),
        (lambda bank, verdicts: fastspe.baseline_responses(bank, verdicts), "planner"),
        (lambda bank, verdicts: fastspe.build_bank(verdicts), "design"),
        (lambda bank, verdicts: fastspe.build_bank(domain=bank), "domain"),
        (lambda bank, verdicts: fastspe.score_responses([bank], verdicts), "bank"),
        (lambda bank, verdicts: fastspe.score_responses(bank, "answers.jsonl"), "responses"),
        (lambda bank, verdicts: fastspe.score_file(bank, verdicts, "verdicts.parquet"), "responses"),
        (lambda bank, verdicts: fastspe.score_file(bank, "answers.jsonl", verdicts), "out"),
        (lambda bank, verdicts: fastspe.compute_metrics("verdicts.parquet"), "verdicts"),
        (lambda bank, verdicts: fastspe.compute_metrics(bank, verdicts), "by"),
        (lambda bank, verdicts: fastspe.board_sums(None), "verdicts"),
        (lambda bank, verdicts: fastspe.compare(verdicts, 3), "baseline"),
        (lambda bank, verdicts: fastspe.compare("verdicts.parquet", "baseline:greedy"), "verdicts"),
        (lambda bank, verdicts: fastspe.write_report(bank, "verdicts.parquet", "report"), "verdicts"),
        (lambda bank, verdicts: fastspe.write_report(bank, verdicts, bank), "out_dir"),
        (lambda bank, verdicts: fastspe.read_bank(bank), "path"),
        (lambda bank, verdicts: fastspe.load_bank(3), "path"),
        (lambda bank, verdicts: fastspe.write_bank(bank, bank), "path"),
        (lambda bank, verdicts: fastspe.read_responses(verdicts), "path"),
        (lambda bank, verdicts: fastspe.read_verdicts(verdicts), "path"),
        (lambda bank, verdicts: fastspe.write_verdicts("verdicts.parquet", verdicts), "path"),
        (lambda bank, verdicts: fastspe.RewardScorer("bank.parquet"), "bank"),
        (lambda bank, verdicts: fastspe.reward(bank, "id", "MOVES: U"), "board_ids"),
        (lambda bank, verdicts: fastspe.solve(domain=bank), "domain"),
    ],
)
def test_a_wrong_type_is_one_line_naming_the_parameter(small, call, parameter):
    bank, verdicts = small
    with pytest.raises(fastspe.UserTypeError) as caught:
        call(bank, verdicts)
    text = str(caught.value)
    assert text.startswith(f"{parameter} must be "), text
    assert "\n" not in text and len(text) < 200, text
    assert isinstance(caught.value, TypeError)


def test_the_helpers_that_left_a_face_warn_and_are_the_same_object():
    for face, names in _names.MOVED_NAMES.items():
        if face not in ("fastspe.stats", "fastspe.report", "fastspe.scoring", "fastspe.runners"):
            continue
        module = importlib.import_module(face)
        for name, home in names.items():
            with pytest.warns(DeprecationWarning, match=f"{face}.{name} moved to"):
                got = getattr(module, name)
            assert got is getattr(importlib.import_module(home.partition(":")[0]), name)
            assert name not in module.__all__


def _mypy(*args: str) -> subprocess.CompletedProcess:
    if importlib.util.find_spec("pandas-stubs") is None and importlib.util.find_spec("pandas_stubs") is None:
        stubs = any((Path(p) / "pandas-stubs").is_dir() for p in sys.path)
        if not stubs and os.environ.get("CI") != "true":
            pytest.skip("pandas-stubs is not installed (pip install -e '.[test]')")
    return subprocess.run([sys.executable, "-m", "mypy", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_mypy_passes_on_the_public_faces():
    done = _mypy()  # [tool.mypy] in pyproject.toml names the faces
    assert done.returncode == 0, done.stdout[-4000:]


@pytest.mark.slow
def test_a_script_using_every_verb_has_no_any_from_fastspe():
    done = _mypy("--strict", "--disallow-any-expr", "tests/typing/use_every_verb.py")
    assert done.returncode == 0, done.stdout[-4000:]


@pytest.mark.slow
def test_mypy_finds_a_verb_called_with_the_wrong_type(tmp_path):
    """The checks above can fail: a call with a wrong type, and a name the face does not have, are errors."""
    probe = ROOT / "tests" / "typing" / "_probe_wrong.py"
    probe.write_text("import fastspe\n\nfastspe.bootstrap_intervals(None, draws='many')\nfastspe.no_such_verb()\n")
    try:
        done = _mypy("--strict", str(probe.relative_to(ROOT)))
    finally:
        probe.unlink()
    assert done.returncode == 1
    assert 'Argument "draws" to "bootstrap_intervals" has incompatible type' in done.stdout
    assert 'has no attribute "no_such_verb"' in done.stdout


def test_every_parquet_file_names_the_fastspe_that_wrote_it(small, tmp_path):
    """A verdicts file's ``fastspe_version`` column is the runner's (what ran each trial); the file's metadata names
    the fastspe that wrote it (the scorer), so files of different releases can be told apart."""
    import pyarrow.parquet as pq

    from fastspe.boundary.parquet import VERSION_KEY

    bank, verdicts = small
    fastspe.write_bank(bank, tmp_path / "bank.parquet")
    fastspe.write_verdicts(verdicts, tmp_path / "verdicts.parquet")
    for name in ("bank.parquet", "verdicts.parquet"):
        meta = pq.read_metadata(tmp_path / name).metadata
        assert meta[VERSION_KEY].decode() == fastspe.__version__ != "0.1.0"
    fastspe.read_bank(tmp_path / "bank.parquet")  # the digest still holds
    fastspe.read_verdicts(tmp_path / "verdicts.parquet", bank=bank)


def test_the_version_is_the_packages():
    import tomllib

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert fastspe.__version__ == version != "0.1.0"
    assert f"## [{version}]" in (ROOT / "CHANGELOG.md").read_text()
