"""One filesystem root for every probe: ``check --static --root DIR`` reads the system files of
another tree (an unpacked container image, a mounted disk, a test's fake machine).

System paths (/proc, /sys, /dev, /etc, /usr, /opt, the loader cache) are read under the root;
tools still come from PATH and Python packages from the interpreter's path. Probes never write
a literal system path: they name it relative (``"etc/os-release"``) and join it here, so a test
can check that no read escapes the root (tests/probes/test_probe_root.py).
"""

from __future__ import annotations

import os
from pathlib import Path

SYSTEM = Path("/")


def under(root: Path, path: str | os.PathLike[str]) -> Path:
    """``path`` (absolute as on the machine, or relative to its root) inside ``root``:
    ``under(Path("/img"), "/usr/lib")`` is ``/img/usr/lib``; with the system root it is the
    path itself."""
    text = os.fspath(path)
    return root / text.lstrip("/") if text else root


def shown(root: Path, path: str | os.PathLike[str]) -> str:
    """A path read under ``root`` as the machine names it (``/img/dev/kfd`` -> ``/dev/kfd``),
    for facts and messages that must not depend on where the tree was mounted."""
    text = os.fspath(path)
    if root == SYSTEM:
        return text
    try:
        rel = os.path.relpath(text, root).replace(os.sep, "/")
    except ValueError:
        return text
    if rel == ".":
        return "/"
    return text if rel.startswith("..") else "/" + rel


def is_system(root: Path) -> bool:
    return Path(root) == SYSTEM
