"""Every probe's failure modes end as a recorded probe status and reason, never an exception.

Commands are replaced through ``envdoctor.runner.use_runner`` (recorded real outputs, real error
texts); hangs use a real ``sleep`` under the real runner with a tiny timeout; NVML is replaced
by replacing ``envdoctor.probes.nvidia._nvml_raw`` with ``_nvml_child.collect`` on a fake pynvml.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from packaging.version import Version

from envdoctor import runner
from envdoctor.facts import Status
from envdoctor.probes import cuda, host, libraries, nvidia
from envdoctor.runner import CommandResult

from .test_probe_recorded import recorded

Answer = CommandResult | Callable[[tuple[str, ...]], CommandResult]


def fake_runner(answers: dict[str, Answer]):
    """A runner that answers by program name (``nvidia-smi``, ``nvcc``, ``ldconfig``)."""
    calls: list[tuple[str, ...]] = []

    def run(argv: Sequence[str], timeout: float) -> CommandResult:
        argv = tuple(argv)
        calls.append(argv)
        answer = answers.get(os.path.basename(argv[0]))
        if answer is None:
            return CommandResult(argv, None, "", "", 0.0, "not found")
        result = answer(argv) if callable(answer) else answer
        return dataclasses.replace(result, argv=argv)

    run.calls = calls  # type: ignore[attr-defined]
    return run


def out(stdout: str = "", rc: int = 0, stderr: str = "") -> CommandResult:
    return CommandResult(("x",), rc, stdout, stderr, 0.01)


def err(message: str) -> CommandResult:
    return CommandResult(("x",), None, "", "", 0.01, message)


def which_only(**paths: str):
    return lambda name: paths.get(name.replace("-", "_"))


def sleeper(tmp_path: Path, name: str) -> str:
    """An executable that hangs like a wedged nvidia-smi or nvcc."""
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\nexec {shutil.which('sleep')} 30\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


# --------------------------------------------------------------------------- runner itself
def test_real_runner_times_out_a_real_hang():
    start = time.monotonic()
    result = runner.run(["sleep", "30"], 0.3)
    assert time.monotonic() - start < 5
    assert result.error == "timed out after 0.3s" and not result.ok


def test_real_runner_missing_program_and_nonzero_exit():
    assert runner.run(["envdoctor-no-such-tool-xyz"], 2).error == "not found"
    failed = runner.run(["sh", "-c", "echo boom >&2; exit 3"], 5)
    assert (failed.returncode, failed.stderr.strip(), failed.ok) == (3, "boom", False)


def test_a_broken_fake_runner_cannot_break_a_probe():
    def broken(argv, timeout):
        raise RuntimeError("fake exploded")
    with runner.use_runner(broken):
        result = runner.run(["nvcc", "--version"], 1)
    assert result.error == "runner failed: fake exploded"


# --------------------------------------------------------------------------- NVML fakes
class NVMLError(Exception):
    pass


class RaisingNVML:
    """pynvml whose nvmlInit fails the way the real one does on a broken install."""

    def __init__(self, message: str):
        self.message = message

    def nvmlInit(self):
        raise NVMLError(self.message)

    def nvmlShutdown(self):
        pass


class Mem:
    def __init__(self, total, used):
        self.total, self.used = total, used


class Proc:
    def __init__(self, pid, used):
        self.pid, self.usedGpuMemory = pid, used


class TwoGpuNVML:
    """pynvml answering for two H100s, every query the probe makes."""

    MIB = 1024 * 1024

    def __init__(self):
        self.shutdown = False

    def nvmlInit(self): pass
    def nvmlShutdown(self): self.shutdown = True
    def nvmlSystemGetDriverVersion(self): return b"550.54.15"
    def nvmlSystemGetCudaDriverVersion_v2(self): return 12040
    def nvmlDeviceGetCount(self): return 2
    def nvmlDeviceGetHandleByIndex(self, i): return i
    def nvmlDeviceGetName(self, h): return f"NVIDIA H100 80GB HBM3 #{h}"
    def nvmlDeviceGetUUID(self, h): return f"GPU-{h:08d}"
    def nvmlDeviceGetCudaComputeCapability(self, h): return (9, 0)
    def nvmlDeviceGetMemoryInfo(self, h): return Mem(81559 * self.MIB, (1000 + h) * self.MIB)
    def nvmlDeviceGetMigMode(self, h): return (h, h)
    def nvmlDeviceGetPersistenceMode(self, h): return 1
    def nvmlDeviceGetTemperature(self, h, sensor): return 40 + h
    def nvmlDeviceGetPowerUsage(self, h): return 69850
    def nvmlDeviceGetEnforcedPowerLimit(self, h): return 700000
    def nvmlDeviceGetCurrentClocksThrottleReasons(self, h): return 0x1 | 0x4 | 0x40
    def nvmlDeviceGetTotalEccErrors(self, h, kind, counter): return 3 * h
    def nvmlDeviceGetRetiredPagesPendingStatus(self, h): return h
    def nvmlDeviceGetCurrPcieLinkGeneration(self, h): return 4
    def nvmlDeviceGetMaxPcieLinkGeneration(self, h): return 5
    def nvmlDeviceGetCurrPcieLinkWidth(self, h): return 8
    def nvmlDeviceGetMaxPcieLinkWidth(self, h): return 16
    def nvmlDeviceGetComputeRunningProcesses(self, h): return [Proc(4242 + h, 512 * self.MIB)]
    def nvmlSystemGetProcessName(self, pid): return b"python"


@pytest.fixture
def driver_root(tmp_path):
    """A filesystem root where an NVIDIA driver could be present (so NVML is tried)."""
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "nvidiactl").write_text("")
    return tmp_path


def with_nvml(monkeypatch, fake):
    """NVML answers as the child process would, from a fake pynvml, in this process."""
    from envdoctor.probes import _nvml_child

    def raw(trail, timeout):
        try:
            return _nvml_child.collect(fake)
        except Exception as exc:  # what the child reports for an nvmlInit that raises
            return {"ok": False, "stage": "query", "error": str(exc)}
    monkeypatch.setattr(nvidia, "_nvml_raw", raw)


# --------------------------------------------------------------------------- NVIDIA probe
# what only a pasted text states: the memory an out-of-memory process did not hold belongs to the
# moment of that error, which no probe of the machine can see afterwards
READ_FROM_TEXT_ONLY = frozenset({"memory_outside_mb"})


def test_nvml_answering_two_gpus_fills_every_field(monkeypatch, driver_root):
    fake = TwoGpuNVML()
    with_nvml(monkeypatch, fake)
    with runner.use_runner(fake_runner({}), which_only()):
        facts = nvidia.probe(driver_root)
    assert facts.probe.status is Status.OK and facts.probe.source == "nvml"
    assert facts.driver_version == Version("550.54.15")
    assert facts.cuda_driver_version == Version("12.4")
    assert fake.shutdown
    assert facts.gpu_count == 2
    for i, gpu in enumerate(facts.gpus):
        for field in dataclasses.fields(gpu):
            if field.name in READ_FROM_TEXT_ONLY:
                continue
            value = getattr(gpu, field.name)
            assert value is not None and value != "" and value != (), field.name
        assert gpu.index == i and gpu.name == f"NVIDIA H100 80GB HBM3 #{i}"
        assert gpu.cc == Version("9.0") and gpu.memory_total_mb == 81559
        assert gpu.memory_used_mb == 1000 + i and gpu.mig_mode is bool(i)
        assert gpu.throttle_reasons == ("sw_power_cap", "hw_thermal_slowdown")
        assert (gpu.power_draw_w, gpu.power_limit_w) == (69.85, 700.0)
        assert (gpu.pcie_gen, gpu.pcie_gen_max, gpu.pcie_width, gpu.pcie_width_max) == (4, 5, 8, 16)
        assert gpu.processes[0].pid == 4242 + i and gpu.processes[0].used_mb == 512
        assert gpu.processes[0].name == "python"


def test_nvml_version_mismatch_and_no_nvidia_smi(monkeypatch, driver_root):
    with_nvml(monkeypatch, RaisingNVML("Driver/library version mismatch"))
    with runner.use_runner(fake_runner({}), which_only()):
        facts = nvidia.probe(driver_root)
    # NVML loaded and met a kernel module of another version: a driver is installed and
    # broken, never "no driver" (DRV003 names it)
    assert facts.probe.status is Status.ERROR
    assert facts.nvml_error == "Driver/library version mismatch"
    assert "Driver/library version mismatch" in facts.probe.reason
    assert facts.gpus == () and not facts.has_driver


@pytest.mark.parametrize("name,rc", [("10-nvml-driver-library-mismatch.txt", 18),
                                     ("11-nvml-mismatch-old-no-version-line.txt", 18)])
def test_mismatch_recorded_from_nvidia_smi_with_kernel_module(monkeypatch, driver_root, name, rc):
    """NVML and nvidia-smi both refuse; /proc still names the loaded kernel module."""
    (driver_root / "proc" / "driver" / "nvidia").mkdir(parents=True)
    (driver_root / "proc" / "driver" / "nvidia" / "version").write_text(
        recorded("proc-driver-version", "01-open-kernel-module-565.txt"))
    with_nvml(monkeypatch, RaisingNVML("Driver/library version mismatch"))
    smi = out(recorded("nvidia-smi", name), rc)
    with runner.use_runner(fake_runner({"nvidia-smi": smi}), which_only(nvidia_smi="/x")):
        facts = nvidia.probe(driver_root)
    assert facts.nvml_error == "Driver/library version mismatch"
    assert facts.kernel_module_version == Version("565.57.01")
    assert facts.probe.source == "procfs"
    assert "mismatch" in facts.probe.reason and facts.gpus == ()


def test_nvidia_smi_cannot_communicate_with_driver(monkeypatch, driver_root):
    with_nvml(monkeypatch, RaisingNVML("Driver Not Loaded"))
    smi = out(recorded("nvidia-smi", "09-failed-communicate-driver.txt"), 9)
    fake = fake_runner({"nvidia-smi": smi})
    with runner.use_runner(fake, which_only(nvidia_smi="/usr/bin/nvidia-smi")):
        facts = nvidia.probe(driver_root)
    assert facts.probe.status is Status.NOT_FOUND
    assert "couldn't communicate with the NVIDIA driver" in facts.nvml_error
    assert len(fake.calls) == 1  # a broken driver is not asked twice
    assert any(r.startswith("nvidia-smi --query-gpu=") for r in facts.probe.ran)


def test_nvml_missing_falls_back_to_nvidia_smi(monkeypatch, driver_root):
    """NVML raising, nvidia-smi answering: the recorded H100 table fills the facts."""
    with_nvml(monkeypatch, RaisingNVML("NVML Shared Library Not Found"))
    table = recorded("nvidia-smi", "01-h100-590-idle-no-processes.txt")
    csv_line = ("0, NVIDIA H100 80GB HBM3, GPU-0, 590.48.01, 9.0, 81559, 0, 41, 69.85, 700.00, "
                "5, 5, 16, 16, Disabled, Enabled, 0, [N/A]")
    answers = {"nvidia-smi": lambda argv: out(csv_line if len(argv) > 1 else table)}
    with runner.use_runner(fake_runner(answers), which_only(nvidia_smi="/x")):
        facts = nvidia.probe(driver_root)
    assert facts.probe.status is Status.OK and facts.probe.source == "nvidia-smi"
    assert facts.driver_version == Version("590.48.01")
    assert facts.cuda_driver_version == Version("13.1")
    assert facts.gpu_names == ("NVIDIA H100 80GB HBM3",)
    assert facts.gpus[0].cc == Version("9.0")
    assert facts.nvml_error == "NVML Shared Library Not Found"


def test_old_driver_refusing_a_field_is_asked_again_without_it(monkeypatch, driver_root):
    with_nvml(monkeypatch, RaisingNVML("NVML Shared Library Not Found"))
    table = recorded("nvidia-smi", "06-rtx2070-440-old-process-header.txt")

    def smi(argv):
        if len(argv) == 1:
            return out(table)
        if "compute_cap" in argv[1]:
            return out('Field "compute_cap" is not a valid field to query.\n', 2)
        return out("0, GeForce RTX 2070, GPU-1, 440.100, 7973, 246" + ", [N/A]" * 11)
    fake = fake_runner({"nvidia-smi": smi})
    with runner.use_runner(fake, which_only(nvidia_smi="/x")):
        facts = nvidia.probe(driver_root)
    assert "compute_cap" not in fake.calls[1][1]
    assert facts.gpus[0].name == "GeForce RTX 2070"
    assert facts.gpus[0].processes[0].pid == 1357  # from the table
    assert facts.cuda_driver_version == Version("10.2")


def test_query_refused_entirely_uses_the_table(monkeypatch, driver_root):
    with_nvml(monkeypatch, RaisingNVML("NVML Shared Library Not Found"))
    table = recorded("nvidia-smi", "14-4x-a100-sxm4-555.txt")
    answers = {"nvidia-smi": lambda argv: out(table) if len(argv) == 1
               else out("Option not recognized", 2)}
    with runner.use_runner(fake_runner(answers), which_only(nvidia_smi="/x")):
        facts = nvidia.probe(driver_root)
    assert facts.gpu_count == 4 and facts.driver_version == Version("555.42.02")


@pytest.mark.parametrize("answer,expected", [
    (err("timed out after 10s"), "nvidia-smi timed out after 10s"),
    (out("", 255), "nvidia-smi exited 255"),
    (out("\x00\xff garbage ~~~\nmore", 0), "nvidia-smi printed no GPU and no driver version"),
    (err("could not run: Permission denied"), "nvidia-smi could not run: Permission denied"),
])
def test_nvidia_smi_failure_modes(monkeypatch, driver_root, answer, expected):
    with_nvml(monkeypatch, RaisingNVML("NVML Shared Library Not Found"))
    with runner.use_runner(fake_runner({"nvidia-smi": answer}), which_only(nvidia_smi="/x")):
        facts = nvidia.probe(driver_root)
    assert facts.probe.status is Status.ERROR  # a failed probe, never "no driver"
    assert facts.nvml_error == expected
    assert expected in facts.probe.reason


def test_nvidia_smi_real_hang_costs_only_its_timeout(monkeypatch, driver_root, tmp_path):
    with_nvml(monkeypatch, RaisingNVML("NVML Shared Library Not Found"))
    monkeypatch.setattr(nvidia, "SMI_TIMEOUT", 0.3)
    hung = sleeper(tmp_path, "nvidia-smi")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    start = time.monotonic()
    facts = nvidia.probe(driver_root)
    assert time.monotonic() - start < 5
    assert facts.nvml_error == "nvidia-smi timed out after 0.3s"
    assert facts.probe.status is Status.ERROR
    assert hung in " ".join(facts.probe.ran) or "nvidia-smi --query-gpu" in facts.probe.ran[-1]


def test_pynvml_not_importable(monkeypatch, driver_root):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pynvml" else real(name, *a))
    with runner.use_runner(fake_runner({}), which_only()):
        facts = nvidia.probe(driver_root)
    assert facts.nvml_error == "pynvml unavailable"
    # NVML could not be asked and there is no nvidia-smi, yet /dev/nvidiactl is there: the
    # driver is not confirmed absent, the probe could not do its job (never "no driver")
    assert facts.probe.status is Status.ERROR
    assert "/dev/nvidiactl" in facts.probe.reason and "pynvml unavailable" in facts.probe.reason


def test_pynvml_not_importable_and_no_driver_traces_is_not_found(monkeypatch, tmp_path):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pynvml" else real(name, *a))
    (tmp_path / "usr/lib/x86_64-linux-gnu").mkdir(parents=True)
    (tmp_path / "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1").write_text("")
    with runner.use_runner(fake_runner({}), which_only()):
        facts = nvidia.probe(tmp_path)
    assert facts.probe.status is Status.NOT_FOUND


def test_nvml_raising_after_init_is_an_nvml_error(monkeypatch, driver_root):
    class Flaky(TwoGpuNVML):
        def nvmlDeviceGetCount(self):
            raise NVMLError("GPU is lost")
    fake = Flaky()
    with_nvml(monkeypatch, fake)
    with runner.use_runner(fake_runner({}), which_only()):
        facts = nvidia.probe(driver_root)
    assert facts.nvml_error == "GPU is lost" and fake.shutdown


def test_no_driver_possible_skips_nvml_and_says_why(monkeypatch, tmp_path):
    """No /proc/driver/nvidia, /dev/nvidiactl, /dev/dxg, libnvidia-ml: NVML is not loaded."""
    def must_not_load():
        raise AssertionError("NVML loaded on a machine without an NVIDIA driver")
    monkeypatch.setattr(nvidia, "_nvml_raw", lambda *a: must_not_load())
    monkeypatch.setenv("LD_LIBRARY_PATH", "")
    monkeypatch.setattr("sys.platform", "linux")
    with runner.use_runner(fake_runner({}), which_only()):
        facts = nvidia.probe(tmp_path)
    assert facts.probe.status is Status.NOT_FOUND
    assert "no NVIDIA kernel driver" in facts.probe.reason
    assert any(r.startswith("nvml: not tried") for r in facts.probe.ran)


@pytest.mark.parametrize("marker", ["dev/nvidiactl", "dev/dxg", "proc/driver/nvidia",
                                    "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"])
def test_any_driver_trace_means_nvml_is_tried(monkeypatch, tmp_path, marker):
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("LD_LIBRARY_PATH", "")
    assert nvidia.driver_absent_reason(tmp_path) != ""
    (tmp_path / marker).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / marker).write_text("")
    assert nvidia.driver_absent_reason(tmp_path) == ""


def test_pci_devices_are_counted_from_sysfs(tmp_path):
    devices = tmp_path / "sys" / "bus" / "pci" / "devices"
    for name, vendor, klass in [("0000:01:00.0", "0x10de", "0x030200"),
                                ("0000:01:00.1", "0x10de", "0x040300"),  # HDMI audio
                                ("0000:02:00.0", "0x8086", "0x030000")]:
        (devices / name).mkdir(parents=True)
        (devices / name / "vendor").write_text(vendor + "\n")
        (devices / name / "class").write_text(klass + "\n")
    assert nvidia.count_pci_devices(devices) == 1
    assert nvidia.count_pci_devices(tmp_path / "missing") is None


# --------------------------------------------------------------------------- CUDA probe
@pytest.fixture
def no_toolkit_folders(monkeypatch):
    monkeypatch.setattr(cuda, "FOLDER_GLOBS", ())
    monkeypatch.setattr(cuda, "RUNTIME_WHEELS", ())
    for var in (*cuda.ENV_VARS, "CONDA_PREFIX"):
        monkeypatch.delenv(var, raising=False)


def test_cuda_tool_missing(no_toolkit_folders):
    with runner.use_runner(fake_runner({}), which_only()):
        facts = cuda.probe()
    assert facts.probe.status is Status.NOT_FOUND
    assert facts.probe.reason == "no CUDA toolkit and no nvcc on PATH"
    assert facts.nvcc_path == "" and facts.toolkits == ()


@pytest.mark.parametrize("answer,problem", [
    (err("timed out after 10s"), "timed out after 10s"),
    (out("", 1, "nvcc fatal   : Unknown option"), "exited 1"),
    (out(recorded("nvcc", "09-command-not-found-bash.txt"), 0), "printed no version"),
    (out("\x7fELF\x00\x00 binary garbage", 0), "printed no version"),
])
def test_nvcc_failure_modes(no_toolkit_folders, answer, problem):
    with runner.use_runner(fake_runner({"nvcc": answer}), which_only(nvcc="/opt/x/bin/nvcc")):
        facts = cuda.probe()
    assert facts.probe.status is Status.OK  # nvcc exists; only its version is unknown
    assert facts.nvcc_version is None
    assert facts.probe.reason == f"/opt/x/bin/nvcc --version: {problem}"


def test_nvcc_real_hang_costs_only_its_timeout(no_toolkit_folders, monkeypatch, tmp_path):
    monkeypatch.setattr(cuda, "NVCC_TIMEOUT", 0.3)
    hung = sleeper(tmp_path, "nvcc")
    start = time.monotonic()
    with runner.use_runner(runner._real_run, which_only(nvcc=hung)):
        facts = cuda.probe()
    assert time.monotonic() - start < 5
    assert facts.probe.reason == f"{hung} --version: timed out after 0.3s"


def test_nvcc_recorded_13_0_inside_a_toolkit_folder(no_toolkit_folders, tmp_path):
    home = tmp_path / "cuda-13.0"
    (home / "bin").mkdir(parents=True)
    (home / "nvvm").mkdir()
    nvcc = home / "bin" / "nvcc"
    nvcc.write_text("")
    answer = out(recorded("nvcc", "05-cuda-13.0.txt"))
    with runner.use_runner(fake_runner({"nvcc": answer}), which_only(nvcc=str(nvcc))):
        facts = cuda.probe()
    assert facts.nvcc_version == Version("13.0.88")
    assert [(t.version, t.source, t.how) for t in facts.toolkits] == [
        (Version("13.0.88"), "nvcc", "nvcc --version")]


# --------------------------------------------------------------------------- libraries probe
@pytest.fixture
def no_library_folders(monkeypatch, tmp_path):
    monkeypatch.setattr(libraries, "HEADER_DIRS", (str(tmp_path / "inc"),))
    monkeypatch.setattr(libraries, "LIB_DIRS", (str(tmp_path / "lib"),))
    monkeypatch.setattr(libraries, "SPECS", tuple(
        dataclasses.replace(s, wheels=()) for s in libraries.SPECS))
    for var in ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CUDNN_PATH"):
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize("answer,reason", [
    (err("not found"), "no CUDA libraries found (ldconfig -p: not found)"),
    (err("timed out after 5s"), "no CUDA libraries found (ldconfig -p: timed out after 5s)"),
    (out("", 1), "no CUDA libraries found (ldconfig -p: exited 1)"),
    (out("\x00\x01garbage => => (\n\tlibfoo"), "no CUDA libraries found"),
])
def test_ldconfig_failure_modes(no_library_folders, answer, reason):
    with runner.use_runner(fake_runner({"ldconfig": answer})):
        facts = libraries.probe()
    assert facts.probe.status is Status.NOT_FOUND
    assert facts.probe.reason == reason


def test_ldconfig_recorded_cudnn(no_library_folders):
    answer = out(recorded("ldconfig", "01-cudnn4-docker.txt"))
    with runner.use_runner(fake_runner({"ldconfig": answer})):
        facts = libraries.probe()
    assert facts.probe.status is Status.OK
    assert [(lib.name, lib.version) for lib in facts.named("cudnn")] == [("cudnn", Version("4"))]


def test_ldconfig_real_hang_costs_only_its_timeout(no_library_folders, monkeypatch, tmp_path):
    monkeypatch.setattr(libraries, "LDCONFIG_TIMEOUT", 0.3)
    sleeper(tmp_path, "ldconfig")
    monkeypatch.setenv("PATH", str(tmp_path))
    start = time.monotonic()
    facts = libraries.probe()
    assert time.monotonic() - start < 5  # and /sbin/ldconfig is not tried after a hang
    assert facts.probe.reason == "no CUDA libraries found (ldconfig -p: timed out after 0.3s)", \
        facts


def test_header_versions(no_library_folders, tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "cudnn_version.h").write_text(
        "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n")
    (inc / "nccl.h").write_text("garbage, no macros")
    with runner.use_runner(fake_runner({})):
        facts = libraries.probe()
    assert [(lib.name, lib.version) for lib in facts.libraries] == [
        ("cudnn", Version("9.1.0")), ("nccl", None)]


# --------------------------------------------------------------------------- host probe
def test_host_on_an_empty_root_still_answers(tmp_path, monkeypatch):
    import psutil

    def broken():
        raise OSError("no /proc/meminfo")
    monkeypatch.setattr(psutil, "virtual_memory", broken)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.delenv("container", raising=False)
    facts = host.probe(tmp_path)
    assert facts.probe.status is Status.OK
    assert facts.distro == "" and facts.container == "" and facts.wsl is None
    assert facts.ram_total_gb is None and facts.shm_total_gb is None
    assert facts.python_version is not None and facts.cpu_count >= 1


def test_host_reads_container_and_wsl_markers(tmp_path, monkeypatch):
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "os-release").write_text('PRETTY_NAME="Ubuntu 22.04.4 LTS"\n')
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "version").write_text(
        "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1)\n")
    (tmp_path / ".dockerenv").write_text("")
    facts = host.probe(tmp_path)
    assert (facts.distro, facts.container, facts.wsl) == ("Ubuntu 22.04.4 LTS", "docker", 2)


def test_host_memory_from_proc_meminfo_agrees_with_psutil():
    psutil = pytest.importorskip("psutil")
    if not os.path.exists("/proc/meminfo"):
        pytest.skip("no /proc/meminfo")
    facts = host.probe()
    assert facts.ram_total_gb == round(psutil.virtual_memory().total / host.GIB, 2)
    assert 0 < facts.ram_available_gb <= facts.ram_total_gb


def test_host_memory_from_a_recorded_meminfo(tmp_path):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "meminfo").write_text(
        "MemTotal:       65856852 kB\nMemFree:         1048576 kB\n"
        "MemAvailable:   33554432 kB\nBuffers:          123456 kB\n")
    facts = host.probe(tmp_path)
    assert (facts.ram_total_gb, facts.ram_available_gb) == (62.81, 32.0)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc to see the child")
def test_timeout_kills_the_commands_children_too(tmp_path):
    """A wrapper script that starts a child and hangs: both are gone after the timeout."""
    pidfile = tmp_path / "child.pid"
    script = tmp_path / "wrapper"
    sleep = shutil.which("sleep")
    script.write_text(f"#!/bin/sh\n{sleep} 30 &\necho $! > {pidfile}\n{sleep} 30\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    start = time.monotonic()
    result = runner.run([str(script)], 0.5)
    assert result.error == "timed out after 0.5s" and time.monotonic() - start < 5
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            state = "gone"
        if state in ("gone", "Z", "X"):
            break
        time.sleep(0.05)
    assert state in ("gone", "Z", "X")


# --------------------------------------------------------------------------- broken, not absent
BROKEN_SMI = [("21-device-handle-unknown-error.txt", 15, "device handle"),
              ("22-gpu-is-lost.txt", 15, "GPU is lost"),
              ("23-nvml-unknown-error-container.txt", 255, "Unknown Error"),
              ("25-no-devices-were-found.txt", 6, "No devices were found"),
              ("26-nvml-insufficient-permissions.txt", 4, "Insufficient Permissions")]


@pytest.mark.parametrize("name,rc,words", BROKEN_SMI)
def test_recorded_broken_nvidia_smi_is_a_failed_probe(monkeypatch, driver_root, name, rc, words):
    with_nvml(monkeypatch, RaisingNVML("Unknown Error"))
    smi = out(recorded("nvidia-smi", name), rc)
    with runner.use_runner(fake_runner({"nvidia-smi": smi}), which_only(nvidia_smi="/x")):
        facts = nvidia.probe(driver_root)
    assert facts.probe.status is Status.ERROR
    assert words in facts.probe.reason


def _kernel_module(root: Path) -> None:
    (root / "proc" / "driver" / "nvidia").mkdir(parents=True)
    (root / "proc" / "driver" / "nvidia" / "version").write_text(
        recorded("proc-driver-version", "01-open-kernel-module-565.txt"))


def test_no_libnvidia_ml_is_absent_without_driver_traces(monkeypatch, tmp_path):
    """nvidia-smi in an image, no driver mounted: the tool itself says its library is absent."""
    (tmp_path / "usr/lib/x86_64-linux-gnu").mkdir(parents=True)  # (nothing in it)
    monkeypatch.setenv("LD_LIBRARY_PATH", "")
    with_nvml(monkeypatch, RaisingNVML("NVML Shared Library Not Found"))
    smi = out(recorded("nvidia-smi", "24-couldnt-find-libnvidia-ml.txt"), 12)
    with runner.use_runner(fake_runner({"nvidia-smi": smi}), which_only(nvidia_smi="/x")):
        facts = nvidia.probe(tmp_path)
    assert facts.probe.status is Status.NOT_FOUND


@pytest.mark.parametrize("name,rc", [("24-couldnt-find-libnvidia-ml.txt", 12),
                                     ("09-failed-communicate-driver.txt", 9)])
def test_no_driver_said_next_to_a_loaded_kernel_module_is_a_failed_probe(
        monkeypatch, driver_root, name, rc):
    _kernel_module(driver_root)
    with_nvml(monkeypatch, RaisingNVML("NVML Shared Library Not Found"))
    smi = out(recorded("nvidia-smi", name), rc)
    with runner.use_runner(fake_runner({"nvidia-smi": smi}), which_only(nvidia_smi="/x")):
        facts = nvidia.probe(driver_root)
    assert facts.probe.status is Status.ERROR
    assert "kernel module 565.57.01 is loaded" in facts.probe.reason


def test_kernel_module_alone_leaves_the_gpu_list_failed(monkeypatch, tmp_path):
    _kernel_module(tmp_path)
    with_nvml(monkeypatch, RaisingNVML("NVML Shared Library Not Found"))
    with runner.use_runner(fake_runner({}), which_only()):
        facts = nvidia.probe(tmp_path)
    assert facts.probe.status is Status.OK and facts.driver_version == Version("565.57.01")
    assert "gpus" in facts.probe.failed


def test_wsl_libcuda_without_nvidia_smi_is_not_no_driver(monkeypatch, tmp_path):
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "dxg").write_text("")
    (tmp_path / "usr/lib/wsl/lib").mkdir(parents=True)
    (tmp_path / "usr/lib/wsl/lib/libcuda.so.1").write_text("")
    with_nvml(monkeypatch, RaisingNVML("NVML Shared Library Not Found"))
    with runner.use_runner(fake_runner({}), which_only()):
        facts = nvidia.probe(tmp_path)
    assert facts.probe.status is Status.ERROR
    assert "/usr/lib/wsl/lib/libcuda.so.1" in facts.probe.reason


H100_ROW = ("{i}, NVIDIA H100 80GB HBM3, GPU-{i}, 565.57.01, 9.0, 81559, 1, 30, 100.00, 700.00, "
            "5, 5, 16, 16, Disabled, Enabled, 0, No")


def _smi(query: CommandResult, table: CommandResult):
    return lambda argv: query if any(a.startswith("--query-gpu") for a in argv) else table


def test_one_gpu_lost_keeps_the_others_and_fails_the_list(monkeypatch, driver_root):
    lost = recorded("nvidia-smi", "21-device-handle-unknown-error.txt")
    rows = "".join(H100_ROW.format(i=i) + "\n" for i in (0, 1, 2))
    with_nvml(monkeypatch, RaisingNVML("Unknown Error"))
    answer = _smi(out(rows + lost, 15), out(lost, 15))
    with runner.use_runner(fake_runner({"nvidia-smi": answer}), which_only(nvidia_smi="/x")):
        facts = nvidia.probe(driver_root)
    assert facts.probe.status is Status.OK and len(facts.gpus) == 3
    assert "Unable to determine the device handle" in facts.probe.failed["gpus"]


@pytest.mark.parametrize("cell", ["[GPU requires reset]", "[Unknown Error]"])
def test_error_cells_are_a_failed_health_field(monkeypatch, driver_root, cell):
    row = H100_ROW.format(i=0).replace(", 30, 100.00,", f", {cell}, {cell},")
    table = recorded("nvidia-smi", "12-8x-h100-565-no-processes.txt")
    with_nvml(monkeypatch, RaisingNVML("Unknown Error"))
    answer = _smi(out(row + "\n"), out(table))
    with runner.use_runner(fake_runner({"nvidia-smi": answer}), which_only(nvidia_smi="/x")):
        facts = nvidia.probe(driver_root)
    assert len(facts.gpus) == 1 and facts.gpus[0].temperature_c is None
    assert cell in facts.probe.failed["gpus.health"] and "GPU 0" in facts.probe.failed["gpus.health"]


def test_not_available_cells_are_no_failure(monkeypatch, driver_root):
    row = H100_ROW.format(i=0).replace(", 0, No", ", [N/A], [N/A]").replace(
        "Disabled", "[Insufficient Permissions]")
    with_nvml(monkeypatch, RaisingNVML("Unknown Error"))
    answer = _smi(out(row + "\n"), out(recorded("nvidia-smi", "12-8x-h100-565-no-processes.txt")))
    with runner.use_runner(fake_runner({"nvidia-smi": answer}), which_only(nvidia_smi="/x")):
        facts = nvidia.probe(driver_root)
    assert facts.probe.status is Status.OK and facts.probe.failed == {}


def test_table_err_cells_name_their_gpu():
    table = recorded("nvidia-smi", "12-8x-h100-565-no-processes.txt").replace(
        "| N/A   30C    P0             82W /  700W |", "|ERR!  ERR!   ERR!           ERR! /  ERR! |")
    assert nvidia.table_error_rows(table) == ["GPU 1: ERR! in the nvidia-smi table"]
    assert nvidia.table_error_rows(recorded("nvidia-smi", "12-8x-h100-565-no-processes.txt")) == []


def test_truncated_query_output_fails_the_gpu_list(monkeypatch, driver_root):
    table = recorded("nvidia-smi", "12-8x-h100-565-no-processes.txt")[:700]
    with_nvml(monkeypatch, RaisingNVML("Unknown Error"))
    answer = _smi(out("0, NVIDIA H100 80GB HBM3, GPU-5f6b"), out(table))
    with runner.use_runner(fake_runner({"nvidia-smi": answer}), which_only(nvidia_smi="/x")):
        facts = nvidia.probe(driver_root)
    assert "truncated" in facts.probe.failed["gpus"]


def test_nvml_gpu_it_cannot_open_fails_the_gpu_list(monkeypatch, driver_root):
    class OneLost(TwoGpuNVML):
        def nvmlDeviceGetHandleByIndex(self, i):
            if i == 1:
                raise NVMLError("GPU is lost")
            return i
    with_nvml(monkeypatch, OneLost())
    with runner.use_runner(fake_runner({}), which_only()):
        facts = nvidia.probe(driver_root)
    assert facts.probe.source == "nvml" and len(facts.gpus) == 1
    assert "GPU 1: GPU is lost" in facts.probe.failed["gpus"]


def test_nvml_gpu_that_needs_a_reset_fails_its_health(monkeypatch, driver_root):
    class NeedsReset(TwoGpuNVML):
        def nvmlDeviceGetTemperature(self, h, sensor):
            if h == 0:
                raise NVMLError("GPU requires reset")
            return 40

        def nvmlDeviceGetPowerUsage(self, h):
            raise NVMLError("Not Supported")  # not available: no failure
    with_nvml(monkeypatch, NeedsReset())
    with runner.use_runner(fake_runner({}), which_only()):
        facts = nvidia.probe(driver_root)
    assert len(facts.gpus) == 2
    assert facts.probe.failed == {"gpus.health": "NVML reports GPU 0: GetTemperature: GPU "
                                                 "requires reset"}
