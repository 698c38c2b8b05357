"""Report-parsing behaviours found by measuring on a held-out style set of real pastes.

Each case comes from a real report in tests/corpus/reports (the number says which); the
assertions check the fact or the verdict that report needed, and its counterpart that must not.
"""

from __future__ import annotations

from pathlib import Path

import tomllib

from envdoctor import pipeline
from envdoctor.parsers import parse_text
from envdoctor.parsers.gpus import cc_of

REPORTS = Path(__file__).resolve().parent / "corpus" / "reports"


def text_of(number: str) -> str:
    path = next(REPORTS.glob(f"{number}-*.toml"))
    return tomllib.loads(path.read_text(encoding="utf-8"))["text"]


def codes(text: str) -> set[str]:
    return {f.code for f in pipeline.diagnose(parse_text(text)).findings
            if f.severity.value in ("error", "warning")}


def test_min_max_capability_range_becomes_gpu001():
    facts = parse_text(text_of("070"))  # GTX 1070, "(7.0) - (12.0)"
    assert facts.live["torch"].cc_range == ("7.0", "12.0")
    assert "GPU001" in codes(text_of("070"))


def test_gpu_inside_the_range_is_not_flagged():
    text = text_of("070").replace("GTX 1070 which is of cuda capability 6.1",
                                  "RTX 3090 which is of cuda capability 8.6")
    assert "GPU001" not in codes(text)


def test_compute_ptx_does_not_hide_torchs_own_incompatibility_verdict():
    assert "GPU001" in codes(text_of("068"))  # sm_37..sm_86 + compute_37 next to sm_120


def test_bare_torch_in_pip_list_on_linux_is_not_a_cpu_build():
    smi = text_of("077")  # 2x RTX 4090, driver 550
    assert "TORCH001" not in codes(smi + "\nPackage Version\n------- -------\ntorch   2.3.1\n")
    assert "TORCH001" in codes(smi + "\nPackage Version\n------- -------\ntorch   2.3.1+cpu\n")


def test_truncated_smi_names_get_a_capability_only_when_unambiguous():
    assert str(cc_of("GeForce RTX 208")) == "7.5"
    assert cc_of("Quadro RTX 60") is None  # Quadro RTX 6000 (7.5) or RTX 6000 Ada (8.9)


def test_tensorflow_gpu_answer_feeds_live004():
    facts = parse_text(text_of("010"))  # "Is GPU Available: []" next to an RTX 4060
    tf = facts.live["tensorflow"]
    assert tf.import_ok is True and tf.cuda_available is False
    assert "LIVE004" in codes(text_of("010"))
    ok = text_of("010").replace("Is GPU Available: []", "Is GPU Available: [PhysicalDevice("
                                "name='/physical_device:GPU:0', device_type='GPU')]")
    assert parse_text(ok).live["tensorflow"].cuda_available is True


def test_ultralytics_banner_names_torch_python_and_gpu():
    facts = parse_text(text_of("078"))
    assert str(facts.frameworks.torch.version) == "2.3.1"
    assert str(facts.host.python_version).startswith("3.11")
    assert [g.name for g in facts.nvidia.gpus] == ["NVIDIA GeForce RTX 3090"]
    assert facts.nvidia.gpus[0].memory_total_mb == 24576


def test_sglang_check_env_driver_and_gpu():
    facts = parse_text(text_of("080"))
    assert str(facts.nvidia.driver_version) == "535.104.12"
    assert facts.nvidia.gpus[0].name == "NVIDIA A40"
