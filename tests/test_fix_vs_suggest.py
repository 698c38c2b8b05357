"""check's computed torch fixes and `envdoctor suggest` on the same machines.

Both must never name a wheel whose CUDA the driver cannot run or that has no code for the GPU,
and both must never offer a wheel for a GPU the driver branch predates. There is one planner:
check's fixes are `suggest` in keep-installed mode (the installed release when a variant of it
runs here), so the fix command and `envdoctor suggest`'s command for that mode are the same
text, and on these machines (none of which holds a torch release that suggest would move away
from) the index agrees with plain `suggest` too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from envdoctor import pipeline
from envdoctor.engine.expr import evaluate
from envdoctor.engine.knowledge.torch import driver_supports_arch
from envdoctor.engine.vocabulary import names_for
from envdoctor.matrices.gpus import archs_run_on, gpu_cc_of, sm_of
from envdoctor.matrices.torch import lookup_torch_variant
from envdoctor.suggest.lines import line_of

ROOT = Path(__file__).resolve().parent
MACHINES = [p for p in sorted((ROOT / "fixtures" / "machines").glob("*.json"))
            + sorted((ROOT / "suggest" / "machines").glob("*.json"))
            if not p.name.endswith(".expected.json")]


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


@pytest.mark.parametrize("path", list(_cases(set(), "")))
def test_check_and_suggest_agree_on_the_index(path):
    """Without a torch installed, keep-installed mode is plain `suggest`: same index."""
    facts = _facts(path)
    if not facts.nvidia.gpus:
        pytest.skip("no GPU listed")
    if facts.frameworks.torch is not None:
        pytest.skip("a torch is installed: keep-installed mode may keep its release")
    mine = _pin_and_tag(evaluate("torch_gpu_install()", names_for(facts)))[1]
    theirs = _pin_and_tag(line_of(facts, "torch"))[1]
    assert mine == theirs


@pytest.mark.parametrize("path", MACHINES, ids=[p.stem for p in MACHINES])
@pytest.mark.parametrize("fix", ["torch_gpu_install()", "torch_arch_fix()"])
def test_check_fix_is_suggest_in_keep_installed_mode(path, fix):
    """The acceptance of one planner: the rule engine's fix (facts read through @reads) prints
    exactly what suggest's keep-installed mode gives for the whole snapshot."""
    facts = _facts(path)
    assert evaluate(fix, names_for(facts)) == line_of(facts, "torch", keep_installed=True)


def _with_torch(facts, version: str, cuda: str | None):
    import dataclasses

    from packaging.version import Version

    from envdoctor.facts import TorchBuild
    torch = TorchBuild(version=Version(version), cuda=Version(cuda) if cuda else None)
    return dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks,
                                                                     torch=torch))


def test_keep_installed_keeps_a_release_that_has_a_variant_here():
    """torch 2.9.1+cpu on an RTX 4090 / driver 570: the fix is 2.9.1's CUDA wheel (forced over
    the CPU build of the same version), not an upgrade to the newest release."""
    facts = _with_torch(_facts(ROOT / "suggest" / "machines" / "rtx4090-driver570.json"),
                        "2.9.1+cpu", None)
    fix = evaluate("torch_gpu_install()", names_for(facts))
    assert _pin_and_tag(fix)[0] == "2.9.1" and "--force-reinstall" in fix
    assert _pin_and_tag(line_of(facts, "torch"))[0] == "2.14.1"  # plain suggest: the newest
    # that runs on a CUDA 12.x driver (2.15.0 has no CUDA 12 build)
    assert _safe(facts, fix)


def test_keep_installed_never_downgrades_a_newer_install():
    facts = _facts(ROOT / "suggest" / "machines" / "h200-torch216-newer-than-data.json")
    fix = evaluate("torch_gpu_install()", names_for(facts))
    assert "torch==" not in fix and "2.16.0" in fix
