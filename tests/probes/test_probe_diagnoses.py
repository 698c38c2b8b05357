"""A probe failure whose text names a known state is that diagnosis (issue: "diagnosable probe
failures"): the recorded outputs of real broken nvidia-smi runs go through the NVIDIA probe,
then the one signature engine, then the checks, and the finding is the state, at error
severity wherever a driver is installed, never the generic "the NVIDIA probe failed"."""

from __future__ import annotations

from pathlib import Path

import pytest

from envdoctor import runner
from envdoctor.engine.checks import evaluate, example_facts, load_checks
from envdoctor.facts import Facts, HostFacts, ProbeInfo, Status
from envdoctor.pipeline import diagnosed
from envdoctor.probes import nvidia

from .test_probe_failures import RaisingNVML, fake_runner, out, which_only, with_nvml
from .test_probe_recorded import recorded

CHECKS = load_checks()


def _root(tmp_path: Path, module: bool) -> Path:
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "nvidiactl").write_text("")
    if module:
        (tmp_path / "proc" / "driver" / "nvidia").mkdir(parents=True)
        (tmp_path / "proc" / "driver" / "nvidia" / "version").write_text(
            recorded("proc-driver-version", "01-open-kernel-module-565.txt"))
    return tmp_path


def _fired(facts: Facts, intent: str) -> dict[str, str]:
    return {r.code: r.finding.severity.value for r in evaluate(facts, CHECKS, intent)
            if r.state == "fired" and r.finding is not None}


def _probe(monkeypatch, root: Path, nvml: str, smi: tuple[str, int] | None) -> Facts:
    with_nvml(monkeypatch, RaisingNVML(nvml))
    answers = {"nvidia-smi": out(recorded("nvidia-smi", smi[0]), smi[1])} if smi else {}
    which = which_only(nvidia_smi="/x") if smi else which_only()
    with runner.use_runner(fake_runner(answers), which):
        found = nvidia.probe(root)
    return diagnosed(Facts(host=HostFacts(os="Linux"), nvidia=found))


# (case, NVML's error, recorded nvidia-smi output and exit code, kernel module loaded,
#  the finding, its signature)
KNOWN = [
    ("gpu lost", "Unknown Error", ("22-gpu-is-lost.txt", 15), True, "PROBE003", "EDRV001"),
    ("device handle unknown", "Unknown Error", ("21-device-handle-unknown-error.txt", 15), True,
     "PROBE003", "EDRV001"),
    ("no devices, module loaded", "Unknown Error", ("25-no-devices-were-found.txt", 6), True,
     "PROBE003", "EDRV002"),
    ("insufficient permissions", "Insufficient Permissions",
     ("26-nvml-insufficient-permissions.txt", 4), True, "PROBE003", "EDRV003"),
    ("mismatch, nvidia-smi and module", "Driver/library version mismatch",
     ("10-nvml-driver-library-mismatch.txt", 18), True, "DRV003", "ESYS002"),
    ("mismatch, no module visible, no nvidia-smi", "Driver/library version mismatch", None,
     False, "DRV003", "ESYS002"),
]


@pytest.mark.parametrize("case,nvml,smi,module,code,signature", KNOWN, ids=[k[0] for k in KNOWN])
@pytest.mark.parametrize("intent", ["auto", "gpu"])
def test_a_failure_naming_a_known_state_is_that_diagnosis(monkeypatch, tmp_path, case, nvml,
                                                          smi, module, code, signature, intent):
    facts = _probe(monkeypatch, _root(tmp_path, module), nvml, smi)
    assert signature in {d.code for d in facts.nvidia.probe.diagnoses}
    fired = _fired(facts, intent)
    assert fired.get(code) == "error", fired
    assert "PROBE001" not in fired  # one cause, one finding
    assert not ({"DRV003", "PROBE003"} - {code}) & fired.keys()


def test_under_expect_cpu_the_state_is_a_warning(monkeypatch, tmp_path):
    facts = _probe(monkeypatch, _root(tmp_path, True), "Unknown Error",
                   ("22-gpu-is-lost.txt", 15))
    assert _fired(facts, "cpu").get("PROBE003") == "warning"


def test_the_finding_says_the_state_and_its_fix(monkeypatch, tmp_path):
    facts = _probe(monkeypatch, _root(tmp_path, True), "Unknown Error",
                   ("22-gpu-is-lost.txt", 15))
    finding = next(r.finding for r in evaluate(facts, CHECKS, "auto") if r.code == "PROBE003")
    assert finding is not None
    assert "GPU is lost" in finding.title and "nvidia-smi -r" in finding.fix
    assert "0000:02:00.0" in finding.why  # what the probe said is in the reason


def test_a_failure_that_names_nothing_known_stays_a_failed_probe(monkeypatch, tmp_path):
    """NVML's bare "Unknown Error" in a container is no named state: PROBE001, a warning."""
    facts = _probe(monkeypatch, _root(tmp_path, False), "Unknown Error",
                   ("23-nvml-unknown-error-container.txt", 255))
    assert facts.nvidia.probe.diagnoses == ()
    fired = _fired(facts, "auto")
    assert fired.get("PROBE001") == "warning" and "PROBE003" not in fired


def test_a_healthy_probe_is_not_read_by_the_signatures():
    facts = Facts(nvidia=nvidia.NvidiaFacts(probe=ProbeInfo(Status.OK)))
    assert diagnosed(facts) is facts


def test_an_observed_import_error_outranks_the_metadata_inference():
    """NumPy has no metadata here, but the jax import was seen failing on libcudnn: the
    import error is the finding (LIVE006), and NP002 does not claim JAX."""
    facts = diagnosed(example_facts({
        "packages": {"distributions": {"jax": "0.10.2", "jaxlib": "0.10.2"}},
        "frameworks": {"jax": {"version": "0.10.2"}},
        "live": {"jax": {"probe": {"status": "ok"}, "import_ok": False,
                         "import_error": "ImportError: libcudnn.so.9: cannot open shared "
                                         "object file: No such file or directory"}}}))
    fired = _fired(facts, "auto")
    assert "LIVE006" in fired and "NP002" not in fired, fired
