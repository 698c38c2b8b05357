"""Held-out WSL2 / container / loader machines (tests/heldout/wsl_machines.py) through the real
static probes and `check --expect gpu`.

The probes run in a child ``python -S`` whose PATH holds the machine's fake tools and whose
PYTHONPATH holds its fake site-packages; every probe that reads system files reads them under
the machine's root. ``check --facts`` then judges that snapshot. A healthy machine gets no error
or warning; a broken one gets a check expressing its label, as an error where the machine
cannot train, and then ``--expect gpu`` exits 1.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests import elfbuild
from tests.heldout import wsl_machines as machines
from tests.heldout.test_machines import deps  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]
LABELS = {
    "linux-driver-inside-wsl": ({"linux-driver-inside-wsl"}, True),
    "container-without-gpu-devices": ({"container-without-gpu-devices"}, True),
    "small-dev-shm": ({"small-dev-shm-in-container"}, True),
    "cgroup-memory-limit-low": ({"container-memory-limit-low"}, False),
    "system-cudnn-will-load": ({"system-library-will-shadow-wheel"}, False),
}
# every probe, with the machine's root where the probe takes one
COLLECT = """
import inspect, json, sys
from pathlib import Path
from envdoctor import probes
from envdoctor.facts import Facts
from envdoctor.facts.serialize import to_jsonable
root = Path(sys.argv[1])
sections = {}
for name, module in probes.REGISTRY.items():
    takes = "root" in inspect.signature(module.probe).parameters
    sections[name] = module.probe(root=root) if takes else module.probe()
print(json.dumps(to_jsonable(Facts(**sections))))
"""

pytestmark = pytest.mark.skipif(elfbuild.GCC is None, reason="needs gcc to build ELF files")


def check(sc: dict, tmp_path: Path, deps_dir: Path) -> tuple[int, list[dict]]:
    site, bindir, root, extra = machines.build(sc, tmp_path / "box")
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps_dir}",
           "HOME": str(tmp_path), "ENVDOCTOR_NO_CACHE": "1", "LANG": "C.UTF-8", **extra}
    probed = subprocess.run([sys.executable, "-S", "-c", COLLECT, str(root)], env=env,
                            capture_output=True, text=True, timeout=120)
    assert probed.returncode == 0, probed.stderr[-2000:]
    path = tmp_path / "facts.json"
    path.write_text(probed.stdout)
    done = subprocess.run([sys.executable, "-S", "-m", "envdoctor", "check", "--facts", str(path),
                           "--format", "json", "--expect", "gpu"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.returncode, json.loads(done.stdout)["findings"]


@pytest.mark.parametrize("sc", machines.SCENARIOS, ids=[s["name"] for s in machines.SCENARIOS])
def test_wsl_container_machine(sc, tmp_path, deps):  # noqa: F811
    code, found = check(sc, tmp_path, deps)
    loud = [f for f in found if f["severity"] in ("error", "warning")]
    shown = [(f["code"], f["id"], f["severity"], f["title"]) for f in loud]
    if sc["healthy"]:
        assert not loud, shown
        return
    ids, need_error = set(), False
    for label in sc["labels"]:
        want, err = LABELS[label]
        ids |= want
        need_error |= err
    hit = [f for f in loud if f["id"] in ids]
    assert hit, shown
    if need_error:
        assert any(f["severity"] == "error" for f in hit), shown
        assert code == 1, "--expect gpu must fail a machine that cannot train"
