"""The probe registry: every probe module is listed, and a broken probe never hides the rest."""

from __future__ import annotations

import pkgutil
import threading
import time
import types

import pytest

from envdoctor import probes
from envdoctor.facts import SECTIONS, Facts, Status


def test_every_probe_module_is_registered():
    modules = {m.name for m in pkgutil.iter_modules(probes.__path__) if not m.name.startswith("_")}
    registered = {module.__name__.rsplit(".", 1)[1] for module in probes.REGISTRY.values()}
    assert set(probes.READERS) <= modules and not set(probes.READERS) & registered
    assert modules - registered - set(probes.READERS) == set(), \
        "add these modules to REGISTRY in probes/__init__.py"
    for section, module in probes.REGISTRY.items():
        assert module.SECTION == section and callable(module.probe)


def test_registry_covers_every_section():
    assert set(probes.REGISTRY) == set(SECTIONS)


@pytest.fixture
def broken_registry(monkeypatch):
    release = threading.Event()

    def raises():
        raise ValueError("parser met a GPU from the future")

    def hangs():
        release.wait(30)
        raise AssertionError("should have been abandoned")

    monkeypatch.setitem(probes.REGISTRY, "cuda", types.SimpleNamespace(SECTION="cuda",
                                                                       probe=raises))
    monkeypatch.setitem(probes.REGISTRY, "nvidia", types.SimpleNamespace(SECTION="nvidia",
                                                                         probe=hangs))
    yield
    release.set()


def test_a_raising_and_a_hanging_probe_become_errors(broken_registry):
    start = time.monotonic()
    facts = probes.collect(deadline=0.5, sections=("cuda", "nvidia", "env", "packages"))
    assert time.monotonic() - start < 5
    assert facts.cuda.probe.status is Status.ERROR
    assert facts.cuda.probe.reason == "probe crashed: ValueError: parser met a GPU from the future"
    assert facts.nvidia.probe.status is Status.ERROR
    assert facts.nvidia.probe.reason == "probe timed out after 0.5s"
    assert facts.nvidia.gpus == () and facts.cuda.toolkits == ()
    # the others still answered
    assert facts.env.probe.status is Status.OK
    assert facts.packages.probe.status is Status.OK and facts.packages.distributions


def test_broken_probes_survive_the_json_round_trip(broken_registry):
    facts = probes.collect(deadline=0.5, sections=("cuda", "nvidia"))
    again = Facts.from_dict(facts.to_dict())
    assert again.cuda.probe.status is Status.ERROR and again.nvidia.probe.reason.startswith(
        "probe timed out")


def test_run_probe_records_seconds():
    result = probes.run_probe("env", probes.REGISTRY["env"])
    assert result.probe.status is Status.OK and result.probe.seconds >= 0


def test_unselected_sections_stay_unknown():
    facts = probes.collect(sections=("env",))
    assert facts.env.probe.status is Status.OK
    assert facts.nvidia.probe.status is Status.UNKNOWN
