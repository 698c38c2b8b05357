"""Which platform an error text names: a Jetson, WSL 2 (``rules/platforms/*.toml``).

A cause that exists on one platform only (numpy's OpenBLAS misreading a Jetson's CPU, WSL's
libcuda living in /usr/lib/wsl/lib) is claimed only when the text names that platform. The
names are data, kept once: a signature's ``[[context]]`` writes ``"@jetson"`` in ``absent``
(or ``text``) for the platform's whole list, and ``yields_to`` reads ``stated =
"platform_jetson"`` to turn a generic answer into the platform's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from envdoctor.rulefiles import RuleFileError, is_url, load_toml, rules_dir, toml_files

KEYS = {"name", "means", "mentions", "sources", "fire", "quiet"}
_NAME = re.compile(r"[a-z][a-z0-9_]{1,20}")


@dataclass(frozen=True)
class Platform:
    name: str
    means: str
    mentions: tuple[str, ...]
    fire: tuple[str, ...]
    quiet: tuple[str, ...]

    @cached_property
    def compiled(self) -> tuple[re.Pattern[str], ...]:
        """The mentions compiled on first use (a log whose text names no platform never needs
        them); ``parse_platform`` checked them when the rules were validated."""
        return tuple(re.compile(source) for source in self.mentions)

    def named_in(self, text: str) -> str | None:
        """The first mention of this platform in ``text`` (its first MiB), or None."""
        head = text[:1 << 20]
        for pat in self.compiled:
            m = pat.search(head)
            if m is not None:
                return m.group(0).strip()
        return None


def _strings(raw: Any, path: Path, fld: str, *, empty: bool = False) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(s, str) and s.strip() for s in raw) \
            or (not raw and not empty):
        raise RuleFileError(path, fld, "must be a list of non-empty strings")
    return tuple(raw)


def parse_platform(raw: Any, path: Path, i: int, check: bool = True) -> Platform:
    """One ``[[platform]]`` table; ``check``: compile its mentions now (a bad regex is a
    RuleFileError), else on first use (``load_platforms``: ``check`` ran when the signature
    cache was built, whose key holds the platform files)."""
    fld = f"platform[{i}]"
    if not isinstance(raw, dict):
        raise RuleFileError(path, fld, "must be a table")
    extra = set(raw) - KEYS
    if extra:
        raise RuleFileError(path, fld, f"unknown key(s) {sorted(extra)}")
    name = raw.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise RuleFileError(path, f"{fld}.name", "must be a lower-case word")
    if not isinstance(raw.get("means"), str) or not raw["means"].strip():
        raise RuleFileError(path, f"{fld}.means", "must say what the platform is")
    mentions = _strings(raw.get("mentions"), path, f"{fld}.mentions")
    compiled = []
    for source in mentions if check else ():
        try:
            compiled.append(re.compile(source))
        except re.error as exc:
            raise RuleFileError(path, f"{fld}.mentions", f"{source!r}: {exc}") from None
    sources = _strings(raw.get("sources"), path, f"{fld}.sources")
    if not all(is_url(s) for s in sources):
        raise RuleFileError(path, f"{fld}.sources", "must be URLs")
    fire = _strings(raw.get("fire"), path, f"{fld}.fire")
    quiet = _strings(raw.get("quiet"), path, f"{fld}.quiet")
    platform = Platform(name, raw["means"].strip(), mentions, fire, quiet)
    if check:
        platform.__dict__["compiled"] = tuple(compiled)  # the cached_property's value
    return platform


@lru_cache(maxsize=4)
def _load(root: str) -> dict[str, Platform]:
    out: dict[str, Platform] = {}
    for path in toml_files("platforms", Path(root)):
        for i, raw in enumerate(load_toml(path).get("platform", [])):
            platform = parse_platform(raw, path, i, check=False)
            if platform.name in out:
                raise RuleFileError(path, f"platform[{i}].name", f"{platform.name} twice")
            out[platform.name] = platform
    return out


def load_platforms(root: Path | None = None) -> dict[str, Platform]:
    """Every platform under ``rules/platforms`` by name (none when the folder is absent)."""
    return _load(str(root or rules_dir()))


def check(root: Path | None = None) -> None:
    """Every platform file parsed with its mentions compiled: RuleFileError on a bad one."""
    for path in toml_files("platforms", root or rules_dir()):
        for i, raw in enumerate(load_toml(path).get("platform", [])):
            parse_platform(raw, path, i)


def files(root: Path | None = None) -> list[Path]:
    """The platform files (part of the signature cache's key: their lists are expanded in)."""
    return toml_files("platforms", root or rules_dir())


def expand(values: list[Any], root: Path | None, path: Path | str, fld: str) -> list[Any]:
    """A context's regex list with each ``"@name"`` replaced by that platform's mentions."""
    if not any(isinstance(v, str) and v.startswith("@") for v in values):
        return values
    known = load_platforms(root)
    out: list[Any] = []
    for v in values:
        if isinstance(v, str) and v.startswith("@"):
            platform = known.get(v[1:])
            if platform is None:
                raise RuleFileError(path, fld, f"{v!r}: no such platform; known: {sorted(known)}")
            out.extend(m for m in platform.mentions if m not in out and m not in values)
        else:
            out.append(v)
    return out


def named_in(text: str, name: str) -> str | None:
    """The text's first mention of platform ``name`` (None when it names none, or the platform
    is not defined)."""
    platform = load_platforms().get(name)
    return platform.named_in(text) if platform is not None else None
