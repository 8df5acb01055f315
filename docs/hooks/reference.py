"""mkdocs hook: the reference pages generated from the code, so that none is a hand copy that can drift.

- ``reference/cli/*.md``: one page per command of ``fastspe.cli.build_parser()`` (sub-commands such as
  ``bank build`` included), with its usage, description and every option of every group, as ``--help`` has them.
- ``reference/environment.md``: the variables of ``fastspe.config``.
- ``reference/python/<face>.md``: one page per face (``fastspe.<face>.__all__``), each public name rendered by
  mkdocstrings from the module that defines it.

``on_config`` puts the generated pages in the nav (under the entries that name their index pages), ``on_files``
adds them to the site.
"""

from __future__ import annotations

import argparse
import html
import importlib
import inspect
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
CLI_INDEX = "reference/cli/index.md"
PYTHON_INDEX = "reference/python/index.md"
ENVIRONMENT = "reference/environment.md"
# The faces, in the pipeline's order: what a user imports from (``from fastspe.stats import compute_metrics``).
FACES = (
    "fastspe",
    "fastspe.boundary",
    "fastspe.domains",
    "fastspe.runners",
    "fastspe.prompting",
    "fastspe.protocols",
    "fastspe.scoring",
    "fastspe.stats",
    "fastspe.verify",
    "fastspe.report",
    "fastspe.hub",
    "fastspe.kernels",
)


# ---- the command line --------------------------------------------------------------------------------------------


def _commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()):
    """(words, parser, help) of every command that runs something, depth first, in the parser's order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                leaf = not any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
                yield (*words, name), sub, helps.get(name, ""), leaf
                yield from _commands(sub, (*words, name))


def _text(value: str) -> str:
    return html.escape(" ".join(value.split()), quote=False).replace("|", "\\|")


def _option_row(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    formatter = parser._get_formatter()
    if action.option_strings:
        metavar = formatter._format_args(action, action.dest.upper()) if action.nargs != 0 else ""
        flags = ", ".join(f"`{flag}{' ' + metavar if metavar else ''}`" for flag in action.option_strings)
    else:
        flags = f"`{formatter._metavar_formatter(action, action.dest)(1)[0]}`"
    helped = formatter._expand_help(action) if action.help else ""
    default = ""
    if action.option_strings and action.default not in (None, False, argparse.SUPPRESS, []) and action.nargs != 0:
        default = f"`{action.default}`"
    return f"| {flags} | {_text(helped)} | {default} |"


def _slug(words: tuple[str, ...]) -> str:
    return "-".join(words)


def cli_pages() -> dict[str, str]:
    """{path: Markdown} of the CLI reference: an index and a page per command."""
    from fastspe.cli import build_parser

    parser = build_parser()
    index = [
        "# Command line",
        "",
        _text(parser.description or ""),
        "",
        "Generated from the argparse parsers of `fastspe.cli` when the site is built: what each "
        "`fastspe COMMAND --help` prints, one page per command. Options a planning domain adds are in a group "
        "named after the domain; the domains listed are the ones installed where the site was built "
        "(`fastspe domains`).",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    pages = {}
    for words, sub, helped, leaf in _commands(parser):
        name = "fastspe " + " ".join(words)
        path = f"reference/cli/{_slug(words)}.md"
        index.append(f"| [`{name}`]({_slug(words)}.md) | {_text(helped or '')} |")
        lines = [f"# `{name}`", "", _text(helped or ""), "", "```text", sub.format_usage().strip(), "```", ""]
        if sub.description:
            lines += [_text(sub.description), ""]
        if not leaf:
            lines += [
                "Sub-commands: "
                + ", ".join(
                    f"[`{name} {w[-1]}`]({_slug(w)}.md)"
                    for w, _s, _h, _l in _commands(sub, words)
                    if len(w) == len(words) + 1
                ),
                "",
            ]
        for group in sub._action_groups:
            actions = [
                a
                for a in group._group_actions
                if a.help != argparse.SUPPRESS and not isinstance(a, argparse._SubParsersAction)
            ]
            if not actions:
                continue
            lines += [f"## {group.title[:1].upper() + group.title[1:]}", ""]
            if group.description:
                lines += [_text(group.description), ""]
            lines += ["| option | meaning | default |", "|---|---|---|"]
            lines += [_option_row(sub, a) for a in actions] + [""]
        if sub.epilog:
            lines += ["```text", sub.epilog.strip(), "```", ""]
        pages[path] = "\n".join(lines)
    pages[CLI_INDEX] = "\n".join(index) + "\n"
    return pages


# ---- environment variables ----------------------------------------------------------------------------------------


def _read_in(name: str) -> str:
    """The modules whose source names ``name`` (fastspe.config aside), as dotted paths."""
    package = ROOT / "fastspe"
    found = []
    for path in sorted(package.rglob("*.py")):
        if path.parent.name != "config" and name in path.read_text(encoding="utf-8"):
            dotted = path.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
            found.append(f"`{dotted.removesuffix('.__init__')}`")
    return ", ".join(found)


def environment_page() -> str:
    from fastspe import config

    def table(entries) -> list[str]:
        rows = ["| variable | default | what it does | read in |", "|---|---|---|---|"]
        return rows + [
            f"| `{v.name}` | {_text(v.default) or '(unset)'} | {v.meaning.replace('|', '/')} | {_read_in(v.name)} |"
            for v in entries
        ]

    return "\n".join(
        [
            "# Environment variables",
            "",
            "Generated from `fastspe.config`, which lists every "
            "`FASTSPE_*` variable fastspe reads (a test fails when the code reads one it does not list).",
            "",
            "## fastspe's own",
            "",
            *table(config.VARIABLES),
            "",
            "## Other tools' variables fastspe reads",
            "",
            *table(config.OTHER_VARIABLES),
            "",
        ]
    )


# ---- the Python API -----------------------------------------------------------------------------------------------


def _where(face, name: str) -> str | None:
    """The dotted path mkdocstrings renders ``face.name`` from: the class or function where it is defined, else the
    module the face loads it from."""
    obj = getattr(face, name)
    if (inspect.isclass(obj) or inspect.isfunction(obj)) and obj.__module__.startswith("fastspe"):
        return f"{obj.__module__}.{obj.__qualname__}"
    return None


def python_pages() -> dict[str, str]:
    index = [
        "# Python API",
        "",
        "::: fastspe",
        "    options:",
        "      show_root_heading: false",
        "      filters: public",
        "",
        "## The faces",
        "",
        "Each package's `__init__` is its face: import from there (`from fastspe.stats import "
        "compute_metrics`). One page per face, generated from its `__all__` when the site is built.",
        "",
        "| face | what it holds |",
        "|---|---|",
    ]
    pages = {}
    for dotted in FACES:
        face = importlib.import_module(dotted)
        short = dotted.split(".", 1)[-1]  # (the package itself: fastspe.md)
        summary = (face.__doc__ or "").strip().split("\n\n")[0]
        index.append(f"| [`{dotted}`]({short}.md) | {_text(summary)} |")
        lines = [f"# `{dotted}`", "", (face.__doc__ or "").strip(), ""]
        values = []
        for name in sorted(getattr(face, "__all__", ())):
            where = _where(face, name)
            if where is None:
                values.append(name)
                continue
            lines += [
                f"::: {where}",
                "    options:",
                "      show_root_heading: true",
                "      show_root_full_path: false",
                "      heading_level: 2",
                "",
            ]
        if values:
            lines += ["## Constants and other names", "", "| name | value |", "|---|---|"]
            lines += [f"| `{name}` | `{_text(repr(getattr(face, name)))[:120]}` |" for name in values] + [""]
        pages[f"reference/python/{short}.md"] = "\n".join(lines)
    pages[PYTHON_INDEX] = "\n".join(index) + "\n"
    return pages


# ---- file formats: the tables formats.md holds, from the schemas themselves ------------------------------------

FORMATS = "reference/formats.md"


def bank_columns_table() -> str:
    """Every installed domain's bank columns (``Domain.bank_columns``, ``optional_columns``) and second stratum."""
    from fastspe.domains import domain_named, domain_names

    rows = ["| domain | columns (in file order) | optional columns | second stratum |", "|---|---|---|---|"]
    for name in domain_names():
        domain = domain_named(name)
        rows.append(
            f"| `{name}` | {', '.join(f'`{c}`' for c in domain.bank_columns)} | "
            f"{', '.join(f'`{c}`' for c in domain.optional_columns) or '-'} | `{domain.stratum}` |"
        )
    return "\n".join(rows)


def verdict_columns_table() -> str:
    """The verdicts file's columns and Arrow types (``fastspe.boundary.verdict_schema``), in file order."""
    from fastspe.boundary import verdict_schema as schema
    from fastspe.domains import domain_named, domain_names

    rows = [
        f"Schema version **{schema.SCHEMA_VERSION}**, under the key `{schema.SCHEMA_KEY.decode()}` of the "
        "file's metadata. The `stratum` row stands for the domain's second stratum, named by the domain (`k` for "
        "the sliding puzzle, `boxes` for Sokoban).",
        "",
        "| column | Arrow type | group |",
        "|---|---|---|",
    ]
    groups = (
        ("verdict", schema.VERDICT_TYPES),
        ("the answer's run-log fields", schema.METADATA_TYPES),
        ("multi-turn protocols only", schema.CONVERSATION_TYPES),
    )
    for group, types in groups:
        rows += [
            f"| `{name}` | `{kind}`{' (JSON text)' if name in schema.JSON_TEXT else ''} | {group} |"
            for name, kind in types.items()
        ]
    for name in domain_names():
        rows += [
            f"| `{column}` | `int64` | `{name}` banks only |" for column in domain_named(name).verdict_extra_columns
        ]
    return "\n".join(rows)


def format_versions_table() -> str:
    from fastspe.boundary import parquet, verdict_schema
    from fastspe.prompting import SPEC_VERSION

    return "\n".join(
        [
            "| what | version | defined in |",
            "|---|---|---|",
            f"| verdicts schema | {verdict_schema.SCHEMA_VERSION} | `fastspe.boundary.verdict_schema.SCHEMA_VERSION` |",
            f"| Parquet content digest (banks, verdicts) | {parquet.FORMAT_VERSION.decode()} | "
            "`fastspe.boundary.parquet.FORMAT_VERSION` |",
            f"| prompt spec (variants, prompts sidecar) | `{SPEC_VERSION}` | `fastspe.prompting.SPEC_VERSION` |",
        ]
    )


GENERATED_TABLES = {
    "<!-- generated: bank columns -->": bank_columns_table,
    "<!-- generated: verdict columns -->": verdict_columns_table,
    "<!-- generated: format versions -->": format_versions_table,
}


def on_page_markdown(markdown, page, **_kw):
    if page.file.src_uri == FORMATS:
        for marker, table in GENERATED_TABLES.items():
            assert marker in markdown, f"{FORMATS} lost its {marker}"
            markdown = markdown.replace(marker, table())
    return markdown


# ---- mkdocs events ------------------------------------------------------------------------------------------------

_PAGES: dict[str, str] = {}


def _titled(pages: dict[str, str], index: str) -> list:
    children = [index]
    for path, text in pages.items():
        if path != index and path.startswith(index.rsplit("/", 1)[0] + "/"):
            title = text.split("\n", 1)[0].lstrip("# ").strip("`")
            children.append({title: path})
    return children


def _patch_nav(nav, pages: dict[str, str]) -> None:
    for i, item in enumerate(nav or []):
        if isinstance(item, dict):
            for key, value in item.items():
                if value in (CLI_INDEX, PYTHON_INDEX):
                    item[key] = _titled(pages, value)
                elif isinstance(value, list):
                    _patch_nav(value, pages)


def on_config(config, **_kw):
    _PAGES.clear()
    _PAGES.update(cli_pages())
    _PAGES.update(python_pages())
    _PAGES[ENVIRONMENT] = environment_page()
    _patch_nav(config["nav"], _PAGES)
    return config


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns the notebook into a page
def on_files(files, config, **_kw):
    for path, text in _PAGES.items():
        files.append(File.generated(config, path, content=text))
    # the notebook lives at the repository's root (tests/test_notebook.py runs it there); mkdocs-jupyter renders it
    for notebook in sorted(ROOT.glob("notebooks/*.ipynb")):
        files.append(
            File(notebook.relative_to(ROOT).as_posix(), str(ROOT), config["site_dir"], config["use_directory_urls"])
        )
    return files
