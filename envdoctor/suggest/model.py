"""What `suggest` answers: one Suggestion per framework, with the reasons that decided it.

The JSON shape (``Suggestion.to_dict``) is the documented contract (README, "envdoctor
suggest"); ``SCHEMA_VERSION`` changes when a key changes meaning or disappears.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Any

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Reason:
    """One constraint that decided (or blocked) the answer, with the source it comes from.

    ``constraint`` is one of: driver, arch, python, platform, index, gpu, installed, data,
    installer, toolkit. ``confirmed`` is False when the matrix cell behind it is unconfirmed.
    """

    constraint: str
    text: str
    source: str = ""
    confirmed: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"constraint": self.constraint, "text": self.text, "source": self.source,
                "confirmed": self.confirmed}


@dataclass(frozen=True)
class Alternative:
    """Another install and its price: "upgrade the driver to >= 580 to get torch 2.13.0 cu130"."""

    text: str
    _: KW_ONLY                  # six optional strings read best by name
    version: str | None = None
    variant: str | None = None
    command: str | None = None
    price: str = ""             # what the user must change: "driver >= 580", "Python 3.12", ""
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "version": self.version, "variant": self.variant,
                "command": self.command, "price": self.price, "source": self.source}


@dataclass(frozen=True)
class Suggestion:
    """The install for one framework on one machine.

    ``version``/``command`` are None when nothing in the data runs here (``status`` "none") or
    the facts cannot decide (``status`` "undecided"); the reasons then say why.
    """

    framework: str
    status: str                       # ok | installed | keep | none | undecided
    _: KW_ONLY                        # the rest by name: most are None or () in most answers
    version: str | None = None
    variant: str | None = None
    command: str | None = None
    packages: tuple[str, ...] = ()
    index_url: str | None = None
    reasons: tuple[Reason, ...] = ()
    alternatives: tuple[Alternative, ...] = ()
    references: tuple[str, ...] = ()
    # installed GPU companions that cannot work here (``stray``), and the line that removes them
    remove: tuple[str, ...] = ()
    remove_command: str | None = None
    # what the answer rests on, with its date (provenance, not part of the answer's identity)
    data: str = field(default="", compare=False)

    @property
    def runs(self) -> bool:
        return self.status in ("ok", "installed", "keep")

    def to_dict(self) -> dict[str, Any]:
        return {
            "framework": self.framework,
            "status": self.status,
            "version": self.version,
            "variant": self.variant,
            "command": self.command,
            "packages": list(self.packages),
            "index_url": self.index_url,
            "reasons": [r.to_dict() for r in self.reasons],
            "alternatives": [a.to_dict() for a in self.alternatives],
            "references": list(self.references),
            "remove": list(self.remove),
            "remove_command": self.remove_command,
            "data": self.data,
        }


@dataclass(frozen=True)
class SuggestResult:
    """All suggestions for one machine, plus what the machine was taken to be."""

    suggestions: tuple[Suggestion, ...]
    machine: dict[str, Any] = field(default_factory=dict)
    data_as_of: str = ""
    notes: tuple[str, ...] = ()       # one line each: the data's age, an index not read
    online: bool = False              # the package indexes were asked (--online)

    def to_dict(self) -> dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, "data_as_of": self.data_as_of,
                "online": self.online, "notes": list(self.notes),
                "machine": self.machine,
                "suggestions": [s.to_dict() for s in self.suggestions]}


def unique(items: list[str]) -> tuple[str, ...]:
    """Order-preserving de-duplication (references, packages)."""
    return tuple(dict.fromkeys(i for i in items if i))
