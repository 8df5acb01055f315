"""Every command and subcommand has a description, and help texts show defaults one way: ``(default: X)``."""

from __future__ import annotations

import argparse
import re

import pytest

from fastspe.cli import build_parser, main


def parsers(parser=None, name="fastspe"):
    parser = parser or build_parser()
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from parsers(child, f"{name} {sub}")


ALL = list(parsers())


def test_every_command_is_listed_with_help_and_has_a_description():
    assert len(ALL) >= 10
    for name, parser in ALL:
        assert parser.description and len(parser.description) > 20, f"{name} has no description"
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                listed = {a.dest for a in action._choices_actions}
                assert listed == set(action.choices), f"{name}: a subcommand has no one-line help"


@pytest.mark.parametrize("name, parser", ALL, ids=[n for n, _ in ALL])
def test_one_style_of_defaults(name, parser, capsys):
    text = parser.format_help()
    assert not re.search(r"\(default [^:]", text), f"{name}: write defaults as '(default: X)'"
    assert not re.search(r"default\)", text), f"{name}: write defaults as '(default: X)'"
    for action in parser._actions:
        has_default = (
            action.default is not None
            and action.default is not False
            and action.option_strings
            and action.default != argparse.SUPPRESS
        )
        if has_default:
            assert "(default: " in parser._get_formatter()._get_help_string(action), f"{name} {action.option_strings}"


@pytest.mark.parametrize("name", [n for n, _ in ALL])
def test_help_exits_zero(name, capsys):
    assert main(name.split()[1:] + ["--help"]) == 0
    assert "usage: " + name in capsys.readouterr().out


@pytest.mark.parametrize("name", [n for n, _ in ALL])
def test_no_help_text_shows_a_doubled_percent_sign(name, capsys):
    """argparse %-formats help strings but prints descriptions as written: '95%%' there shows as is."""
    assert main(name.split()[1:] + ["--help"]) == 0
    assert "%%" not in capsys.readouterr().out, f"{name} --help prints '%%'"
