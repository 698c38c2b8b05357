"""What the simulated-machine batches (plat25 on) compute alike: the diagnosis run and, from
plat27, the structure checks that never run envdoctor.

Each machine is built by its batch module (``build(platform, sc, box)`` -> site-packages, a PATH
folder of recorded tools, the root of fake system files and extra environment) and run as a user
runs it: ``check --static --root DIR --format json --expect gpu``. A healthy machine gets no
warning or error and exits 0; a broken one gets a finding of one of its labelled check ids at the
labelled severity and exits 1; a machine of a platform in ``non_nvidia`` is never told to install
the NVIDIA driver or a CUDA wheel (other than by the finding that names its cause). A row that
failed its batch's first run is a strict xfail carrying what envdoctor said then, so a fix shows.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
NVIDIA_NOISE = re.compile(r"nvidia driver|nvidia-smi|--gpus all|\+cu1\d\d|"
                          r"download\.pytorch\.org/whl/cu|and-cuda|cuda12", re.I)
# the machines run the test's own interpreter: its version says nothing about the machine
INTERPRETER = {"python-outside-torch-range"}


def run(build: Callable[..., Any], platform: str, sc: dict, box: Path,
        deps_dir: Path) -> tuple[int, list[dict]]:
    site, bindir, root, extra = build(platform, sc, box)
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps_dir}",
           "HOME": str(box), "USER": "alice", "ENVDOCTOR_NO_CACHE": "1", "LANG": "C.UTF-8",
           **extra}
    done = subprocess.run([sys.executable, "-S", "-m", "envdoctor", "check", "--static",
                           "--root", str(root), "--format", "json", "--expect", "gpu"],
                          env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.returncode, json.loads(done.stdout)["findings"]


def verdict(platform: str, sc: dict, code: int, found: list[dict],
            non_nvidia: Iterable[str]) -> list[str]:
    """What is wrong with envdoctor's answer for this machine (empty: right)."""
    loud = [f for f in found if f["severity"] in ("error", "warning") and f["id"] not in INTERPRETER]
    shown = [(f["code"], f["id"], f["severity"], f["title"]) for f in loud]
    wrong: list[str] = []
    hit: list[dict] = []
    if sc["healthy"]:
        if loud:
            wrong.append(f"not clean: {shown}")
        if code != 0:
            wrong.append(f"exit {code}, want 0")
    else:
        hit = [f for f in loud if f["id"] in sc["ids"]]
        if not hit:  # an unlabelled_check row's id exists in no check: a miss until one does
            wrong.append(f"not named (want {sorted(sc['ids'])}): {shown}")
        elif not any(f["severity"] == sc["severity"] for f in hit):
            wrong.append(f"severity (want {sc['severity']}): {shown}")
        if code != 1:
            wrong.append(f"--expect gpu exit {code}, want 1: {shown}")
    if platform in non_nvidia:
        noisy = [(f["id"], f["severity"]) for f in found if f not in hit
                 and NVIDIA_NOISE.search(f"{f['title']} {f.get('fix', '')}")]
        if noisy:
            wrong.append(f"NVIDIA advice on a non-NVIDIA machine: {noisy}")
    return wrong


def check_rows_cover_every_platform(platforms: dict, rows: Iterable[tuple[str, dict]]) -> None:
    for platform, (_, machines) in platforms.items():
        assert any(sc["healthy"] for sc in machines), platform
        assert any(not sc["healthy"] for sc in machines), platform
    for _, sc in rows:
        assert sc["healthy"] or (sc["ids"] and sc["severity"] in ("error", "warning")), sc["name"]


def params(rows: Iterable[tuple[str, dict]], first_run_failed: dict[str, str]) -> list[Any]:
    """One pytest param per machine; the first run's failures are strict xfails."""
    out = []
    for platform, sc in rows:
        marks = []
        if sc["name"] in first_run_failed:
            marks.append(pytest.mark.xfail(strict=True, reason=first_run_failed[sc["name"]]))
        out.append(pytest.param(platform, sc, id=f"{platform}:{sc['name']}", marks=marks))
    return out


# --------------------------------------------------------------------------- structure (no run)
# the keys a machine row may carry (plat27 on)
ROW_KEYS = {"name", "healthy", "sources", "note", "ids", "severity", "unlabelled_check", "tools",
            "system", "dists", "env", "machine", "ldconfig"}


def check_ids() -> set[str]:
    """Every check id in rules/checks, read as text (the structure tests never load the rules)."""
    ids = set()
    for path in (REPO / "rules" / "checks").rglob("*.toml"):
        found = re.search(r'^id\s*=\s*"([^"]+)"', path.read_text(encoding="utf-8"), re.M)
        if found:
            ids.add(found.group(1))
    return ids


def source_keys(*docs: str | None) -> set[str]:
    """The source keys (`` KEY  what it says, URL``) the batch docstrings define."""
    keys: set[str] = set()
    for doc in docs:
        keys |= set(re.findall(r"^ ([A-Z][A-Z0-9]+)\s", doc or "", re.M))
    return keys


def check_rows_well_formed(rows: list[tuple[str, dict]], sources: set[str],
                           at_least: int) -> None:
    """Unique names, enough machines, a third healthy, known keys and sources, and labelled
    check ids that exist (an ``unlabelled_check`` row's id must not exist yet)."""
    names = [sc["name"] for _, sc in rows]
    assert len(names) == len(set(names)), "duplicate machine names"
    assert len(names) >= at_least
    healthy = sum(sc["healthy"] for _, sc in rows)
    assert healthy * 3 >= len(names), f"{healthy} healthy of {len(names)}"
    checks = check_ids()
    for _, sc in rows:
        assert set(sc) <= ROW_KEYS, (sc["name"], set(sc) - ROW_KEYS)
        assert isinstance(sc["healthy"], bool), sc["name"]
        assert sc["healthy"] == sc["name"].endswith("-healthy"), sc["name"]
        assert sc["sources"] and set(sc["sources"]) <= sources, (sc["name"], set(sc["sources"]) - sources)
        if sc["healthy"]:
            assert "ids" not in sc and "severity" not in sc and "unlabelled_check" not in sc, sc["name"]
            continue
        assert sc["severity"] in ("error", "warning"), sc["name"]
        assert sc["ids"] and isinstance(sc["ids"], set), sc["name"]
        if sc.get("unlabelled_check"):
            assert not sc["ids"] & checks, (sc["name"], "its check exists now: drop unlabelled_check")
        else:
            assert sc["ids"] <= checks, (sc["name"], sc["ids"] - checks)


def check_recordings(folder: Path) -> None:
    """Every recorded tool output names its source on line 1."""
    files = sorted(folder.rglob("*.txt"))
    assert files
    for path in files:
        first = path.read_text(encoding="utf-8").partition("\n")[0]
        assert re.match(r"# source: (COMPOSED around )?https://", first), path


def check_machine_builds(build: Callable[..., Any], platform: str, sc: dict, box: Path) -> None:
    """The machine builds: its packages' metadata, its tools (ldconfig too), its soname links
    naming a file beside them, a non-empty root and a string environment."""
    site, bindir, root, env = build(platform, sc, box)
    assert site.is_dir() and bindir.is_dir() and root.is_dir()
    for dist in sc.get("dists", ()):
        meta = site / f"{dist['name'].replace('-', '_')}-{dist['version']}.dist-info" / "METADATA"
        assert meta.is_file(), meta
    for tool in sc.get("tools", {}):
        assert (bindir / tool).is_file(), tool
    if "ldconfig" in sc:
        assert (bindir / "ldconfig").is_file()
    for path in sc.get("machine", {}).get("links", {}):
        if ".so" in path:
            assert (root / path).is_symlink() and (root / path).resolve().is_file(), path
    assert any(root.rglob("*")), "empty root"
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
