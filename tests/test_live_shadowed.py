"""A folder named like the framework earlier on sys.path: `import torch` succeeds but loads
that folder. One finding (LIVE008) names the shadowing path, not LIVE006/SMOKE001 as well.

Needs only a distribution named torch in the dist-info (the venv's real torch, or none: then
the text names the path alone); the shadow folder itself imports instantly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_shadowed_torch_gets_one_finding_naming_the_path(tmp_path):
    shadow = tmp_path / "project"
    (shadow / "torch").mkdir(parents=True)
    (shadow / "torch" / "__init__.py").write_text("")
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{shadow}", "ENVDOCTOR_NO_CACHE": "1"}
    out = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--framework", "torch",
                          "--no-smoke", "--format", "json"], cwd=shadow, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stderr
    loud = [f for f in json.loads(out.stdout)["findings"] if f["severity"] in ("error", "warning")]
    assert [f["code"] for f in loud] == ["LIVE008"], loud
    assert str(shadow / "torch") in loud[0]["title"]
