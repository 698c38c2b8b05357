"""The index pip would use here: ``PIP_INDEX_URL``, else ``index-url`` of pip's config files.

pip's order (pip/_internal/configuration.py): the global files, the user files, the site file
(``sys.prefix``), then ``PIP_CONFIG_FILE``; a later file overrides an earlier one, the
``[install]`` section overrides ``[global]``, and the environment variable overrides every
file. ``PIP_CONFIG_FILE=os.devnull`` loads no file at all. Files are read with the bounded
reader (a FIFO or a huge file is skipped), parsed by ``configparser``, never executed.
"""

from __future__ import annotations

import configparser
import os
import sys
from pathlib import Path

MAX_CONFIG = 1 << 16


def _config_files() -> list[Path]:
    from envdoctor.bounded import env
    name = "pip.ini" if sys.platform.startswith("win") else "pip.conf"
    files: list[Path] = []
    if sys.platform.startswith("win"):
        files.append(Path(env("ProgramData", "C:\\ProgramData")) / "pip" / name)
        appdata = env("APPDATA")
        if appdata:
            files.append(Path(appdata) / "pip" / name)
    else:
        dirs = (env("XDG_CONFIG_DIRS") or "/etc/xdg").split(os.pathsep)
        files += [Path(d) / "pip" / name for d in dirs if d] + [Path("/etc") / name]
        home = Path(os.path.expanduser("~"))
        if sys.platform == "darwin":
            files.append(home / "Library" / "Application Support" / "pip" / name)
        files.append(home / ".pip" / name)  # legacy per-user file
        files.append(Path(env("XDG_CONFIG_HOME") or home / ".config") / "pip" / name)
    files.append(Path(sys.prefix) / name)
    extra = env("PIP_CONFIG_FILE")
    if extra:
        if extra == os.devnull:
            return []
        files.append(Path(extra))
    return files


def _index_of(path: Path) -> str | None:
    from envdoctor.bounded import InputError, read_file
    try:
        text = read_file(path, "a pip config file", MAX_CONFIG).decode("utf-8", "replace")
    except (InputError, OSError):
        return None
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    got = None
    for section in ("global", "install"):
        for key in ("index-url", "index_url"):
            if parser.has_option(section, key):
                got = parser.get(section, key).strip() or got
    return got


def pip_index_url() -> tuple[str, str] | None:
    """(index URL, where it was configured) pip would install from; None when pip's default
    (PyPI) applies."""
    from envdoctor.bounded import env
    value = (env("PIP_INDEX_URL") or "").strip()
    if value:
        return value, "PIP_INDEX_URL"
    got = None
    for path in _config_files():
        url = _index_of(path)
        if url:
            got = (url, str(path))
    return got
