"""Where names live: lazy package faces, and old module paths that keep working for one release.

Each subpackage's ``__init__`` is a face: ``__all__`` plus :func:`lazy_face`, so importing a package
loads a submodule (and numba or pandas) only when one of its names is first used.

fastspe 0.1 had its modules flat in ``fastspe/``; :data:`MOVED` maps each old path to its room, and
:class:`MovedModuleFinder` makes ``import fastspe.score`` (or ``from fastspe.score import x``) return
the very module ``fastspe.scoring.score`` with a :class:`DeprecationWarning` naming the new path.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from typing import Callable

# old path -> new path; removed in 0.3.0
MOVED = {
    # 0.2: each planning domain in one folder (fastspe.domains.sliding, fastspe.domains.sokoban)
    "fastspe.kernels.sokoban_replay": "fastspe.domains.sokoban.kernels.replay",
    "fastspe.kernels.sokoban_search": "fastspe.domains.sokoban.kernels.search",
    "fastspe.kernels.sokoban_walks": "fastspe.domains.sokoban.kernels.walks",
    "fastspe.bank.sokoban": "fastspe.domains.sokoban.bank",
    "fastspe.boundary.sokoban_banks": "fastspe.domains.sokoban.bank_table",
    "fastspe.boundary.level_files": "fastspe.domains.sokoban.level_files",
    "fastspe.planners.sokoban": "fastspe.domains.sokoban.solver",
    "fastspe.planners.sokoban_baselines": "fastspe.domains.sokoban.baselines",
    "fastspe.verify.sokoban_bank": "fastspe.domains.sokoban.verify.bank",
    "fastspe.verify.sokoban_replay": "fastspe.domains.sokoban.verify.replay",
    "fastspe.report.sokoban_viewer": "fastspe.domains.sokoban.viewer",
    "fastspe.cli.sokoban": "fastspe.domains.sokoban.commands",
    "fastspe.kernels.graph": "fastspe.domains.sliding.kernels.graph",
    "fastspe.kernels.walks": "fastspe.domains.sliding.kernels.walks",
    "fastspe.kernels.replay": "fastspe.domains.sliding.kernels.replay",
    "fastspe.kernels.search": "fastspe.domains.sliding.kernels.search",
    "fastspe.kernels.pdb": "fastspe.domains.sliding.kernels.pdb",
    "fastspe.kernels.pdb_sweep": "fastspe.domains.sliding.kernels.pdb_sweep",
    "fastspe.kernels.planners": "fastspe.domains.sliding.kernels.planners",
    "fastspe.kernels.bank_check": "fastspe.domains.sliding.kernels.bank_check",
    "fastspe.bank.design": "fastspe.domains.sliding.bank.design",
    "fastspe.bank.build": "fastspe.domains.sliding.bank.build",
    "fastspe.bank.search": "fastspe.domains.sliding.bank.search",
    "fastspe.bank.acceptance": "fastspe.domains.sliding.bank.acceptance",
    "fastspe.planners.solver": "fastspe.domains.sliding.planners.solver",
    "fastspe.planners.pdb": "fastspe.domains.sliding.planners.pdb",
    "fastspe.planners.pdb_packed": "fastspe.domains.sliding.planners.pdb_packed",
    "fastspe.planners.baselines": "fastspe.domains.sliding.planners.baselines",
    "fastspe.boundary.pattern_files": "fastspe.domains.sliding.planners.pattern_files",
    "fastspe.boundary.bank_frames": "fastspe.domains.sliding.bank.frames",
    "fastspe.boundary.bank_meaning": "fastspe.domains.sliding.bank.meaning",
    "fastspe.verify.bank": "fastspe.domains.sliding.verify.bank",
    "fastspe.verify.optimal": "fastspe.domains.sliding.verify.optimal",
    "fastspe.report.viewer": "fastspe.domains.sliding.viewer",
    "fastspe.report.retreat": "fastspe.domains.sliding.retreat_table",
    "fastspe.domains.base": "fastspe.domains.contract",
    # 0.1: flat modules into rooms
    "fastspe.layout": "fastspe.domains.sliding.layout",
    "fastspe.prompts": "fastspe.domains.sliding.prompt",
    "fastspe.io": "fastspe.boundary.files",
    "fastspe.bank_search": "fastspe.domains.sliding.bank.search",
    "fastspe.design": "fastspe.domains.sliding.bank.design",
    "fastspe.solver": "fastspe.domains.sliding.planners.solver",
    "fastspe.pdb": "fastspe.domains.sliding.planners.pdb",
    "fastspe.baselines": "fastspe.domains.sliding.planners.baselines",
    "fastspe.parse": "fastspe.scoring.parse_reference",
    "fastspe.parse_batch": "fastspe.scoring.parse_column",
    "fastspe.score": "fastspe.scoring.score",
    "fastspe.rewards": "fastspe.scoring.rewards",
    "fastspe.metrics": "fastspe.stats.metrics",
    "fastspe.intervals": "fastspe.stats.intervals",
    "fastspe.compare": "fastspe.stats.compare",
    "fastspe.history": "fastspe.stats.history",
    "fastspe.verify_bank": "fastspe.domains.sliding.verify.bank",
    "fastspe.verify_verdicts": "fastspe.verify.verdicts",
    "fastspe.report_page": "fastspe.report.page",
    "fastspe.tables": "fastspe.report.tables",
    "fastspe.table_render": "fastspe.report.render",
    "fastspe.figures": "fastspe.report.figures",
    "fastspe.labels": "fastspe.report.labels",
    "fastspe.trajectories": "fastspe.report.trajectories",
    "fastspe.retreat_tables": "fastspe.domains.sliding.retreat_table",
    "fastspe.run_stats": "fastspe.report.run_stats",
    "fastspe.generation": "fastspe.runners.generation",
    "fastspe.responses": "fastspe.boundary.responses",
}


# packages that are gone, whose modules moved one by one (``MOVED``) and whose face's names are found at the new face
# with a warning: importing the old package itself does not warn, only what is taken from it
MOVED_PACKAGES = {
    "fastspe.bank": "fastspe.domains.sliding.bank",
    "fastspe.planners": "fastspe.domains.sliding.planners",
}


def _at(module: str, names: str) -> dict[str, str]:
    """Each of the space-separated ``names`` -> ``module``."""
    return dict.fromkeys(names.split(), module)


# names that left a package's face -> their home ("module" or "module:new_name"), keyed by the face's module as it is
# now (``fastspe.planners`` is ``fastspe.domains.sliding.planners``); removed in 0.3.0
MOVED_NAMES = {
    "fastspe.verify": {
        "verify_bank": "fastspe.domains.sliding.verify.bank",
        "Optimality": "fastspe.domains.sliding.verify.optimal",
        "optimality": "fastspe.domains.sliding.verify.optimal",
        "check_prove_ids": "fastspe.domains.sliding.verify.optimal",
        "shorter_plan": "fastspe.domains.sliding.verify.optimal",
        "Board": "fastspe.domains.sliding.verify.replay",
        "bank_boards": "fastspe.domains.sliding.verify.replay",
        "replay": "fastspe.domains.sliding.verify.replay",
        "SokobanRoom": "fastspe.domains.sokoban.verify.replay",
        "SokobanBoard": "fastspe.domains.sokoban.verify.replay",
        "bank_levels": "fastspe.domains.sokoban.verify.replay",
        "replay_sokoban": "fastspe.domains.sokoban.verify.replay",
    },
    "fastspe.domains.sliding.planners": {
        "SOKOBAN_PLANNERS": "fastspe.domains.sokoban.baselines",
        "sokoban_planner_name": "fastspe.domains.sokoban.baselines",
        "sokoban_baseline_responses": "fastspe.domains.sokoban.baselines",
        "greedy_plan": "fastspe.domains.sokoban.baselines",
        "random_plan": "fastspe.domains.sokoban.baselines",
        "board_keys": "fastspe.domains.baselines",
    },
    "fastspe.domains.sliding.bank": {
        "read_bank": "fastspe.boundary.banks",
        "write_bank": "fastspe.boundary.banks",
        "bank_to_table": "fastspe.boundary.banks",
        "QuotaError": "fastspe.domains.designs",
    },
    "fastspe.report": {
        "bank_retreats": "fastspe.domains.sliding.retreat_table",
        "retreat_table": "fastspe.domains.sliding.retreat_table",
        # 0.2: helpers that left the face (the face keeps what a user calls)
        **_at("fastspe.report.write", "report_folder metrics_long display_names"),
        **_at("fastspe.report.tables", "condition_order primary_cohort check_table_inputs trajectory_table"),
        **_at(
            "fastspe.report.render",
            "markdown_text latex_escape caption_text heading_text "
            "markdown_rows caption_markdown caption_latex header_latex",
        ),
        **_at("fastspe.report.page", "method_text md_section html_table pages"),
        **_at(
            "fastspe.report.figures",
            "plain wrapped heat_scale heatmap_columns heatmap_figure bars_figure trajectory_figure trend_figure",
        ),
        **_at("fastspe.report.run_stats", "COLUMNS"),
    },
    # 0.2: helpers that left the faces (each face keeps what a user calls)
    "fastspe.stats": {
        **_at(
            "fastspe.stats.compare",
            "verdict sign_test_p bootstrap_p_values holm summary_json DEFAULT_METRICS "
            "DEFAULT_MARGIN REGRESSION IMPROVEMENT NO_CHANGE",
        ),
        **_at("fastspe.stats.history", "ParameterError store_path bank_hash"),
        **_at("fastspe.stats.intervals", "draw_indices draw_range"),
        **_at("fastspe.stats.protocol_effect", "tool_effect_json"),
        **_at("fastspe.stats.protocol_names", "UNAIDED condition_protocols"),
    },
    "fastspe.runners": {
        **_at("fastspe.runners.base", "api_key_from_env"),
        **_at("fastspe.runners.engine", "PROVIDERS RunRequest"),
        **_at("fastspe.runners.sender", "Sender"),
        **_at("fastspe.runners.log", "LogScan scan_run_log"),
        **_at("fastspe.runners.sample", "cell_quotas"),
    },
    "fastspe.scoring": {
        **_at("fastspe.scoring.parse_column", "MODE_EXACT MODE_NORMALIZED MODE_NO_PLAN ParsedColumn moves_strings"),
        **_at("fastspe.scoring.score", "bank_tables encode_moves"),
    },
    "fastspe": {},
}


def lazy_face(package: str, names: dict[str, str]):
    """A module ``__getattr__`` for ``package`` that imports ``names[attr]`` (a submodule, relative to
    the package) on first use of ``attr`` and returns its attribute of that name; a name that left the face
    (``MOVED_NAMES``) is found at its new home, with a ``DeprecationWarning``."""
    moved = moved_names(package, MOVED_NAMES.get(package, {}))

    def __getattr__(attr: str):
        module = names.get(attr)
        if module is None:
            return moved(attr)
        return getattr(importlib.import_module(f"{package}.{module}"), attr)

    return __getattr__


def face_dir(names: list[str]) -> Callable[[], list[str]]:
    """A module ``__dir__`` listing a face's public names (``dir()`` and completion see what ``__getattr__`` gives)."""

    def __dir__() -> list[str]:
        return sorted(names)

    return __dir__


def moved_names(module: str, names: dict[str, str]):
    """A module ``__getattr__`` for names that left ``module`` after 0.1: ``names`` maps each to its home,
    a module path (``"fastspe.report.render"``) or ``"module:new_name"`` for a renamed one. The old path
    gives the very object, with a ``DeprecationWarning`` naming the new one; removed with ``MOVED``."""

    def __getattr__(attr: str):
        home = names.get(attr)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {attr!r}")
        where, _, name = home.partition(":")
        name = name or attr
        warnings.warn(
            f"{module}.{attr} moved to {where}.{name}; the old path goes away in fastspe 0.3.0",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(where), name)

    return __getattr__


class MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old paths of :data:`MOVED` and loads each as its new module, with a warning; an old package of
    :data:`MOVED_PACKAGES` is an empty package whose names are the new face's, each with a warning."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED or fullname in MOVED_PACKAGES:
            return importlib.util.spec_from_loader(fullname, self, is_package=fullname in MOVED_PACKAGES)
        return None

    def create_module(self, spec):
        return None  # a placeholder: exec_module puts the real module in its place

    def exec_module(self, module):
        old = module.__name__
        if old in MOVED_PACKAGES:
            module.__path__ = []  # its modules are found here, through MOVED
            module.__getattr__ = _package_names(old, MOVED_PACKAGES[old])
            return
        new = MOVED[old]
        warnings.warn(
            f"{old} moved to {new}; the old path goes away in fastspe 0.3.0",
            DeprecationWarning,
            stacklevel=_importer_level(),
        )
        # the import system returns whatever sys.modules holds once exec_module is done: the same object
        sys.modules[old] = importlib.import_module(new)


def _package_names(old: str, new: str):
    """The ``__getattr__`` of a gone package: a name of the new face (or a moved module of the old package), with a
    ``DeprecationWarning`` naming where it lives now."""

    def __getattr__(attr: str):
        if f"{old}.{attr}" in MOVED:
            return importlib.import_module(f"{old}.{attr}")
        face = importlib.import_module(new)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # this warning, not the face's own
            value = getattr(face, attr)
        warnings.warn(
            f"{old}.{attr} moved to {new}.{attr}; the old path goes away in fastspe 0.3.0",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    return __getattr__


def _importer_level() -> int:
    """The stack level of the first frame outside importlib, so the warning points at the import line."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
        frame, level = frame.f_back, level + 1
    return level + 1


def install() -> None:
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
