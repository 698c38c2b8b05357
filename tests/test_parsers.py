"""Report parsers on recorded real outputs (tests/data/tools, tests/corpus/reports)."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib
from packaging.version import Version

from envdoctor.facts import Facts, Status
from envdoctor.parsers import PARSERS, detect, parse_text
from envdoctor.parsers._text import clean

TOOLS = Path(__file__).resolve().parent / "data" / "tools"
REPORTS = Path(__file__).resolve().parent / "corpus" / "reports"


def tool(rel: str) -> str:
    return (TOOLS / rel).read_text(encoding="utf-8")


def report(prefix: str) -> str:
    path = next(REPORTS.glob(prefix + "-*.toml"))
    return tomllib.loads(path.read_text(encoding="utf-8"))["text"]


def test_every_parser_module_is_registered():
    import envdoctor.parsers as pkg
    modules = {p.stem for p in Path(pkg.__file__).parent.glob("*.py")
               if not p.stem.startswith("_") and p.stem not in ("gpus", "envdoctor_report")}
    names = {__import__(f"envdoctor.parsers.{m}", fromlist=["NAME"]).NAME for m in modules}
    assert names == set(PARSERS)


def test_nvidia_smi_table_driver_is_not_the_toolkit():
    facts = parse_text(tool("nvidia-smi/15-rtx4090-580-cuda13.txt"))
    assert facts.origin == "report"
    assert facts.nvidia.probe.status is Status.OK
    assert facts.nvidia.driver_version == Version("580.65.06") or facts.nvidia.driver_version
    assert facts.nvidia.cuda_driver_version == Version("13.0")
    assert facts.cuda.probe.status is Status.UNKNOWN  # no toolkit was stated
    assert [g.name for g in facts.nvidia.gpus] and facts.nvidia.gpus[0].cc == Version("8.9")


def test_nvidia_smi_truncated_name_windows():
    facts = parse_text(tool("nvidia-smi/03-rtx2080super-windows-591-load.txt"))
    gpu = facts.nvidia.gpus[0]
    assert gpu.name == "NVIDIA GeForce RTX 2080"
    assert gpu.cc == Version("7.5")
    assert gpu.memory_total_mb == 8192 and gpu.memory_used_mb == 1296


def test_nvidia_smi_eight_gpus_and_mig():
    assert len(parse_text(tool("nvidia-smi/13-8x-rtx4090-550.txt")).nvidia.gpus) == 8
    mig = parse_text(tool("nvidia-smi/02-h100-mig-590-idle.txt")).nvidia.gpus[0]
    assert mig.mig_mode is True and mig.cc == Version("9.0")


@pytest.mark.parametrize("rel, words", [
    ("nvidia-smi/10-nvml-driver-library-mismatch.txt", "mismatch"),
    ("nvidia-smi/09-failed-communicate-driver.txt", "communicate"),
])
def test_nvidia_smi_failures_mean_not_found(rel, words):
    facts = parse_text(tool(rel))
    assert facts.nvidia.probe.status is Status.NOT_FOUND
    assert words in facts.nvidia.probe.reason
    assert facts.frameworks.probe.status is Status.UNKNOWN


def test_nvidia_smi_q_and_query_csv():
    q = parse_text(tool("nvidia-smi-q/03-4x-a100-sxm4-555.txt"))
    assert q.nvidia.driver_version == Version("555.42.02")
    assert q.nvidia.cuda_driver_version == Version("12.5")
    assert len(q.nvidia.gpus) == 4 and q.nvidia.gpus[0].mig_mode is False
    assert q.nvidia.gpus[0].memory_total_mb and q.nvidia.gpus[0].cc == Version("8.0")
    csv = parse_text(tool("nvidia-smi-query/03-h200-mig-590-all-fields.txt"))
    assert csv.nvidia.gpus[0].name == "NVIDIA H200" and csv.nvidia.gpus[0].mig_mode is True
    assert csv.nvidia.driver_version == Version("590.48.01")


@pytest.mark.parametrize("path", sorted((TOOLS / "nvcc").glob("*.txt")), ids=lambda p: p.name)
def test_nvcc(path):
    text = path.read_text(encoding="utf-8")
    facts = parse_text(text)
    if "not-found" in path.name:
        assert facts is None or facts.cuda.probe.status is Status.NOT_FOUND
        return
    release = text.split("release ", 1)[1].split(",")[0]
    assert facts.cuda.nvcc_version is not None
    assert f"{facts.cuda.nvcc_version.major}.{facts.cuda.nvcc_version.minor}" == release
    assert facts.nvidia.probe.status is Status.UNKNOWN


def test_collect_env_2x_with_warning_and_probably_cudnn():
    facts = parse_text(report("014"))
    assert facts.frameworks.torch.version == Version("2.6.0+cu126")
    assert facts.frameworks.torch.cuda == Version("12.6")
    assert facts.nvidia.driver_version == Version("570.124.04")
    assert facts.nvidia.gpus[0].name == "NVIDIA GeForce RTX 5090 D"
    assert facts.nvidia.gpus[0].cc == Version("12.0")
    assert [str(lib.version) for lib in facts.libraries.named("cudnn")] == ["9.8.0"]
    assert facts.host.python_version == Version("3.12.9") and facts.host.os == "Linux"
    assert facts.live["torch"].cuda_available is True


def test_collect_env_1x_quoted_multiline_gpus_windows():
    facts = parse_text(report("018"))
    assert facts.host.os == "Windows"
    assert [g.name for g in facts.nvidia.gpus] == ["TITAN RTX", "TITAN RTX"]
    assert facts.packages.get("torchvision").version == Version("0.6.0+cu101")
    assert facts.libraries.named("cudnn")[0].version == Version("7")


def test_collect_env_could_not_collect_is_not_observed_except_on_macos():
    """"Could not collect" is a failed nvidia-smi call, not an absent driver (issue 10); macOS
    has had no NVIDIA CUDA driver since CUDA 10.2."""
    linux = parse_text(report("024"))
    assert linux.nvidia.probe.status is Status.UNKNOWN and linux.host.os == "Linux"
    mac = parse_text(report("028"))
    assert mac.nvidia.probe.status is Status.NOT_FOUND and mac.host.os == "Darwin"
    assert mac.frameworks.torch.cuda is None
    rocm = parse_text(report("012"))
    assert rocm.frameworks.torch.hip is not None
    assert rocm.nvidia.probe.status is Status.UNKNOWN  # "Device 66a1" is an AMD GPU


def test_collect_env_cpu_build_on_gpu_host_indented():
    facts = parse_text(report("022"))
    assert facts.frameworks.torch.version == Version("1.3.1")
    assert facts.frameworks.torch.cuda is None
    assert facts.nvidia.gpus[0].name == "GeForce RTX 2080 Ti"
    assert facts.cuda.nvcc_version == Version("10.1.105")


def test_conda_build_string_gives_torch_cuda():
    facts = parse_text(report("021"))
    assert facts.frameworks.torch.cuda == Version("10.1")
    assert {"torch", "pytorch"} <= {d.name for d in facts.packages.distributions}


def test_jax_print_environment_info_and_its_smi_table():
    facts = parse_text(report("002"))
    assert facts.frameworks.jax.version == Version("0.4.33")
    assert facts.frameworks.jax.jaxlib == Version("0.4.33")
    assert facts.nvidia.driver_version == Version("550.127.05")
    assert facts.host.kernel == "6.8.0-1017-aws" and facts.host.distro == ""
    assert facts.live["jax"].cuda_available is True and len(facts.live["jax"].devices) == 8


def test_transformers_env_gpu_flags():
    facts = parse_text(report("004"))
    assert facts.frameworks.torch.cuda == Version("12.1")
    assert facts.frameworks.tensorflow.version == Version("2.15.1")
    assert facts.live["tensorflow"].cuda_available is False
    assert facts.live["torch"].cuda_available is True
    assert facts.nvidia.gpus[0].cc == Version("8.0")


def test_tf_issue_form_headings():
    facts = parse_text(report("006"))
    assert facts.host.os == "Windows"
    assert facts.frameworks.tensorflow.version == Version("2.14.0")
    assert facts.frameworks.tensorflow.is_cuda_build is False
    assert facts.host.python_version == Version("3.10.10")
    assert facts.libraries.named("cudnn")[0].version == Version("8.1.0.77")


def test_tf_build_info_windows_dll_suffixes():
    text = ("{'cpu_compiler': 'C:/foo/cl.exe', 'cuda_compute_capabilities': "
            "['sm_35', 'sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80'], 'cuda_version': "
            "'64_112', 'cudnn_version': '64_8', 'is_cuda_build': True, 'is_rocm_build': False}")
    tf = parse_text(text).frameworks.tensorflow
    assert tf.cuda == Version("11.2") and tf.cudnn == Version("8") and tf.is_cuda_build
    assert "compute_80" in tf.compute_capabilities


def test_pip_install_log_wheel_tags():
    facts = parse_text(report("046"))
    assert facts.host.os == "Windows" and facts.host.python_version == Version("3.12")
    assert facts.frameworks.tensorflow.version == Version("2.18.0")
    log = parse_text(report("045"))
    assert log.host.python_version == Version("3.11")
    assert log.packages.get("tensorflow").version == Version("2.16.1")


def test_pip_list_columns_and_freeze():
    facts = parse_text("Package    Version\n---------- -------\njax        0.4.26\n"
                       "jaxlib     0.4.26+cuda12.cudnn89\nnumpy      1.26.4\n")
    assert facts.frameworks.jax.jaxlib == Version("0.4.26+cuda12.cudnn89")
    freeze = parse_text("torch==2.4.1+cu121\ntorchvision==0.19.1+cu121\nnumpy==2.0.0\n")
    assert freeze.frameworks.torch.cuda == Version("12.1")
    assert freeze.packages.get("numpy").version == Version("2.0.0")


def test_github_damage_is_undone():
    text = report("011")
    damaged = "<details><summary>env</summary>\r\n\r\n" + "\r\n".join(
        "> " + line for line in ("```", *text.splitlines(), "```")) + "\r\n</details>"
    a, b = parse_text(text), parse_text(damaged)
    assert b.nvidia.driver_version == a.nvidia.driver_version == Version("418.67")
    assert b.frameworks.torch == a.frameworks.torch
    assert "```" not in clean("```python\nx\n```")


def test_several_reports_in_one_post_prefer_the_specific_source():
    post = report("011") + "\n\nand nvidia-smi:\n" + tool("nvidia-smi/15-rtx4090-580-cuda13.txt")
    facts = parse_text(post)
    assert facts.nvidia.driver_version == Version("580.65.06")  # the table beats collect_env
    assert facts.nvidia.gpus[0].name.startswith("NVIDIA GeForce RTX 4090")
    assert facts.frameworks.torch.version == Version("1.7.0+cu101")
    assert {"collect_env", "nvidia_smi"} <= set(detect(post))


def test_envdoctor_json_round_trip_inside_an_issue():
    original = parse_text(report("014"))
    pasted = "Here is my envdoctor output:\n```json\n" + original.to_json() + "\n```\nthanks"
    again = parse_text(pasted)
    assert isinstance(again, Facts) and again.origin == "report"
    assert again.nvidia.gpus == original.nvidia.gpus


@pytest.mark.parametrize("text", ["", "hello world", "I have a problem, please help.",
                                  "Traceback (most recent call last):\n  File \"x.py\"\n"])
def test_no_report(text):
    assert parse_text(text) is None
