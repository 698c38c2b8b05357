"""Fast, import-free listing of installed Python distributions.

``importlib.metadata`` parses every METADATA file to learn a name; with TensorFlow and its
dependencies installed that is most of envdoctor's start-up time. Wheel installs encode name and
version in the ``.dist-info`` folder name (PEP 427/491), so we read folder names and open
METADATA only for legacy ``.egg-info`` entries.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from packaging.version import InvalidVersion, Version

from envdoctor.versions import canonical_name as canonicalize_name


@dataclass(frozen=True)
class InstalledDist:
    name: str            # canonical
    version: Version | None
    raw_version: str
    location: Path       # the site-packages folder
    meta_dir: Path       # the .dist-info / .egg-info folder

    def top_level(self) -> tuple[str, ...]:
        """Import names it provides: top_level.txt, else the first parts of RECORD paths."""
        text = _read(self.meta_dir / "top_level.txt")
        if text:
            return tuple(sorted({ln.strip() for ln in text.splitlines() if ln.strip()}))
        record = _read(self.meta_dir / "RECORD") or ""
        names = set()
        for line in record.splitlines():
            first = line.split(",", 1)[0].split("/", 1)[0]
            if (not first or first.startswith("..") or first.endswith((".dist-info", ".data"))
                    or first == "__pycache__"):
                continue
            names.add(first.removesuffix(".py"))
        return tuple(sorted(n for n in names if n.isidentifier()))


def _read(path: Path) -> str | None:
    """A regular file, capped (a FIFO or a 300 MB METADATA must not hang or flood the probe)."""
    from envdoctor.bounded import read_text
    return read_text(path, limit=8 << 20)


def _from_meta_file(text: str) -> tuple[str, str]:
    name = version = ""
    for line in text.splitlines():
        if not line.strip():
            break
        if line.startswith("Name:"):
            name = line[5:].strip()
        elif line.startswith("Version:"):
            version = line[8:].strip()
    return name, version


def _parse_entry(folder: Path, entry: str) -> InstalledDist | None:
    meta_dir = folder / entry
    stem, _, kind = entry.rpartition(".")
    name, sep, version = stem.partition("-")
    if kind == "egg-info" or not sep:
        meta = _read(meta_dir / "PKG-INFO") or _read(meta_dir / "METADATA") or ""
        if not meta and meta_dir.is_file():
            meta = _read(meta_dir) or ""
        name2, version2 = _from_meta_file(meta)
        name, version = name2 or name, version2 or version
    if not name:
        return None
    try:
        parsed = Version(version)
    except InvalidVersion:
        parsed = None
    return InstalledDist(canonicalize_name(name), parsed, version, folder, meta_dir)


@lru_cache(maxsize=4)
def installed(paths: tuple[str, ...] | None = None) -> dict[str, InstalledDist]:
    """Distributions visible on ``paths`` (default ``sys.path``); first one on the path wins."""
    found: dict[str, InstalledDist] = {}
    for entry_path in paths if paths is not None else tuple(sys.path):
        folder = Path(entry_path or ".")
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for entry in entries:
            if not entry.endswith((".dist-info", ".egg-info")):
                continue
            dist = _parse_entry(folder, entry)
            if dist is not None and dist.name not in found:
                found[dist.name] = dist
    return found
