"""Finding and loading the knowledge in ``rules/``: checks, matrices and error signatures.

``rules/`` sits at the repository root (knowledge is data) and ships inside the wheel as
``envdoctor/_rules``. ``ENVDOCTOR_RULES`` points elsewhere (tests, a team's own rules).
Loading validates every file and names the file and the field at fault.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PACKAGE_DIR = Path(__file__).resolve().parent


class RuleFileError(ValueError):
    """A rule file that cannot be used; the message starts with the file and the field."""

    def __init__(self, path: Path | str, field: str, message: str):
        self.path, self.field = str(path), field
        super().__init__(f"{path}: {field}: {message}")


def rules_dir() -> Path:
    """The rules folder: $ENVDOCTOR_RULES, the copy inside the wheel, or the source tree's."""
    override = os.environ.get("ENVDOCTOR_RULES")
    if override:
        return Path(override)
    shipped = PACKAGE_DIR / "_rules"
    if shipped.is_dir():
        return shipped
    return PACKAGE_DIR.parent / "rules"


def load_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise RuleFileError(path, "toml", str(exc)) from None
    except OSError as exc:
        raise RuleFileError(path, "file", exc.strerror or str(exc)) from None


def toml_files(kind: str, root: Path | None = None) -> list[Path]:
    folder = (root or rules_dir()) / kind
    return sorted(folder.rglob("*.toml")) if folder.is_dir() else []


@lru_cache(maxsize=8)
def matrix(name: str, root: str | None = None) -> dict[str, Any]:
    """One matrix file (``rules/matrices/<name>.toml``) as data; {} when it does not exist."""
    path = Path(root) if root else rules_dir()
    file = path / "matrices" / f"{name}.toml"
    return load_toml(file) if file.is_file() else {}


def is_url(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("https://", "http://"))
