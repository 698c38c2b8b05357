"""Static probes: one module per source of facts, listed in one registry.

A probe module has ``SECTION`` (the field of ``Facts`` it fills) and ``probe()`` returning that
section (``Probe``; mypy checks every registered module against it). ``collect`` runs them
concurrently, each under a deadline, and turns an exception or a hang into a recorded probe
error, so one broken source never hides the rest.
"""

from __future__ import annotations

import threading
import time
import traceback
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ClassVar, Protocol

from envdoctor import __version__
from envdoctor.facts import Facts, ProbeInfo, Status
from envdoctor.probes import (
    apple,
    cuda,
    envvars,
    frameworks,
    host,
    jetson,
    libraries,
    nvidia,
    packages,
    rocm,
)
from envdoctor.probes._root import SYSTEM, is_system, shown, under

__all__ = ["SYSTEM", "REGISTRY", "collect", "run_probe", "shown", "under"]


class Section(Protocol):
    """What a probe returns: a frozen facts dataclass that records how its probe went."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def probe(self) -> ProbeInfo: ...


class Probe(Protocol):
    """A probe module: the ``Facts`` field it fills, and the call that fills it."""

    SECTION: str

    def probe(self, *, root: Path = ...) -> Section: ...


# Public modules here that are not probes: readers of a tool's output that a probe and the
# pasted-report parsers share (``check --from`` reads a pasted rocminfo as the probe does).
READERS = ("rocm_output",)

REGISTRY: dict[str, Probe] = {
    "host": host,
    "nvidia": nvidia,
    "rocm": rocm,
    "apple": apple,
    "jetson": jetson,
    "cuda": cuda,
    "libraries": libraries,
    "packages": packages,
    "frameworks": frameworks,
    "env": envvars,
}
DEFAULT_DEADLINE = 20.0


def _empty(section: str) -> Section:
    return type(getattr(Facts(), section))()


def run_probe(section: str, module: Probe, deadline: float = DEFAULT_DEADLINE,
              root: Path = SYSTEM) -> Section:
    """Run one probe in a daemon thread; never raises, never waits past ``deadline``.
    ``root`` is the tree its system files are read under (``--root``)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            # the system root is every probe's default: a probe is called as it is declared
            box["value"] = module.probe() if root == SYSTEM else module.probe(root=root)
        except BaseException as exc:  # noqa: BLE001 - a probe must never take the report down
            box["error"] = f"{type(exc).__name__}: {exc}"
            box["trace"] = traceback.format_exc(limit=4)

    start = time.monotonic()
    thread = threading.Thread(target=target, name=f"probe-{section}", daemon=True)
    thread.start()
    thread.join(deadline)
    seconds = round(time.monotonic() - start, 4)
    if thread.is_alive():
        from envdoctor import runner
        killed = runner.kill_owned_by(thread.ident or 0)
        what = f"; killed {killed} command(s) it had started" if killed else ""
        info = ProbeInfo(Status.ERROR, f"probe timed out after {deadline:g}s{what}",
                         seconds=seconds)
        return replace(_empty(section), probe=info)
    if "value" not in box:
        info = ProbeInfo(Status.ERROR, f"probe crashed: {box.get('error')}", seconds=seconds)
        return replace(_empty(section), probe=info)
    value: Section = box["value"]
    return replace(value, probe=replace(value.probe, seconds=seconds))


def collect(deadline: float = DEFAULT_DEADLINE, sections: tuple[str, ...] | None = None,
            root: Path = SYSTEM) -> Facts:
    """Run the static probes concurrently and assemble one snapshot; every probe reads its
    system files under ``root`` (one root for all, so no probe mixes two machines)."""
    from envdoctor.bounded import confine, unconfine
    previous = confine(None if is_system(root) else root)
    try:
        return _collect(deadline, sections, root)
    finally:
        unconfine(previous)


def _collect(deadline: float, sections: tuple[str, ...] | None, root: Path) -> Facts:
    chosen = {k: m for k, m in REGISTRY.items() if sections is None or k in sections}
    results: dict[str, Section] = {}
    threads = []
    for section, module in chosen.items():
        t = threading.Thread(target=lambda s=section, m=module: results.__setitem__(
            s, run_probe(s, m, deadline, root)), daemon=True)
        t.start()
        threads.append(t)
    end = time.monotonic() + deadline + 1.0
    for t in threads:
        t.join(max(0.0, end - time.monotonic()))
    facts = Facts(envdoctor_version=__version__,
                  created=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    for section in chosen:
        value = results.get(section) or replace(
            _empty(section), probe=ProbeInfo(Status.ERROR, "probe did not report"))
        facts = facts.with_section(section, value)
    from envdoctor.facts.serialize import out_of_range_unobserved
    return out_of_range_unobserved(facts)  # a tool that printed 10**64 MiB observed nothing
