"""The house as drawn: subpackages by concept, imports only downward, the boundary the only door.

These read the package's own source (``ast``), so a change that breaks the layout fails here with the
module and line, before a reviewer has to spot it.
"""

import ast
import importlib
import importlib.util
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from fastspe import _names
from fastspe.boundary.prompt_hashes import CHECK_KEY

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "fastspe"
TOP_EXEMPT = {"__init__.py", "__main__.py", "_numba.py"}
MAX_TOP_MODULES = 8
# A module's length in ruff-formatted lines. The cap was 500 in the house's compact style; adopting `ruff format`
# (0.2.0) grew fastspe/ by 14% (32.6k to 37.2k lines) and its longest modules by up to 30%, with no new code, so the
# cap grew with the line count rather than splitting ten modules for the formatter's sake.
MAX_LINES = 650
# Calls that open, read or write a file; only fastspe/boundary/ may make them (calling the boundary's own
# readers and writers is the point, so names like ``write_table`` count only on pyarrow or pandas).
FILE_METHODS = {
    "open",
    "read_text",
    "write_text",
    "read_bytes",
    "write_bytes",
    "savefig",
    "to_parquet",
    "to_csv",
    "to_json",
    "fdopen",
    "mmap",
}
FILE_MODULES = {"pq", "pj", "pa_csv", "pd", "json", "shutil", "tempfile", "os"}  # only their file functions, below
MODULE_FILE_CALLS = {
    "read_table",
    "write_table",
    "ParquetFile",
    "ParquetWriter",
    "read_json",
    "read_csv",
    "read_parquet",
    "open_csv",
    "load",
    "dump",
    "copyfile",
    "copy",
    "move",
    "rmtree",
    "NamedTemporaryFile",
    "mkstemp",
    "TemporaryDirectory",
    "replace",
    "rename",
    "remove",
    "unlink",
    "fsync",
    "open",
    "fdopen",
}


def modules():
    return sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)


def test_few_modules_at_the_top():
    top = sorted(p.name for p in PKG.glob("*.py") if p.name not in TOP_EXEMPT)
    assert len(top) <= MAX_TOP_MODULES, top


def test_no_module_over_the_limit():
    long = {str(p.relative_to(ROOT)): n for p in modules() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long


def _file_calls(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id == "open":
            yield node.lineno, "open"
        elif isinstance(f, ast.Attribute):
            owner = f.value.id if isinstance(f.value, ast.Name) else None
            if owner in FILE_MODULES:
                if f.attr in MODULE_FILE_CALLS:
                    yield node.lineno, f"{owner}.{f.attr}"
            elif f.attr in FILE_METHODS and owner not in ("re", "str", "text", "s", "name", "line"):
                yield node.lineno, f.attr


def _opens_files(path: Path) -> bool:
    """Where files may be opened: the boundary; a module named for the files it keeps beside its only consumer
    (``*_files.py``, ``*_store.py``: a domain's level files or pattern tables); _numba reads fastspe's own kernel
    sources to stamp its cache (code, not data); workers hands its processes what all tasks read through a private
    temporary folder (scratch of its own, not data)."""
    parts = set(path.relative_to(PKG).parts)
    return bool({"boundary", "_numba", "workers"} & parts) or path.stem.endswith(("_files", "_store"))


def test_the_boundary_is_the_only_door():
    outside = [
        f"{p.relative_to(ROOT)}:{line}: {call}"
        for p in modules()
        if not _opens_files(p)
        for line, call in _file_calls(p)
    ]
    assert not outside, "\n".join(outside)


# ---- the domains -----------------------------------------------------------------------------------------------

DOMAINS = PKG / "domains"
BUILT_IN = sorted(p.name for p in DOMAINS.iterdir() if (p / "__init__.py").is_file())


def _imported_modules(path: Path):
    """(line, absolute module) of every import in a module of the package, relative ones resolved."""
    package = ".".join(("fastspe", *path.relative_to(PKG).with_suffix("").parts))
    if path.name != "__init__.py":
        package = package.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield node.lineno, module
            yield from ((node.lineno, f"{module}.{a.name}") for a in node.names)


def _docstrings(tree) -> set[int]:
    """ids of the docstring nodes of a module tree (prose, which may cite a domain as an example)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _names_a_domain(path: Path) -> list[str]:
    """Where a module's code names a built-in domain: an import of its folder, a string (not a docstring), an
    identifier or attribute that holds its name."""
    tree = ast.parse(path.read_text())
    prose = _docstrings(tree)
    words = re.compile(r"\b(" + "|".join(map(re.escape, BUILT_IN)) + r")\b", re.I)
    found = [
        f"{line}: imports {module}"
        for line, module in _imported_modules(path)
        if any(module == f"fastspe.domains.{d}" or module.startswith(f"fastspe.domains.{d}.") for d in BUILT_IN)
    ]
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            if words.search(node.value):
                found.append(f"{node.lineno}: the string {node.value[:60]!r}")
        elif isinstance(node, ast.Name) and words.search(node.id.replace("_", " ")):
            found.append(f"{node.lineno}: the name {node.id}")
        elif isinstance(node, ast.Attribute) and words.search(node.attr.replace("_", " ")):
            found.append(f"{node.lineno}: the attribute {node.attr}")
    return found


def test_the_built_in_domains_are_found():
    assert BUILT_IN == ["sliding", "sokoban"]


def test_no_file_outside_the_domains_names_one():
    """The shared layers reach a domain through the contract only: no import of a domain's folder, no comparison
    with its name, no string or identifier that names it (``_names`` keeps the old module paths of moved code)."""
    shared = [p for p in modules() if DOMAINS not in p.parents and p.name != "_names.py"]
    assert len(shared) > 100
    found = [f"{p.relative_to(ROOT)}:{where}" for p in shared for where in _names_a_domain(p)]
    assert not found, "\n".join(found)


def test_the_check_of_names_finds_them(tmp_path):
    """The test above can fail: a module that names a domain in each of the ways it looks for is caught."""
    probe = PKG / "report" / "_probe_names_a_domain.py"
    probe.write_text(
        '"""A docstring may say sokoban."""\nfrom ..domains.sokoban import level\nx = "sliding"\n'
        'if domain.name == "sokoban":\n    pass\nsokoban_levels = 1\n'
    )
    try:
        found = _names_a_domain(probe)
    finally:
        probe.unlink()
    assert [f.split(": ", 1)[1].split(" ", 1)[0] for f in found] == ["imports", "imports", "the", "the", "the"]


def test_domains_are_independent_folders():
    """No domain folder imports another one, whatever domains there are (import-linter lists today's)."""
    found = []
    for name in BUILT_IN:
        for path in sorted((DOMAINS / name).rglob("*.py")):
            for line, module in _imported_modules(path):
                other = next(
                    (
                        d
                        for d in BUILT_IN
                        if d != name
                        and (module == f"fastspe.domains.{d}" or module.startswith(f"fastspe.domains.{d}."))
                    ),
                    None,
                )
                if other:
                    found.append(f"{path.relative_to(ROOT)}:{line}: imports {module}")
    assert not found, "\n".join(found)


def test_no_module_is_named_after_a_domain():
    named = [
        str(p.relative_to(ROOT))
        for p in modules()
        if any(p.stem.startswith((f"{d}_", f"{d}")) and p.stem != d for d in BUILT_IN)
    ]
    assert not named


def test_no_private_name_crosses_modules():
    crossing = []
    for p in modules():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("fastspe")):
                crossing += [
                    f"{p.relative_to(ROOT)}:{node.lineno}: {a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__") and a.name != "_names"
                ]
    assert not crossing, "\n".join(crossing)


LINT_IMPORTS = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")


@pytest.mark.skipif(LINT_IMPORTS is None, reason="import-linter is not installed (it is in the test extra)")
def test_import_contracts_hold():
    done = subprocess.run([LINT_IMPORTS, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:]


METADATA_KEYS = {"fastspe.domain", CHECK_KEY}  # file metadata keys README names, not module paths


FACES = (
    "fastspe",
    "fastspe.stats",
    "fastspe.report",
    "fastspe.scoring",
    "fastspe.verify",
    "fastspe.runners",
    "fastspe.domains",
    "fastspe.protocols",
    "fastspe.prompting",
    "fastspe.domains.sliding",
    "fastspe.domains.sliding.bank",
    "fastspe.domains.sliding.planners",
    "fastspe.domains.sokoban",
    "fastspe.hub",
)


def test_every_face_name_in_readme_resolves():
    """The faces are the contract (module paths below them are not): every ``fastspe.FACE.name`` README names is a
    name its face offers, with no warning."""
    paths = set(re.findall(r"\bfastspe(?:\.[A-Za-z_][A-Za-z0-9_]*)+", (ROOT / "README.md").read_text())) - METADATA_KEYS
    named = [
        (face, path[len(face) + 1 :])
        for path in sorted(paths)
        for face in [max((f for f in FACES if path.startswith(f + ".")), key=len, default=None)]
        if face is not None and "." not in path[len(face) + 1 :]
    ]
    assert len(named) > 3
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for face, name in named:
            module = importlib.import_module(face)
            if importlib.util.find_spec(f"{face}.{name}") is None:  # a name, not a module below the face
                assert name in module.__all__ and getattr(module, name) is not None, f"README names {face}.{name}"


@pytest.mark.slow
@pytest.mark.parametrize("old,new", sorted(_names.MOVED.items()))
def test_old_paths_warn_and_give_the_same_module(old, new):
    code = (
        f"import warnings, importlib\nwarnings.simplefilter('error', DeprecationWarning)\n"
        f"try:\n    importlib.import_module({old!r})\nexcept DeprecationWarning as w:\n    print(w)\n"
        f"warnings.simplefilter('ignore')\nassert importlib.import_module({old!r}) is importlib.import_module({new!r})\n"
        f"print('same')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{old} moved to {new}" in done.stdout and done.stdout.rstrip().endswith("same")


@pytest.mark.parametrize(
    "old,name,new",
    [
        ("fastspe.bank", "build_bank", "fastspe.domains.sliding.bank"),
        ("fastspe.planners", "solve", "fastspe.domains.sliding.planners"),
    ],
)
def test_a_gone_package_gives_its_names_with_a_warning(old, name, new):
    code = (
        f"import warnings, importlib\nwarnings.simplefilter('error', DeprecationWarning)\n"
        f"mod = importlib.import_module({old!r})\n"  # the gone package itself imports quietly
        f"try:\n    getattr(mod, {name!r})\nexcept DeprecationWarning as w:\n    print(w)\n"
        f"warnings.simplefilter('ignore')\n"
        f"assert getattr(mod, {name!r}) is getattr(importlib.import_module({new!r}), {name!r})\nprint('same')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{old}.{name} moved to {new}.{name}" in done.stdout and done.stdout.rstrip().endswith("same")


def test_old_attribute_path_warns():
    code = (
        "import warnings, fastspe, importlib\nwith warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n    old = fastspe.tables\n"
        "assert old is importlib.import_module('fastspe.report.tables')\nprint(w[0].message)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "fastspe.tables moved to fastspe.report.tables" in done.stdout


@pytest.mark.parametrize(
    "old,new",
    [
        ("fastspe.report.tables:to_markdown", "fastspe.report.render:to_markdown"),
        ("fastspe.report.tables:check_verdicts", "fastspe.report.tables:check_table_inputs"),
        ("fastspe.scoring.score:read_verdicts", "fastspe.boundary.verdict_files:read_verdicts"),
        ("fastspe.boundary.verdicts:read_verdicts", "fastspe.boundary.verdict_files:read_verdicts"),
    ],
)
def test_names_that_left_a_module_warn_and_are_the_same_object(old, new):
    (old_module, old_name), (new_module, new_name) = old.split(":"), new.split(":")
    with pytest.warns(DeprecationWarning, match=f"{old_module}.{old_name} moved to {new_module}.{new_name}"):
        got = getattr(importlib.import_module(old_module), old_name)
    assert got is getattr(importlib.import_module(new_module), new_name)
    assert old_name not in importlib.import_module(old_module).__all__


def test_faces_resolve_every_name():
    for face in FACES:
        mod = importlib.import_module(face)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for name in mod.__all__:
                assert getattr(mod, name) is not None, (face, name)


def test_readme_python_imports_run():
    """Every ``from fastspe... import ...`` line of README's Python examples imports as written."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    lines = [
        ln.strip()
        for block in blocks
        for ln in block.splitlines()
        if re.match(r"\s*(from fastspe[\w.]* import|import fastspe)", ln)
    ]
    assert lines
    code = "import warnings\nwarnings.simplefilter('error', DeprecationWarning)\n" + "\n".join(lines)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
