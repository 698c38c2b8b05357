"""check's computed torch fixes and `envdoctor suggest` on the same machines.

Both must never name a wheel whose CUDA the driver cannot run or that has no code for the GPU,
and both must never offer a wheel for a GPU the driver branch predates. Where the two planners
still choose differently (check keeps the installed release; suggest moves to the newest
release in its data) the machines are listed as strict expected failures of the agreement test,
so unifying them (one planner with a "keep this release" constraint) shows up here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from envdoctor import pipeline
from envdoctor.engine.expr import evaluate
from envdoctor.engine.knowledge.gpu import archs_run_on, gpu_cc_of, sm_of
from envdoctor.engine.knowledge.torch import driver_supports_arch, lookup_torch_variant
from envdoctor.engine.vocabulary import names_for
from envdoctor.suggest.knowledge import line_of

ROOT = Path(__file__).resolve().parent
MACHINES = [p for p in sorted((ROOT / "fixtures" / "machines").glob("*.json"))
            + sorted((ROOT / "suggest" / "machines").glob("*.json"))
            if not p.name.endswith(".expected.json")]
# check keeps the installed release and the newest CUDA the driver fully supports; suggest
# picks the newest release of its data: same machine, another (valid) wheel.
PLANNERS_DIFFER = {"docker-64mb-shm", "wsl2-linux-driver-inside", "gh200-aarch64-driver560",
                   "h200-torch213-cu130-installed", "h200-torch215-newer-than-data",
                   "rtx4090-driver570", "rtx4090-py38", "rtx4090-py39", "v100-driver580",
                   "windows-rtx5080-driver581"}


def _facts(path: Path):
    return pipeline.load_facts_file(str(path))


def _pin_and_tag(cmd: str) -> tuple[str | None, str | None]:
    pin = re.search(r"torch==([0-9][0-9.]*)", cmd or "")
    tag = re.search(r"whl/(\w+)", cmd or "")
    return (pin.group(1).rstrip(".") if pin else None), (tag.group(1) if tag else None)


def _safe(facts, cmd: str) -> bool:
    """The wheel named has code for every GPU and the driver can drive every GPU."""
    release, tag = _pin_and_tag(cmd)
    if tag is None or not tag.startswith("cu"):
        return True  # no CUDA wheel named: nothing to check
    os_name = facts.host.os or "linux"
    targets = [sm_of(gpu_cc_of(g)) for g in facts.nvidia.gpus]
    if any(driver_supports_arch(facts.nvidia.driver_version, t, os_name) is False
           for t in targets if t):
        return False
    row = lookup_torch_variant(f"{release or '2.9'}+{tag}", None,
                               facts.host.arch if facts.host.probe.status.known else None)
    return row is None or all(archs_run_on(row.get("archs", []), t) for t in targets if t)


def _cases(marked: set[str], reason: str):
    for path in MACHINES:
        marks = (pytest.mark.xfail(strict=True, reason=reason),) if path.stem in marked else ()
        yield pytest.param(path, marks=marks, id=path.stem)


@pytest.mark.parametrize("path", list(_cases(set(), "")))
def test_check_fix_is_safe(path):
    facts = _facts(path)
    if not facts.nvidia.gpus:
        pytest.skip("no GPU listed")
    assert _safe(facts, evaluate("torch_gpu_install()", names_for(facts)))


@pytest.mark.parametrize("path", list(_cases(set(), "")))
def test_suggest_is_safe(path):
    facts = _facts(path)
    if not facts.nvidia.gpus:
        pytest.skip("no GPU listed")
    assert _safe(facts, line_of(facts, "torch"))


@pytest.mark.parametrize("path", list(_cases(PLANNERS_DIFFER, "two planners still differ")))
def test_check_and_suggest_agree_on_the_index(path):
    facts = _facts(path)
    if not facts.nvidia.gpus:
        pytest.skip("no GPU listed")
    mine = _pin_and_tag(evaluate("torch_gpu_install()", names_for(facts)))[1]
    theirs = _pin_and_tag(line_of(facts, "torch"))[1]
    assert mine == theirs
