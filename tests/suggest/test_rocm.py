"""`suggest` on AMD machines: the torch ROCm wheel the facts and AMD's data decide, each reason
true (AMD's support list, the +/- 2-release kernel-driver window), `undecided` where they cannot
decide, and `check`'s ROCm fixes from the same planner."""

from __future__ import annotations

from envdoctor.engine import evaluate as evaluate_rules
from envdoctor.engine import example_facts, findings_of, load_checks
from envdoctor.engine.knowledge.rocm import rocm_torch_gap
from envdoctor.facts import RocmFacts, TorchBuild
from envdoctor.suggest import suggest
from envdoctor.suggest.lines import line_of
from envdoctor.versions import ver


def _amd(gpus, rocm="6.2.4", python="3.11", torch=None, hip=None, cuda=None, env=None):
    data = {"host": {"os": "Linux", "arch": "x86_64", "python_version": python},
            "nvidia": {"probe": {"status": "not_found"}},
            "rocm": {"gpus": [{"index": i, "name": n, "gfx": g} for i, (n, g) in enumerate(gpus)],
                     **({"version": rocm} if rocm else {})}}
    if torch:
        data["frameworks"] = {"torch": {"version": torch, "hip": hip, "cuda": cuda}}
        data["packages"] = {"distributions": {"torch": torch}}
    if env:
        data["env"] = env
    return example_facts(data)


def _texts(s) -> str:
    return "\n".join(r.text for r in s.reasons)


def test_a_supported_instinct_gets_the_newest_wheel_inside_the_driver_window():
    s = suggest(_amd([("AMD Instinct MI250X", "gfx90a")]), ["torch"]).suggestions[0]
    assert (s.status, s.version, s.variant) == ("ok", "2.9.1", "rocm6.4")
    assert s.command == ("pip install torch==2.9.1 torchvision==0.24.1 "
                         "--index-url https://download.pytorch.org/whl/rocm6.4")
    text = _texts(s)
    assert "AMD Instinct MI250X (gfx90a) is in AMD's supported list for ROCm 6.4" in text
    assert "2 releases newer than ROCm 6.2" in text and "+/- 2" in text
    assert "rocm7.0 bundles a ROCm user space 3 releases newer" in text


def test_a_dropped_gfx_takes_a_wheel_of_a_rocm_that_still_lists_it():
    s = suggest(_amd([("AMD Instinct MI50", "gfx906")], rocm="7.0.2"), ["torch"]).suggestions[0]
    assert (s.version, s.variant) == ("2.9.1", "rocm6.4")
    assert "ROCm 7.0 no longer supports AMD Instinct MI50 (gfx906)" in _texts(s)


def test_a_consumer_chip_no_rocm_lists_gets_the_cpu_build_and_the_override_is_not_the_answer():
    """No ROCm release lists gfx1032: the facts decide (no ROCm wheel is known to run on it),
    so the answer is the CPU build, with the unsupported override as an alternative."""
    facts = _amd([("AMD Radeon RX 6600 XT", "gfx1032")],
                 env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"})
    s = suggest(facts, ["torch"]).suggestions[0]
    assert s.status == "ok" and s.variant == "cpu" and s.command
    assert "/whl/cpu" in s.command
    assert "AMD says is not a supported fix, so it is not the answer" in _texts(s)
    assert "(set here: HSA_OVERRIDE_GFX_VERSION=10.3.0)" in _texts(s)
    override = [a for a in s.alternatives if "HSA_OVERRIDE_GFX_VERSION" in a.text]
    assert override and all(a.command is None for a in override)


def test_an_installed_rocm_torch_does_not_make_the_unlisted_chips_answer_a_rocm_wheel():
    """The CPU answer for an unlisted gfx is planned without the installed HIP build's pull
    towards rocm* variants, and never says that installed ROCm build "runs here"."""
    facts = _amd([("AMD Radeon RX 6600 XT", "gfx1032")], torch="2.5.1+rocm6.2", hip="6.2")
    for keep in (False, True):
        s = suggest(facts, ["torch"], keep_installed=keep).suggestions[0]
        assert (s.status, s.variant) == ("ok", "cpu") and "/whl/cpu" in (s.command or "")
        assert not any(a.variant and a.variant.startswith("rocm") for a in s.alternatives)


def test_a_chip_with_no_rocm_list_and_no_override_gets_the_cpu_build():
    s = suggest(_amd([("AMD Radeon RX 5700 XT", "gfx1010")], rocm="6.2.4"),
                ["torch"]).suggestions[0]
    assert (s.status, s.variant) == ("ok", "cpu")
    assert "RX 5700 XT (gfx1010) is in no ROCm release's list" in _texts(s)
    assert not any("HSA_OVERRIDE_GFX_VERSION" in a.text for a in s.alternatives)


def test_no_rocm_release_in_the_facts_is_undecided():
    s = suggest(_amd([("AMD Instinct MI300X", "gfx942")], rocm=None), ["torch"]).suggestions[0]
    assert s.status == "undecided" and "installed ROCm release is not in the facts" in _texts(s)


def test_jax_and_tensorflow_on_amd_are_undecided_with_amds_way():
    jax, tf = suggest(_amd([("AMD Instinct MI300X", "gfx942")]), ["jax", "tensorflow"]).suggestions
    assert jax.status == tf.status == "undecided"
    assert "AMD's container" in _texts(jax)
    assert "AMD lists TensorFlow 2.14.1, 2.15.1, 2.16.1 for ROCm 6.2.x" in _texts(tf)
    assert all(a.variant == "cpu" for a in (*jax.alternatives, *tf.alternatives) if a.command)


def test_check_fixes_on_amd_come_from_the_planner():
    """ROCM004 (a CUDA wheel on AMD) and ROCM005 (a ROCm wheel outside the driver window):
    the fix names what `suggest --keep` gives on that machine."""
    checks = {c.code: c for c in load_checks() if c.code in ("ROCM004", "ROCM005")}
    cases = {"ROCM004": _amd([("AMD Instinct MI210", "gfx90a")], torch="2.5.1+cu124",
                             cuda="12.4"),
             "ROCM005": _amd([("AMD Instinct MI250X", "gfx90a")], rocm="5.7.1",
                             torch="2.8.0+rocm6.4", hip="6.4.43482")}
    for code, facts in cases.items():
        finding = next(f for f in findings_of(evaluate_rules(facts, [checks[code]])))
        line = line_of(facts, "torch", keep_installed=True)
        assert line in finding.fix, (code, finding.fix)
    assert "torch==2.5.1" in line_of(cases["ROCM004"], "torch", keep_installed=True)
    assert "whl/rocm6.2" in line_of(cases["ROCM004"], "torch", keep_installed=True)
    assert "torch==2.6.0" in line_of(cases["ROCM005"], "torch", keep_installed=True)
    assert "whl/rocm6.1" in line_of(cases["ROCM005"], "torch", keep_installed=True)


def test_the_driver_window_counts_releases_across_a_major():
    """KMD 6.4 with a 7.0 user space is one release apart (AMD's order), not a gap."""
    def gap(built: str, here: str):
        return rocm_torch_gap(rocm=RocmFacts(version=ver(here)),
                              t=TorchBuild(version=ver("2.10.0"), hip=ver(built)))
    assert gap("7.0.1", "6.4.1") is None
    assert gap("6.4.4", "6.2.4") is None
    assert gap("6.4.4", "5.7.1") is not None
    assert gap("7.14.0", "7.2.0") is None  # not placed in the order: not claimed


def test_the_wheel_index_rocm_variants_are_among_those_pytorch_org_states():
    from envdoctor.matrices import matrix
    stated = {r["torch"]: set(r["variants"]) for r in matrix("rocm")["torch"]}
    checked = 0
    for row in matrix("wheel_index")["torch"]:
        key = ".".join(row["torch"].split(".")[:2])
        listed = {v for v in row.get("linux_x86_64", []) if v.startswith("rocm")}
        if key in stated:
            assert listed <= stated[key], (row["torch"], listed, stated[key])
            checked += 1
    assert checked == len(stated)
