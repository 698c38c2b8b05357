"""Every planner has one shape: ``plan(machine, request) -> Suggestion``, in one registry."""

from __future__ import annotations

import inspect
from pathlib import Path

from envdoctor import pipeline
from envdoctor.suggest import FRAMEWORKS, PLANNERS, Request, Suggestion, suggest
from envdoctor.suggest.machine import machine_of

from .suggest_support import MACHINES


def test_every_framework_has_a_planner_of_the_one_shape():
    assert set(PLANNERS) == set(FRAMEWORKS)
    for name, planner in PLANNERS.items():
        params = list(inspect.signature(planner).parameters.values())
        assert [p.name for p in params] == ["m", "request"], name
        assert all(p.default is inspect.Parameter.empty for p in params), name
        assert inspect.signature(planner).return_annotation in ("Suggestion", Suggestion), name


def test_each_planner_answers_the_same_call_as_suggest():
    facts = pipeline.load_facts_file(str(MACHINES / "rtx5090-driver570.json"))
    m = machine_of(facts)
    torch = PLANNERS["torch"](m, Request())
    for name, planner in PLANNERS.items():
        got = planner(m, Request(torch_pick=torch))
        assert isinstance(got, Suggestion) and got.framework == name
        assert got == suggest(facts, [name]).suggestions[0]


def test_no_planner_reaches_into_another():
    """A planner module imports the shared modules (data, machine, model, plan), never a
    sibling planner: what two planners share lives in the shared modules."""
    folder = Path(__file__).resolve().parents[2] / "envdoctor" / "suggest"
    planners = ("torch_plan", "tf_plan", "jax_plan", "companions")
    for name in planners:
        text = (folder / f"{name}.py").read_text(encoding="utf-8")
        for other in planners:
            assert other == name or f"suggest.{other} import" not in text, (name, other)
