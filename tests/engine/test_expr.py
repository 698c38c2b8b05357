"""The rule expression language: safety and three-valued logic."""

from __future__ import annotations

import pytest
from packaging.version import Version

from envdoctor.engine.expr import UNKNOWN, ExprError, evaluate


@pytest.mark.parametrize("source,expected", [
    ("False and u", False), ("u and False", False), ("True and u", UNKNOWN),
    ("True or u", True), ("u or True", True), ("False or u", UNKNOWN),
    ("not u", UNKNOWN), ("u > 3", UNKNOWN), ("u.attr", UNKNOWN),
    ("any(x > 1 for x in [0, u])", UNKNOWN), ("any(x > 1 for x in [2, u])", True),
    ("all(x > 1 for x in [0, u])", False), ("known(u)", False), ("known(1)", True),
])
def test_three_valued_logic(source, expected):
    assert evaluate(source, {"u": UNKNOWN}) is expected or \
        evaluate(source, {"u": UNKNOWN}) == expected


@pytest.mark.parametrize("source,expected", [
    ("v >= '2.6'", True), ("v < '2.10'", True), ("v == '2.6.0'", True),
    ("n is None", True), ("n >= '1.0'", False), ("n == None", True),
    ("v in spec('>=2.0,<3')", True), ("v in spec('<2.5')", False),
    ("major(v)", 2), ("minor('12.4.1')", Version("12.4")),
    ("'abc'.startswith('a')", True), ("len([1, 2])", 2), ("max([1, None, 3])", 3),
])
def test_versions_and_none(source, expected):
    assert evaluate(source, {"v": Version("2.6"), "n": None}) == expected


@pytest.mark.parametrize("source", [
    "__import__('os')", "open('/etc/passwd')", "x.__class__", "(lambda: 1)()",
    "[y for y in x]", "x.mro()", "import os",
])
def test_unsafe_or_unsupported_constructs_are_rejected(source):
    with pytest.raises(ExprError):
        evaluate(source, {"x": 1})
