"""contrib/nhc/envdoctor.nhc inside real LBNL NHC. NHC has no Debian package, so this runs
where NHC is installed (``nhc`` on PATH, its scripts in /etc/nhc/scripts) or where
``ENVDOCTOR_NHC`` names a checkout of https://github.com/mej/nhc (its ``nhc`` and
``scripts/``); skipped otherwise. NHC sets its own PATH, so envdoctor is named by ENVDOCTOR."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.sched.conftest import BROKEN, HEALTHY, REPO, write_shim


def _nhc() -> tuple[Path, Path] | None:
    checkout = os.environ.get("ENVDOCTOR_NHC")
    if checkout and (Path(checkout) / "nhc").is_file():
        return Path(checkout) / "nhc", Path(checkout) / "scripts"
    found = shutil.which("nhc")
    if found and Path("/etc/nhc/scripts").is_dir():
        return Path(found), Path("/etc/nhc/scripts")
    return None


NHC = _nhc()
pytestmark = pytest.mark.skipif(NHC is None, reason="LBNL NHC not installed (no Debian "
                                "package; set ENVDOCTOR_NHC to a checkout of mej/nhc)")


def _run(tmp_path: Path, facts: Path) -> subprocess.CompletedProcess[str]:
    assert NHC is not None
    nhc, scripts = NHC
    incdir = tmp_path / "scripts"
    incdir.mkdir()
    for script in [*scripts.glob("*.nhc"), REPO / "contrib" / "nhc" / "envdoctor.nhc"]:
        shutil.copy(script, incdir)
    conf = tmp_path / "nhc.conf"
    conf.write_text(f"* || check_envdoctor --facts {facts}\n")
    env = dict(os.environ, ENVDOCTOR=str(write_shim(tmp_path / "bin")))
    return subprocess.run(["bash", str(nhc), "-D", str(tmp_path), "-c", str(conf), "-l", "-",
                           "-t", "60", "NHC_RM=none", "MARK_OFFLINE=0", f"INCDIR={incdir}"],
                          capture_output=True, text=True, timeout=120, env=env)


def test_healthy_machine_passes_silently(tmp_path):
    r = _run(tmp_path, HEALTHY)
    assert (r.returncode, r.stdout.strip()) == (0, ""), r.stdout + r.stderr


def test_broken_machine_dies_with_envdoctors_reason(tmp_path):
    r = _run(tmp_path, BROKEN)
    assert r.returncode == 1, r.stdout + r.stderr
    assert ("Health check failed:  envdoctor: DRV001 NVIDIA driver 470.256.02 is too old"
            in r.stdout + r.stderr)
