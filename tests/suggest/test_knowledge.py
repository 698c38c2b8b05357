"""The knowledge functions that let `check` fixes print the command `suggest` gives."""

from __future__ import annotations

from envdoctor import engine, pipeline
from envdoctor.engine.vocabulary import names_for
from envdoctor.facts import Facts
from envdoctor.suggest import suggest
from envdoctor.suggest.machine import machine_of

from .suggest_support import MACHINES, check_command


def _names(machine: str):
    facts = pipeline.load_facts_file(str(MACHINES / f"{machine}.json"))
    return facts, names_for(facts)


def test_install_line_is_the_suggested_command_and_on_the_index():
    facts, names = _names("rtx5090-driver570")
    line = names["install_line"]("torch")
    assert line == ("pip install torch==2.11.0 torchvision==0.26.0 "
                    "--index-url https://download.pytorch.org/whl/cu128")
    check_command("torch", line, machine_of(facts))
    newer = suggest(facts, ["torch"]).suggestions[0]
    assert {r.constraint for r in newer.reasons if "needs" in r.text or "no code" in r.text} \
        == {"arch", "driver"}   # what ruled the newer builds out


def test_install_line_without_facts_points_to_suggest_instead_of_guessing():
    line = names_for(Facts())["install_line"]("torch")
    assert line.startswith("envdoctor suggest torch") and "cannot be chosen" in line


def test_kept_install_line_keeps_the_installed_release_or_says_nothing_to_change():
    facts, names = _names("h200-torch213-cu130-installed")
    assert names["kept_install_line"]("torch") == ("torch 2.13.0 (cu130) is already the right "
                                                   "install: nothing to change")
    facts, names = _names("rtx4090-torch-cpu-installed")
    assert names["kept_install_line"]("torch") == (
        "pip install torch==2.13.0 torchvision==0.28.0 --force-reinstall "
        "--index-url https://download.pytorch.org/whl/cu126")


def test_a_check_fix_can_use_it(tmp_path):
    """A rule file using install_line() in its fix loads, and the fix is filled per machine."""
    rule = tmp_path / "TORCH901.toml"
    rule.write_text('''code = "TORCH901"
id = "torch-cpu-build-test"
severity = "warning"
title = "CPU torch on a GPU box"
when = "nvidia.gpu_count > 0 and torch is not None and torch.cuda is None"
evidence = { install = "install_line('torch')" }
why = "test"
fix = "{install}"
references = ["https://pytorch.org/get-started/locally/"]

[[examples]]
name = "cpu wheel, GPU box"
fires = true
[examples.facts]
nvidia = { driver_version = "570.133.07", gpus = [{ name = "NVIDIA GeForce RTX 4090", cc = "8.9" }] }
frameworks = { torch = { version = "2.13.0+cpu" } }

[[examples]]
name = "cuda wheel"
fires = false
[examples.facts]
nvidia = { driver_version = "570.133.07", gpus = [{ name = "NVIDIA GeForce RTX 4090", cc = "8.9" }] }
frameworks = { torch = { version = "2.13.0+cu126", cuda = "12.6" } }
''', encoding="utf-8")
    import tomllib
    check = engine.parse_check(tomllib.loads(rule.read_text(encoding="utf-8")), rule)
    facts = pipeline.load_facts_file(str(MACHINES / "rtx4090-torch-cpu-installed.json"))
    result = engine.evaluate_one(check, names_for(facts), "auto")
    assert engine.run_examples(check) == []
    assert result.state == "fired"
    assert result.finding.fix == (   # the newest release replaces the installed CPU 2.13.0
        "pip install torch==2.14.1 torchvision==0.29.1 "
        "--index-url https://download.pytorch.org/whl/cu126")


def test_declared_reads_rebuild_the_same_answer():
    """For the explicit registry: install_line(framework, **reads) == the facts-based answer."""
    from envdoctor.engine.knowledge import install as knowledge

    for machine in ("rtx5090-driver570", "gtx1080-driver580", "macos-arm64", "gpu-not-probed"):
        facts = pipeline.load_facts_file(str(MACHINES / f"{machine}.json"))
        values = {}
        for key, decl in knowledge._READS.items():
            path = decl if isinstance(decl, str) else \
                decl.path if hasattr(decl, "path") else decl[0]
            section, _, rest = path.partition(".")
            obj = getattr(facts, section)
            for part in filter(None, rest.split(".")):
                obj = getattr(obj, part)
            values[key] = obj
        assert knowledge.install_line("torch", **values) == knowledge.line_of(facts, "torch")
        assert knowledge.kept_install_line("torch", **values) == \
            knowledge.line_of(facts, "torch", keep_installed=True)
