"""The arch list of a torch build the data has no row for, derived from what the data knows.

An index can list a build the matrices never described (``torch 2.15.0+cu129`` on a mirror or a
newer root). Its GPU code is not stated anywhere an index says, so it is inferred, and said to
be: the list of the nearest earlier release of the same variant and platform, less every
architecture that a later build (up to this release) left out although its CUDA could still
target it (Volta leaving cu128 with torch 2.11 takes sm_70 off a later cu129 build too). New
architectures are never added. A variant the data has never described (cu134, cu140) stays
without a list: nothing of it is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

from envdoctor.matrices import matrix
from envdoctor.matrices.gpus import arch_cc, cuda_dropped, cuda_predates
from envdoctor.suggest import data
from envdoctor.versions import in_range


@dataclass(frozen=True)
class Derived:
    """An inferred arch list: ``archs`` of the ``variant`` build of torch ``base`` (the nearest
    earlier release the data lists it for), less ``dropped``; ``source`` is that row's."""

    variant: str
    base: str
    archs: tuple[str, ...]
    dropped: tuple[str, ...]
    source: str

    def basis(self, torch: Version) -> str:
        """The assumption, said as one: what list is used and why."""
        less = (f", less {', '.join(self.dropped)}, which later builds left out"
                if self.dropped else "")
        return (f"assuming it keeps the arch list of the {self.variant} build of torch "
                f"{self.base}{less} (the data has none for {torch})")


def _releases() -> list[Version]:
    out = set()
    for row in data.wheel_index().get("torch", []):
        try:
            out.add(Version(str(row.get("torch"))))
        except InvalidVersion:
            continue
    return sorted(out)


def _can_target(row: dict[str, Any], cc: Version) -> bool:
    cuda = data.variant_cuda(str(row.get("cuda", "")))
    return cuda is not None and cuda_dropped(cuda, cc) is None and cuda_predates(cuda, cc) is None


def derived_archs(torch: Version, variant: str, platform: str) -> Derived | None:
    """The inferred arch list of the ``variant`` build of ``torch`` on ``platform``; None when
    no earlier release of that variant on that platform has a list in the data."""
    family = data.matrix_platform(platform)
    rows = [r for r in matrix("torch").get("variant", [])
            if r.get("platform", "default") == family]
    releases = _releases()
    base = next(((v, r) for v in reversed([v for v in releases if v < torch]) for r in rows
                 if r.get("cuda") == variant and in_range(v, r.get("torch", ""))), None)
    if base is None:
        return None
    since = [v for v in releases if base[0] < v < torch] + [torch]
    later = [r for r in rows if any(in_range(v, r.get("torch", "")) for v in since)]
    kept: list[str] = []
    dropped: list[str] = []
    for arch in base[1].get("archs", []):
        got = arch_cc(arch)
        if got is None:
            continue
        left_out = any(arch not in r.get("archs", []) and _can_target(r, got[1]) for r in later)
        (dropped if left_out else kept).append(arch)
    return Derived(variant, str(base[0]), tuple(kept), tuple(dropped),
                   str(base[1].get("source", "")))
