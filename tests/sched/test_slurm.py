"""envdoctor under a real single-host Slurm (Debian ``slurm-wlm`` + ``munge``, started here):
the README's one-snapshot-per-node recipe, ``srun -n 2`` with a snapshot per task, the ``nhc``
line through ``srun``, and ``contrib/slurm/envdoctor-slurm-check.sh`` as the HealthCheckProgram
(draining the node with envdoctor's reason, then resuming it) and as the Prolog (a job never
starts on a broken node, which is drained with the reason)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import time
from pathlib import Path

import pytest

from tests.sched import slurm
from tests.sched.conftest import BROKEN, HEALTHY, REPO, write_shim

pytestmark = [pytest.mark.slurm,
              pytest.mark.skipif(bool(slurm.missing()), reason=slurm.missing() or "ok")]

SCRIPT = REPO / "contrib" / "slurm" / "envdoctor-slurm-check.sh"


def _program(root: Path, facts: Path) -> tuple[Path, str]:
    # root: the cluster's folder (its slurm.conf: scontrol without one hangs on DNS lookups)
    """The contrib script as slurmd runs it, on the machine ``facts`` describes (a symlink
    the test can point elsewhere): envdoctor (the shim) on PATH, this cluster's SLURM_CONF."""
    shim = write_shim(root / "bin")
    path = f"{shim.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    program = root / "envdoctor-slurm-check"
    program.write_text("#!/bin/sh\n"
                       f"export PATH={shlex.quote(path)} SLURM_CONF={root / 'slurm.conf'}\n"
                       f"exec {SCRIPT} --facts {facts}\n")
    program.chmod(0o755)
    return program, path


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp("slurm")
    current = root / "current.json"
    current.symlink_to(HEALTHY)
    program, path = _program(root, current)
    with slurm.cluster(root, f"HealthCheckProgram={program}\nHealthCheckInterval=4\n"
                             "HealthCheckNodeState=ANY") as c:
        c.env["PATH"] = path
        c.current = current  # type: ignore[attr-defined]
        yield c


def _report(path: Path) -> dict:
    data = json.loads(path.read_text())
    assert data["schema_version"] == 1 and "summary" in data, path
    return data


def _readme_recipe() -> str:
    """The README's Slurm line for a snapshot per node (the one `fleet compare` reads)."""
    text = (REPO / "README.md").read_text()
    found = set(re.findall(r"^srun --ntasks-per-node=1 .*envdoctor check.*$", text, re.M))
    assert len(found) == 1, found  # every place the README gives it, the same tested line
    return found.pop()


def test_readme_recipe_writes_one_snapshot_per_node(cluster, tmp_path):
    work = tmp_path / "job"
    (work / "snaps").mkdir(parents=True)
    recipe = _readme_recipe()
    assert "$(hostname)" not in recipe  # expanded once, by the batch shell, for every node
    r = subprocess.run(["bash", "-c", recipe], cwd=work, env=cluster.env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    snaps = sorted(p.name for p in (work / "snaps").iterdir() if p.suffix == ".json")
    assert snaps == [f"{cluster.node}.json"], snaps
    _report(work / "snaps" / snaps[0])
    compare = subprocess.run(["envdoctor", "fleet", "compare", "snaps/"], cwd=work,
                             env=cluster.env, capture_output=True, text=True, timeout=120)
    assert compare.returncode in (0, 1), compare.stderr


def test_srun_two_tasks_write_a_snapshot_each(cluster, tmp_path):
    (tmp_path / "snaps").mkdir()
    r = cluster.run("srun", "-n", "2", "--output", f"{tmp_path}/snaps/%N-%t.json",
                    "--error", f"{tmp_path}/snaps/%N-%t.err",
                    "envdoctor", "check", "--static", "--format", "json", timeout=120)
    assert r.returncode in (0, 1), r.stderr + cluster.logs()
    names = sorted(p.name for p in (tmp_path / "snaps").glob("*.json"))
    assert names == [f"{cluster.node}-0.json", f"{cluster.node}-1.json"]
    for name in names:
        _report(tmp_path / "snaps" / name)


def test_nhc_line_and_exit_code_through_srun(cluster):
    broken = cluster.run("srun", "-n", "1", "envdoctor", "check", "--facts", str(BROKEN),
                         "--format", "nhc")
    assert broken.returncode == 1, broken.stderr
    assert re.fullmatch(r"envdoctor: DRV001 [^\n\"'`$\\]{10,}\n", broken.stdout), broken.stdout
    healthy = cluster.run("srun", "-n", "1", "envdoctor", "check", "--facts", str(HEALTHY),
                          "--format", "nhc")
    assert (healthy.returncode, healthy.stdout) == (0, "")
    # the line as a drain reason, as NHC's node-mark-offline passes it ("NHC: " leads, so the
    # healthy health check below, which resumes only its own "envdoctor:" drains, leaves it)
    line = "NHC: " + broken.stdout.strip()
    try:
        r = cluster.run("scontrol", "update", f"nodename={cluster.node}", "state=drain",
                        f"reason={line}")
        assert r.returncode == 0, r.stderr
        assert cluster.reason() == line
        shown = cluster.run("sinfo", "-R", "-h", "-o", "%E").stdout.strip()
        assert shown == line
    finally:
        cluster.run("scontrol", "update", f"nodename={cluster.node}", "state=resume")


def _wait_for(what: str, check, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"{what}: not after {timeout:.0f} s")


def test_healthcheck_program_drains_with_the_reason_then_resumes(cluster):
    """slurmd runs contrib/slurm/envdoctor-slurm-check.sh every HealthCheckInterval: a broken
    machine drains the node with envdoctor's line, a healed one resumes it."""
    _wait_for("idle", lambda: cluster.state() == "idle")
    cluster.current.unlink()
    cluster.current.symlink_to(BROKEN)
    try:
        reason = _wait_for("drained by the health check",
                           lambda: cluster.state().startswith("drain") and cluster.reason())
        assert reason.startswith("envdoctor: DRV001 NVIDIA driver 470.256.02 is too old")
        assert len(reason) <= 80
    finally:
        cluster.current.unlink()
        cluster.current.symlink_to(HEALTHY)
    _wait_for("resumed by the health check", lambda: cluster.state() == "idle")
    assert cluster.reason() == ""


def test_prolog_keeps_a_job_off_a_broken_node_and_drains_it(tmp_path):
    """A cluster of its own (the Prolog is in slurm.conf): the job's step never runs (its
    marker file is never written), and the node is drained with envdoctor's reason."""
    program, path = _program(tmp_path, BROKEN)
    marker = tmp_path / "job-ran"
    with slurm.cluster(tmp_path, f"Prolog={program}") as c:
        c.env["PATH"] = path
        r = c.run("srun", "-n", "1", "--immediate=20", "touch", str(marker), timeout=60)
        assert r.returncode != 0 and "prolog" in r.stderr.lower(), r.stderr
        assert not marker.exists()
        reason = _wait_for("drained by the prolog", lambda: c.state() == "drain" and c.reason())
        assert reason.startswith("envdoctor: DRV001 NVIDIA driver 470.256.02 is too old")
