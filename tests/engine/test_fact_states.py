"""The engine enforces the fact states: only confirmed absence makes an absence test true,
anything not observed or failed is unknown, a failed probe is a finding of its own."""

from __future__ import annotations

import pytest

from envdoctor import engine, pipeline
from envdoctor.engine import expr
from envdoctor.engine.expr import UNKNOWN
from envdoctor.engine.vocabulary import names_for
from envdoctor.facts import Facts, FrameworkFacts, JaxBuild, ProbeInfo, Status
from envdoctor.facts.states import State, failed_field, only_stated, state_of, unobserved_field

H200 = {"name": "NVIDIA H200", "cc": "9.0"}
NO_PLUGIN = ("nvidia.gpu_count > 0 and jax is not None "
             "and not any(p.name.startswith('jax-cuda') for p in jax.plugins)")


def ev(source: str, facts: Facts, intent: str = "auto"):
    return expr.evaluate(source, names_for(facts, intent))


def jax_block(plugins_seen: bool) -> Facts:
    """A pasted jax.print_environment_info(): eight CUDA devices, jax and jaxlib, and (unless
    ``plugins_seen``) no plugin list at all."""
    probe = {"status": "ok"} if plugins_seen else {"status": "ok", "unobserved": ["jax.plugins"]}
    return engine.example_facts({
        "nvidia": {"driver_version": "550.54.15", "gpus": [H200] * 8},
        "frameworks": {"probe": probe, "jax": {"version": "0.4.35", "jaxlib": "0.4.35"}},
    })


def test_a_list_nobody_saw_is_not_an_empty_list():
    assert ev(NO_PLUGIN, jax_block(plugins_seen=False)) is UNKNOWN
    assert ev(NO_PLUGIN, jax_block(plugins_seen=True)) is True  # seen, and empty: absent


@pytest.mark.parametrize("test", [
    "len(jax.plugins) == 0", "absent(jax.plugins)", "not present(jax.plugins)",
    "'jax-cuda12-plugin' not in list(p.name for p in jax.plugins)", "jax.plugins[0] is None",
    "jax.plugins == []", "not (jax.plugins != [])", "jax.plugins == ()",
])
def test_every_way_of_asking_for_absence_needs_confirmed_absence(test):
    assert ev(test, jax_block(plugins_seen=False)) is UNKNOWN
    assert ev(test, jax_block(plugins_seen=True)) in (True, None)


def test_an_item_seen_in_part_still_counts():
    facts = engine.example_facts({"frameworks": {
        "probe": {"status": "ok", "unobserved": ["jax.plugins"]},
        "jax": {"version": "0.4.35", "plugins": [{"name": "jax-cuda12-plugin"}]}}})
    assert ev("any(p.name.startswith('jax-cuda') for p in jax.plugins)", facts) is True
    assert ev("absent(jax.plugins)", facts) is False
    assert ev("len(jax.plugins) > 0", facts) is UNKNOWN  # how many is still unknown


def test_a_package_list_seen_in_part_answers_has_only_for_what_it_shows():
    facts = engine.example_facts({"packages": {
        "probe": {"status": "ok", "unobserved": ["distributions"]},
        "distributions": {"torch": "2.5.1", "numpy": "1.26.4"}}})
    assert ev("has('torch')", facts) is True
    assert ev("has('tqdm')", facts) is UNKNOWN
    assert ev("not has('tf-keras')", facts) is UNKNOWN
    assert ev("pkg('numpy').version >= '1.26'", facts) is True
    assert ev("pkg('tqdm') is None", facts) is UNKNOWN
    whole = engine.example_facts({"packages": {"distributions": {"torch": "2.5.1"}}})
    assert ev("has('tqdm')", whole) is False  # a complete list: confirmed absent


def test_unobserved_scalars_and_records_are_unknown():
    facts = engine.example_facts({"frameworks": {
        "probe": {"status": "ok", "unobserved": ["torch.cuda", "keras"]},
        "torch": {"version": "2.5.1"}}})
    assert ev("torch.version >= '2.0'", facts) is True
    assert ev("torch.cuda is None", facts) is UNKNOWN   # not "a CPU-only build"
    assert ev("keras is None", facts) is UNKNOWN        # not "Keras not installed"
    assert ev("absent(keras)", facts) is UNKNOWN
    confirmed = engine.example_facts({"frameworks": {"torch": {"version": "2.5.1"}}})
    assert ev("torch.cuda is None and absent(keras)", confirmed) is True


def test_a_failed_field_is_unknown_and_its_neighbours_are_not():
    facts = engine.example_facts({"nvidia": {
        "probe": {"status": "ok", "failed": {"gpus": "nvidia-smi did not answer in 10 s"}},
        "driver_version": "550.54.15"}})
    assert ev("nvidia.driver_version >= '550'", facts) is True
    assert ev("nvidia.gpu_count == 0", facts) is UNKNOWN
    assert ev("len(gpus) == 0", facts) is UNKNOWN
    assert ev("nvidia.has_driver", facts) is True


def test_partial_environment_variables():
    facts = engine.example_facts({"env": {
        "probe": {"status": "ok", "unobserved": ["vars"]}, "vars": {"CUDA_HOME": "/opt/cuda"}}})
    assert ev("env.CUDA_HOME == '/opt/cuda'", facts) is True
    assert ev("env.CUDA_VISIBLE_DEVICES is None", facts) is UNKNOWN
    whole = engine.example_facts({"env": {"CUDA_HOME": "/opt/cuda"}})
    assert ev("env.CUDA_VISIBLE_DEVICES is None", whole) is True


def test_evidence_shows_what_was_seen_of_a_partial_list():
    facts = engine.example_facts({"packages": {
        "probe": {"status": "ok", "unobserved": ["distributions"]},
        "distributions": {"nvidia-cudnn-cu12": "9.1.0.70"}}})
    tree = expr.compile_expr("list(d.name for d in packages.distributions)")
    names = {**expr.BUILTINS, **names_for(facts)}
    assert expr.Evaluator(names)(tree) is UNKNOWN
    assert expr.Evaluator(names, lenient=True)(tree) == ["nvidia-cudnn-cu12"]


def test_first_prefers_what_was_observed():
    assert expr.evaluate("first(a, b)", {"a": UNKNOWN, "b": 2}) == 2
    assert expr.evaluate("first(a, b)", {"a": 1, "b": 2}) == 1
    assert expr.evaluate("first(a, b)", {"a": None, "b": UNKNOWN}) is UNKNOWN
    assert expr.evaluate("first(a, b)", {"a": None, "b": None}) is None


# ---------------------------------------------------------------------------- knowledge
def test_a_knowledge_function_never_runs_on_a_fact_it_lacks():
    """gpus_below_jax reads frameworks.jax: a jax record whose plugin list nobody saw is not
    handed to it as 'no plugins'."""
    unseen = names_for(jax_block(plugins_seen=False))
    assert unseen["gpus_below_jax"]() is UNKNOWN
    seen = names_for(jax_block(plugins_seen=True))
    assert seen["gpus_below_jax"]() == []


def test_optional_reads_fall_back_to_their_declared_default():
    facts = engine.example_facts({})  # host unknown: the Linux column of the driver table
    assert str(names_for(facts)["min_driver"]("12.4")) == "550.54.14"


def test_observed_arch_list_outranks_the_matrix():
    facts = engine.example_facts({"frameworks": {"torch": {"version": "2.6.0+cu124",
                                                           "cuda": "12.4"}}})
    got = names_for(facts)["torch_archs"]()
    assert got["source"] == "torch matrix"
    from envdoctor.facts import LiveFramework
    live = {"torch": LiveFramework(probe=ProbeInfo(status=Status.OK), name="torch",
                                   arch_list=("sm_80", "sm_90"))}
    from dataclasses import replace
    got = names_for(replace(facts, live=live))["torch_archs"]()
    assert got["source"] == "torch's own arch list" and got["archs"] == ["sm_80", "sm_90"]


# ---------------------------------------------------------------------------- failed probes
def failed_nvidia() -> Facts:
    return engine.example_facts({
        "nvidia": {"probe": {"status": "error", "reason": "`nvidia-smi` did not answer in 10 s",
                             "ran": ["nvidia-smi --query-gpu=name --format=csv"]}},
        "frameworks": {"torch": {"version": "2.5.1+cu124", "cuda": "12.4"}},
        "cuda": {"toolkits": [{"version": "12.4", "path": "/usr/local/cuda-12.4"}]},
    })


def test_a_hung_nvidia_smi_is_one_finding_never_not_installed():
    report = pipeline.diagnose(failed_nvidia(), intent="gpu")
    codes = [f.code for f in report.findings]
    assert codes == ["PROBE001"]
    finding = report.findings[0]
    assert "did not answer in 10 s" in finding.title and "nvidia-smi --query-gpu" in finding.title
    assert finding.severity.value == "error"
    states = {r.code: r.state for r in report.results}
    assert states["INTENT001"] == "unknown" and states["CUDA001"] == "unknown"
    assert "not installed" not in finding.title.lower()


def test_supersedes_keeps_the_more_specific_finding():
    base = {"id": "x", "severity": "warning", "title": "t", "why": "w", "fix": "f",
            "references": ["https://example.org"],
            "examples": [{"fires": True, "facts": {}}, {"fires": False, "facts": {}}]}
    general = engine.parse_check({**base, "code": "GEN001", "id": "general", "when": "True"},
                                 "GEN001.toml")
    specific = engine.parse_check({**base, "code": "SPEC001", "id": "specific", "when": "True",
                                   "supersedes": ["GEN001"]}, "SPEC001.toml")
    results = engine.evaluate(Facts(), [general, specific])
    assert {r.code: r.state for r in results} == {"GEN001": "superseded", "SPEC001": "fired"}
    assert [f.code for f in engine.findings_of(results)] == ["SPEC001"]
    with pytest.raises(Exception, match="supersedes"):
        engine.parse_check({**base, "code": "BAD001", "when": "True", "supersedes": "GEN001"},
                           "BAD001.toml")


# ---------------------------------------------------------------------------- facts.states
def test_states_of_paths():
    facts = Facts(frameworks=FrameworkFacts(
        probe=ProbeInfo(status=Status.OK, source="report:jax_env", unobserved=("jax.plugins",)),
        jax=JaxBuild()))
    assert state_of(facts, "frameworks.jax.plugins")[0] is State.UNOBSERVED
    assert state_of(facts, "frameworks.jax.version") == (State.OBSERVED, "report:jax_env")
    assert state_of(facts, "nvidia.driver_version")[0] is State.UNOBSERVED  # nobody looked
    gone = Facts(nvidia=replace_status(Status.NOT_FOUND))
    assert state_of(gone, "nvidia.gpus")[0] is State.ABSENT
    broke = Facts(nvidia=replace_status(Status.ERROR, "NVML init raised"))
    assert state_of(broke, "nvidia.gpus") == (State.FAILED, "NVML init raised")


def replace_status(status: Status, reason: str = ""):
    from envdoctor.facts import NvidiaFacts
    return NvidiaFacts(probe=ProbeInfo(status=status, reason=reason))


def test_only_stated_marks_what_a_paste_did_not_show():
    section = FrameworkFacts(probe=ProbeInfo(status=Status.OK), jax=JaxBuild())
    marked = only_stated(section, {"jax.version", "jax.jaxlib"})
    assert "jax.plugins" in marked.probe.unobserved
    assert {"torch", "tensorflow", "keras"} <= set(marked.probe.unobserved)
    assert "jax.version" not in marked.probe.unobserved and "jax" not in marked.probe.unobserved
    assert "torch.cuda" not in marked.probe.unobserved  # covered by "torch"


def test_writers_add_marks():
    section = unobserved_field(FrameworkFacts(probe=ProbeInfo(status=Status.OK)), "torch.cuda")
    section = failed_field(section, "tensorflow", "build_info.py raised SyntaxError")
    assert section.probe.unobserved == ("torch.cuda",)
    assert section.probe.failed == {"tensorflow": "build_info.py raised SyntaxError"}
