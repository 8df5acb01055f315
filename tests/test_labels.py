"""Labels files: condition -> display label and an order, in CSV or JSON; every mistake named."""

from __future__ import annotations

import json

import pytest

from fastspe.boundary.errors import InputError
from fastspe.report.labels import read_labels
from fastspe.report.write import display_names


def test_csv_json_object_and_list_read_alike(tmp_path):
    csv = tmp_path / "l.csv"
    csv.write_text('condition,label\nopenai:gpt-4.1-2025-04-14,GPT-4.1\n"anthropic:claude, x",Claude X\n')
    obj = tmp_path / "o.json"
    obj.write_text(json.dumps({"openai:gpt-4.1-2025-04-14": "GPT-4.1", "anthropic:claude, x": "Claude X"}))
    lst = tmp_path / "l.json"
    lst.write_text(
        json.dumps(
            [
                {"condition": "openai:gpt-4.1-2025-04-14", "label": "GPT-4.1"},
                {"condition": "anthropic:claude, x", "label": "Claude X"},
            ]
        )
    )
    read = [read_labels(p) for p in (csv, obj, lst)]
    assert read[0] == read[1] == read[2]
    labels = read[0]
    assert labels.get("openai:gpt-4.1-2025-04-14") == "GPT-4.1" and labels.get("other") == "other"
    assert labels.order == ("openai:gpt-4.1-2025-04-14", "anthropic:claude, x")


def test_file_order_first_then_the_ranking(tmp_path):
    path = tmp_path / "l.json"
    path.write_text(json.dumps({"c": "Cee", "a": "Ay", "gone": "Gone"}))
    labels = read_labels(path)
    assert labels.ordered(["a", "b", "c", "d"]) == ["c", "a", "b", "d"]
    assert labels.unknown(["a", "b", "c"]) == ["gone"]


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("l.csv", "cond,label\na,A\n", "line 1: the header must be condition,label"),
        ("l.csv", "condition,label\na,A\nb\n", "line 3: expected 2 fields"),
        ("l.csv", "condition,label\na,A\na,B\n", "line 3: condition 'a' is labelled twice"),
        ("l.csv", "condition,label\na,Same\nb,Same\n", "line 3: label 'Same' is also the label of 'a'"),
        ("l.csv", "condition,label\na,\n", "line 2: label '' must be non-empty"),
        ("l.json", '{"a": "x\\u001b[31m"}', "item 1: label"),
        ("l.json", '{"a": 3}', "item 1: label 3 must be non-empty text"),
        ("l.json", '[{"condition": "a"}]', "item 1: expected"),
        ("l.json", '"a"', "holds an object"),
        ("l.json", '{"a": "A",\n "b": }', "line 2: not JSON"),
        ("l.json", "{}", "no labels"),
        ("l.txt", "a,A", "is .csv"),
    ],
)
def test_mistakes_are_named(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("(", r"\(")):
        read_labels(path)


def test_a_label_that_is_another_conditions_key_is_refused(tmp_path):
    path = tmp_path / "l.json"
    path.write_text(json.dumps({"a": "b"}))
    with pytest.raises(ValueError, match="'a' and 'b' would both be shown as 'b'"):
        display_names(["a", "b"], read_labels(path))
