"""End-to-end: the real CLI in child processes on this machine (a CUDA 13.0 toolkit, no NVIDIA
driver, no GPU, CPU builds of the frameworks), and an installed wheel outside the source tree.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from envdoctor import __version__
from envdoctor.facts import SCHEMA_VERSION
from envdoctor.outputs.report import REPORT_SCHEMA_VERSION


def _torch_version() -> str | None:
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def _has_cuda_13_nvcc() -> bool:
    nvcc = shutil.which("nvcc")
    if not nvcc:
        return False
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=30).stdout
    return "release 13.0" in out


needs_this_machine = pytest.mark.skipif(
    not _has_cuda_13_nvcc() or os.path.exists("/proc/driver/nvidia"),
    reason="expects this project's reference machine: CUDA 13.0 nvcc, no NVIDIA driver")


@pytest.fixture(scope="module")
def live_json():
    proc = run_cli("check", "--static", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _codes(report: dict) -> list[tuple[str, str]]:
    return sorted((f["code"], f["severity"]) for f in report["findings"])


# --------------------------------------------------------------------------- this machine
@needs_this_machine
def test_check_reports_this_machine(live_json):
    facts = live_json["facts"]
    cuda = facts["cuda"]
    assert cuda["probe"]["status"] == "ok"
    assert cuda["nvcc_version"].startswith("13.0")
    assert any(t["source"] == "nvcc" and t["version"].startswith("13.0")
               for t in cuda["toolkits"])
    nvidia = facts["nvidia"]
    assert nvidia["probe"]["status"] == "not_found"
    assert nvidia["driver_version"] is None and nvidia["gpus"] == []
    assert not nvidia["pci_devices"]
    assert live_json["schema_version"] == REPORT_SCHEMA_VERSION
    assert live_json["facts_schema_version"] == live_json["facts"]["schema_version"] == SCHEMA_VERSION
    assert live_json["envdoctor_version"] == __version__
    # a toolkit without a driver on a GPU-less machine is an info line, never worse
    assert ("CUDA001", "info") in _codes(live_json)
    assert all(f["severity"] == "info" for f in live_json["findings"])


@needs_this_machine
@pytest.mark.skipif(_torch_version() is None, reason="torch is not installed")
def test_check_reports_cpu_torch(live_json):
    torch = live_json["facts"]["frameworks"]["torch"]
    assert torch["version"] == _torch_version()
    assert torch["cuda"] is None
    if _torch_version() == "2.13.0+cpu":
        assert torch["version"] == "2.13.0+cpu"


@needs_this_machine
def test_check_text_summary():
    proc = run_cli("check")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    driver = next(ln for ln in lines if "NVIDIA driver" in ln)
    assert "not installed" in driver and "no NVIDIA GPU" in driver
    toolkit = next(ln for ln in lines if "CUDA toolkit" in ln)
    assert "13.0" in toolkit and "nvcc" in toolkit
    if _torch_version():
        torch = next(ln for ln in lines if ln.lstrip("[✓!✗? ]").startswith("PyTorch"))
        assert _torch_version() in torch and "CPU-only" in torch
    assert proc.stderr == ""


@needs_this_machine
def test_expect_gpu_fails_with_the_reason():
    proc = run_cli("check", "--static", "--expect", "gpu", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    (intent,) = [f for f in report["findings"] if f["code"] == "INTENT001"]
    assert intent["severity"] == "error"
    assert "no NVIDIA" in intent["title"] or "no NVIDIA" in intent["why"]
    text = run_cli("check", "--static", "--expect", "gpu")
    assert text.returncode == 1 and "INTENT001" in text.stdout


def test_fail_on_never_exits_zero():
    proc = run_cli("check", "--static", "--expect", "gpu", "--fail-on", "never")
    assert proc.returncode == 0, proc.stderr


# --------------------------------------------------------------------------- replay
def test_facts_snapshot_replays_to_the_same_findings(tmp_path, live_json):
    snap = tmp_path / "snap.json"
    wrote = run_cli("facts", "-o", str(snap))
    assert wrote.returncode == 0 and wrote.stdout == "", wrote.stderr
    replay = run_cli("check", "--facts", str(snap), "--format", "json")
    assert replay.returncode == 0, replay.stderr
    replayed = json.loads(replay.stdout)
    assert replayed["facts"]["nvidia"] == json.loads(snap.read_text())["nvidia"]
    assert replayed["findings"] == live_json["findings"]


@pytest.mark.parametrize("intent", ["auto", "gpu"])
def test_check_json_output_replays_itself(tmp_path, intent):
    out = tmp_path / "report.json"
    first = run_cli("check", "--static", "--expect", intent, "--format", "json", "-o", str(out))
    again = run_cli("check", "--facts", str(out), "--expect", intent, "--format", "json")
    assert again.returncode == first.returncode
    assert json.loads(again.stdout)["findings"] == json.loads(out.read_text())["findings"]


def _bad(tmp_path: Path, kind: str) -> str:
    path = tmp_path / "bad.json"
    if kind == "missing":
        return str(tmp_path / "nope.json")
    if kind == "directory":
        return str(tmp_path)
    content = {"invalid": b"{not json", "binary": bytes(range(256)) * 4, "list": b"[]",
               "schema": json.dumps({"schema_version": SCHEMA_VERSION + 41}).encode(),
               "empty": b"", "shape": json.dumps({"schema_version": SCHEMA_VERSION,
                                                   "nvidia": {"gpus": "many"}}).encode()}[kind]
    path.write_bytes(content)
    return str(path)


@pytest.mark.parametrize("kind,says", [
    ("missing", "no such file"), ("directory", "directory"), ("invalid", "not valid JSON"),
    ("binary", "bad.json"), ("list", "JSON object"), ("schema", f"schema_version {SCHEMA_VERSION + 41}"),
    ("empty", "not valid JSON"), ("shape", "gpus"),
])
def test_bad_facts_file_is_one_line_and_exit_2(tmp_path, kind, says):
    proc = run_cli("check", "--facts", _bad(tmp_path, kind))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("envdoctor: error: ") and says in lines[0]
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_version():
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"envdoctor, version {__version__}"


def test_piped_output_has_no_colour():
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["TERM"] = "xterm-256color"
    proc = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--static"], env=env,
                          capture_output=True, text=True, timeout=120, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" not in proc.stdout and "[✓]" in proc.stdout


def test_no_color_under_a_terminal():
    """Under a pseudo-terminal rich colours the text, unless NO_COLOR is set."""
    pty = pytest.importorskip("pty")

    def under_tty(extra_env: dict[str, str]) -> bytes:
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env.update(TERM="xterm-256color", COLUMNS="100", **extra_env)
        main, sub = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "envdoctor", "check", "--static"],
                                stdout=sub, stderr=subprocess.DEVNULL, env=env, cwd=REPO)
        os.close(sub)
        chunks = []
        while True:
            try:
                data = os.read(main, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        proc.wait(timeout=120)
        os.close(main)
        return b"".join(chunks)

    assert b"\x1b[" in under_tty({})
    assert b"\x1b[" not in under_tty({"NO_COLOR": "1"})


# --------------------------------------------------------------------------- installed wheel
def _hatchling_available() -> bool:
    try:
        importlib.metadata.version("hatchling")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.skipif(not _hatchling_available(),
                    reason="needs hatchling (pip install -e '.[test]') to build the wheel")
def test_wheel_installs_and_runs_outside_the_source_tree(tmp_path):
    wheels = tmp_path / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            "--no-build-isolation", "-q", "-w", str(wheels), str(REPO)],
                           capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    (wheel,) = wheels.glob("envdoctor-*.whl")

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()"
                                "['purelib'])"], capture_output=True, text=True,
                               check=True).stdout.strip())
    # Dependencies (click, rich, …) and the frameworks come from this test's environment,
    # appended after the new venv's own site-packages; its editable envdoctor is not (a plain
    # path entry does not run that folder's .pth hooks).
    (site / "zz_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install",
                              "--no-deps", "--no-index", "-q", str(wheel)],
                             capture_output=True, text=True, timeout=120)
    assert install.returncode == 0, install.stderr

    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "ENVDOCTOR_RULES", "VIRTUAL_ENV")}
    env.update(NO_COLOR="1", PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    where = subprocess.run([str(py), "-c", "import envdoctor, envdoctor.rulefiles as k; "
                            "print(envdoctor.__file__); print(k.rules_dir())"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    module_file, rules = where.stdout.split()
    assert module_file.startswith(str(venv)), where
    assert rules.startswith(str(venv)) and rules.endswith("_rules")
    assert (Path(rules) / "checks").is_dir()
    assert (Path(module_file).parent / "_schema" / "facts.schema.json").is_file()

    proc = subprocess.run([str(venv / "bin" / "envdoctor"), "check"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "CUDA toolkit" in proc.stdout and "NVIDIA driver" in proc.stdout
    gpu = subprocess.run([str(venv / "bin" / "envdoctor"), "check", "--expect", "gpu"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    if not os.path.exists("/proc/driver/nvidia"):
        assert gpu.returncode == 1 and "INTENT001" in gpu.stdout

    # The knowledge ships in the wheel: rules list/show/test read envdoctor/_rules.
    tool = str(venv / "bin" / "envdoctor")
    listing = subprocess.run([tool, "rules", "list", "--format", "json"], capture_output=True,
                             text=True, env=env, cwd=tmp_path, timeout=60)
    assert listing.returncode == 0, listing.stderr
    assert len(json.loads(listing.stdout)) >= 40
    shown = subprocess.run([tool, "rules", "show", "DRV001"], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=60)
    assert shown.returncode == 0 and "https://" in shown.stdout, shown.stderr
    tested = subprocess.run([tool, "rules", "test"], capture_output=True, text=True, env=env,
                            cwd=tmp_path, timeout=120)
    assert tested.returncode == 0, tested.stdout + tested.stderr
