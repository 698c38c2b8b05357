"""Recordings of a one-chip Cloud TPU v5e VM (tests/data/tpu/README.md): the healthy machine, JAX
installed without libtpu, and JAX_PLATFORMS=cpu (the second process on a held chip, recorded
the same day, is tests/data/tpu/second-process-check.json's).

Two ways in, as a user gets there: `check --facts` on the snapshots `check --format json`
recorded there, and `check --static --root` on a tree rebuilt from the machine's own /etc,
/proc, /sys/bus/pci and /dev listing, with the TPU_* variables of its environment and a fake
site-packages holding the distributions the VM had. A healthy TPU host gets no warning under
any intent; a TPU host is never told to install an NVIDIA driver or CUDA builds of JAX."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.heldout.test_machines import deps  # noqa: F401 - the fixture

DATA = Path(__file__).parent / "data" / "tpu"
REPO = Path(__file__).resolve().parents[1]
NVIDIA_ADVICE = re.compile(r"--gpus all|jax\[cuda|nvidia-smi must list|NVIDIA driver \(", re.I)


def _check(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, dict]:
    done = subprocess.run([sys.executable, *(["-S"] if env else []), "-m", "envdoctor", "check",
                           *argv, "--format", "json"], env=env, capture_output=True, text=True,
                          timeout=180, cwd=REPO)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.returncode, json.loads(done.stdout)


def _by_code(report: dict) -> dict[str, dict]:
    return {f["code"]: f for f in report["findings"]}


def _loud(report: dict) -> set[str]:
    return {f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")}


def _no_nvidia_advice(report: dict) -> None:
    for f in report["findings"]:
        assert f["code"] not in ("INTENT001", "INTENT002"), f["title"]
        if f["code"] != "CUDA001":  # the toolkit's own info names the driver it lacks
            assert not NVIDIA_ADVICE.search(f.get("fix", "")), (f["code"], f["fix"])


# --------------------------------------------------------------------------- check --facts
def _replay(name: str, intent: str) -> tuple[int, dict]:
    return _check(["--facts", str(DATA / f"v5e-run2-{name}.json"), "--expect", intent])


@pytest.mark.parametrize("name", ["healthy-full", "healthy-static"])
@pytest.mark.parametrize("intent", ["gpu", "auto", "cpu"])
def test_the_healthy_tpu_vm_is_clean(name, intent):
    code, report = _replay(name, intent)
    assert code == 0 and not _loud(report), (intent, _loud(report))
    assert set(_by_code(report)) <= {"CUDA001"}, list(_by_code(report))


@pytest.mark.parametrize("name", ["nolibtpu", "nolibtpu-static"])
def test_jax_without_libtpu_is_named_with_the_tpu_install(name):
    recorded = json.loads((DATA / f"v5e-run2-{name}.json").read_text(encoding="utf-8"))
    assert recorded["facts"]["frameworks"]["jax"]["plugins"] == []
    code, report = _replay(name, "gpu")
    found = _by_code(report)
    assert code == 1 and found["TPU001"]["severity"] == "error", list(found)
    assert 'jax[tpu]==0.10.2' in found["TPU001"]["fix"], found["TPU001"]["fix"]
    _no_nvidia_advice(report)
    assert "LIVE007" not in found
    assert _loud(report) == {"TPU001"}


def test_jax_without_libtpu_warns_under_the_default_intent():
    code, report = _replay("nolibtpu", "auto")
    assert _by_code(report)["TPU001"]["severity"] == "warning" and code == 0
    code, report = _replay("nolibtpu", "cpu")
    assert not _loud(report) and code == 0


def test_the_fallback_message_jax_printed_is_still_recorded():
    """The worker's stderr is JAX's own words; the finding rests on the facts, not on them."""
    recorded = json.loads((DATA / "v5e-run2-nolibtpu.json").read_text(encoding="utf-8"))
    tail = recorded["facts"]["live"]["jax"]["stderr_tail"]
    assert "A Google TPU may be present on this machine" in tail


def test_jax_platforms_cpu_fails_an_accelerator_intent_only():
    recorded = json.loads((DATA / "v5e-run2-jaxcpu.json").read_text(encoding="utf-8"))
    assert recorded["facts"]["env"]["vars"]["JAX_PLATFORMS"] == "cpu"
    code, report = _replay("jaxcpu", "gpu")
    found = _by_code(report)
    assert code == 1 and found["TPU002"]["severity"] == "error", list(found)
    assert "JAX_PLATFORMS=cpu" in found["TPU002"]["title"]
    _no_nvidia_advice(report)
    code, report = _replay("jaxcpu", "auto")
    assert code == 0 and not _loud(report), _loud(report)
    assert _by_code(report)["TPU002"]["severity"] == "info"
    code, report = _replay("jaxcpu", "cpu")
    assert "TPU002" not in _by_code(report)


# --------------------------------------------------------------------------- check --static --root
MACHINE = json.loads((DATA / "v5e-root.json").read_text(encoding="utf-8"))
# What `pip list` showed in the VM's site-packages (tests/data/tpu/README.md)
SITE = {"jax": ("0.10.2", "py3-none-any"),
        "jaxlib": ("0.10.2", "cp311-cp311-manylinux_2_27_x86_64"),
        "libtpu": ("0.0.42.1", "py3-none-manylinux_2_31_x86_64"),
        "ml_dtypes": ("0.6.0", "cp311-cp311-manylinux_2_27_x86_64"),
        "numpy": ("2.4.6", "cp311-cp311-manylinux_2_27_x86_64"),
        "opt_einsum": ("3.4.0", "py3-none-any"),
        "scipy": ("1.17.1", "cp311-cp311-manylinux_2_27_x86_64")}


def _machine(box: Path, without: tuple[str, ...] = ()) -> tuple[Path, Path]:
    root, site = box / "root", box / "site"
    for rel, text in MACHINE["files"].items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for rel in MACHINE["nodes"]:  # device nodes as plain files, as other --root tests fake them
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    for name, (version, tag) in SITE.items():
        if name in without:
            continue
        meta = site / f"{name}-{version}.dist-info"
        meta.mkdir(parents=True)
        (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n")
        (meta / "WHEEL").write_text(f"Wheel-Version: 1.0\nGenerator: bdist_wheel\nRoot-Is-Purelib: false\nTag: {tag}\n")
        (meta / "top_level.txt").write_text(name + "\n")
        (site / name).mkdir()
        (site / name / "__init__.py").write_text("")
    return root, site


def _static(box: Path, deps_dir: Path, intent: str, without: tuple[str, ...] = (),
            env: dict[str, str] | None = None) -> tuple[int, dict]:
    root, site = _machine(box, without)
    bindir = box / "bin"
    bindir.mkdir()
    environ = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps_dir}",
               "HOME": str(box), "USER": "nobody", "ENVDOCTOR_NO_CACHE": "1", "LANG": "C.UTF-8",
               **MACHINE["env"], **(env or {})}
    return _check(["--static", "--root", str(root), "--expect", intent], environ)


def test_the_probe_reads_the_tpu_chips_and_node_of_the_recorded_tree(tmp_path, deps):  # noqa: F811
    code, report = _static(tmp_path, deps, "gpu")
    host = report["facts"]["host"]
    chips = host["google_pci_devices"]
    assert [c["device"] for c in chips] == ["0x0063"] * 4, chips
    assert {c["pci_class"] for c in chips} == {"0xff0000"} and {c["driver"] for c in chips} == {""}
    assert host["gpu_device_nodes"] == ["/dev/vfio/0"]
    assert code == 0 and not _loud(report), _loud(report)


@pytest.mark.parametrize("intent", ["auto", "cpu"])
def test_the_recorded_tree_is_clean_under_other_intents(tmp_path, deps, intent):  # noqa: F811
    code, report = _static(tmp_path, deps, intent)
    assert code == 0 and not _loud(report), (intent, _loud(report))


def test_the_recorded_tree_without_libtpu(tmp_path, deps):  # noqa: F811
    code, report = _static(tmp_path, deps, "gpu", without=("libtpu",))
    found = _by_code(report)
    assert code == 1 and found["TPU001"]["severity"] == "error", list(found)
    assert 'jax[tpu]==0.10.2' in found["TPU001"]["fix"]
    assert "TPU v5e" in found["TPU001"]["why"]  # the chips on the PCI bus are the evidence
    _no_nvidia_advice(report)


def test_the_chips_alone_make_a_tpu_host(tmp_path, deps):  # noqa: F811
    """A container on the VM that passes none of the TPU_* variables: the PCI bus still says
    TPU, so JAX without libtpu is TPU001's, not INTENT001's 'no GPU'."""
    box = tmp_path
    root, site = _machine(box, without=("libtpu",))
    bindir = box / "bin"
    bindir.mkdir()
    environ = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps}",
               "HOME": str(box), "USER": "nobody", "ENVDOCTOR_NO_CACHE": "1", "LANG": "C.UTF-8"}
    code, report = _check(["--static", "--root", str(root), "--expect", "gpu"], environ)
    found = _by_code(report)
    assert code == 1 and "TPU001" in found, list(found)
    _no_nvidia_advice(report)


def test_jax_platforms_cpu_on_the_recorded_tree(tmp_path, deps):  # noqa: F811
    code, report = _static(tmp_path, deps, "gpu", env={"JAX_PLATFORMS": "cpu"})
    assert code == 1 and _by_code(report)["TPU002"]["severity"] == "error"


# ------------------------------------------------- recorded live, with these checks (runs 3, 4)
@pytest.mark.parametrize(("name", "code", "loud"), [
    ("run3-nolibtpu-gpu", 1, {"TPU001"}),
    ("run3-jaxcpu-gpu", 1, {"TPU002"}),
    ("run3-healthy-full-gpu", 0, set()),
    ("run4-healthy-full-gpu", 0, set()),
])
def test_what_the_tpu_vm_itself_answered_replays_the_same(name, code, loud):
    """``check --expect gpu --format json`` run on the VM with the TPU checks in place (run 3,
    and run 4 after 2026-12-07's platform signatures and paste readers): replayed, the verdict is
    the one the machine gave, and no NVIDIA advice."""
    got, report = _check(["--facts", str(DATA / f"v5e-{name}.json"), "--expect", "gpu"])
    assert (got, _loud(report)) == (code, loud)
    _no_nvidia_advice(report)
