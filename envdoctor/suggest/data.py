"""Reads the matrices `suggest` reasons from: wheel_index (which index carries what), torch,
jax, tensorflow and cuda_driver. Nothing here decides; it only looks up.

The driver floor of a CUDA wheel is the minor-version-compatibility floor of its major (CUDA
Compatibility guide, Table 1): a cu126 wheel bundles the CUDA 12.6 runtime, which runs on any
driver of the 12.x range (>= 525.60.13 on Linux) for SASS code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from typing import Any, Protocol

from packaging.version import Version

from envdoctor.matrices import confirmed, matrix, newest_first
from envdoctor.matrices import jetson as jetson_table
from envdoctor.matrices.cuda import hard_floor
from envdoctor.matrices.gpus import lookup_arch
from envdoctor.suggest.machine import GpuInfo, JetsonBoard, Machine
from envdoctor.versions import in_range, ver

INDEX_BASE = "https://download.pytorch.org/whl/"
COMPAT_URL = "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"
_CUDA_VARIANT = re.compile(r"^cu(\d{2})(\d)$")
_ROCM_VARIANT = re.compile(r"^rocm(\d+(?:\.\d+)*)$")


def wheel_index() -> dict[str, Any]:
    return matrix("wheel_index")


def data_as_of() -> str:
    """The knowledge date of the shipped data (``wheel_index`` ``[meta] data_as_of``): the one
    date every answer that rests on rules/matrices names."""
    return str(wheel_index().get("meta", {}).get("data_as_of", ""))


STALE_DAYS = 120   # older shipped data than this gets one line saying so (unless --online)


def today() -> date:
    """Today, or ``ENVDOCTOR_TODAY`` (YYYY-MM-DD) when set: the clock the age line reads, so a
    test (or a reproducible run) can pin it."""
    from envdoctor.bounded import env
    pinned = env("ENVDOCTOR_TODAY")
    if pinned:
        try:
            return date.fromisoformat(pinned.strip())
        except ValueError:
            pass
    return date.today()


def data_age_days(now: date | None = None) -> int | None:
    """Days between the shipped data's date and today; None when the data states no date."""
    try:
        made = date.fromisoformat(data_as_of())
    except ValueError:
        return None
    return ((now or today()) - made).days


# ------------------------------------------------------------------ where releases come from
class Releases(Protocol):
    """What the planners ask about releases: which exist, for which Python and platform, on
    which index. ``SHIPPED`` answers from rules/matrices; an index view
    (``envdoctor.suggest.index``) answers from what the package indexes list, and leaves what
    no index states (driver floors, arch lists) to the matrices."""

    def torch_rows(self) -> list[dict[str, Any]]: ...

    def jax_rows(self) -> list[dict[str, Any]]: ...

    def tf_rows(self) -> list[dict[str, Any]]: ...

    def platform_row(self, table: str, platform: str) -> dict[str, Any] | None: ...

    def index_url(self, variant: str) -> str: ...

    def listed(self, project: str, version: str) -> bool | None:
        """Whether the index lists a wheel of ``project`` ``version`` for this machine; None
        when it was not asked (the shipped data does not list single wheels)."""


class Shipped:
    """The releases rules/matrices lists."""

    def torch_rows(self) -> list[dict[str, Any]]:
        return newest_first(list(wheel_index().get("torch", [])), "torch")

    def jax_rows(self) -> list[dict[str, Any]]:
        return newest_first(list(matrix("jax").get("release", [])), "last")

    def tf_rows(self) -> list[dict[str, Any]]:
        return newest_first(list(matrix("tensorflow").get("release", [])), "tensorflow")

    def platform_row(self, table: str, platform: str) -> dict[str, Any] | None:
        return next((r for r in wheel_index().get(table, []) if r.get("platform") == platform),
                    None)

    def index_url(self, variant: str) -> str:
        return INDEX_BASE + variant

    def listed(self, project: str, version: str) -> bool | None:
        return None


SHIPPED: Releases = Shipped()
_active: list[Releases] = [SHIPPED]


@contextmanager
def releases_from(source: Releases | None) -> Iterator[None]:
    """Plan with ``source``'s releases inside the block (None: the shipped ones). The one seam
    between the planners and an index: they call ``torch_rows()`` & co. and never know which."""
    _active.append(source or SHIPPED)
    try:
        yield
    finally:
        _active.pop()


def releases() -> Releases:
    return _active[-1]


def torch_rows() -> list[dict[str, Any]]:
    """Releases, newest first."""
    return releases().torch_rows()


def jax_rows() -> list[dict[str, Any]]:
    """JAX releases ([[release]] rows of the jax matrix, or one row per indexed release),
    newest ``last`` first."""
    return releases().jax_rows()


def tf_rows() -> list[dict[str, Any]]:
    """TensorFlow release series, newest first."""
    return releases().tf_rows()


def listed(project: str, version: str) -> bool | None:
    return releases().listed(project, version)


def variant_cuda(variant: str) -> Version | None:
    """``cu126`` -> 12.6; None for cpu / rocm."""
    m = _CUDA_VARIANT.match(variant)
    return Version(f"{int(m.group(1))}.{m.group(2)}") if m else None


def variant_rocm(variant: str) -> Version | None:
    m = _ROCM_VARIANT.match(variant)
    return ver(m.group(1)) if m else None


def driver_str(v: Version) -> str:
    """NVIDIA spelling of a driver version: ``450.80.2`` -> ``450.80.02``."""
    parts = list(v.release)
    if len(parts) == 3:
        return f"{parts[0]}.{parts[1]:02d}.{parts[2]:02d}"
    return str(v)


def index_url(variant: str) -> str:
    return releases().index_url(variant)


def driver_floor(cuda: Version, os_name: str) -> tuple[Version, str, bool] | None:
    """(oldest driver that runs a CUDA ``cuda`` wheel, source URL, confirmed) on this OS.

    The guide's Table 1 gives one floor per CUDA major for both OSes (">= 580" for 13.x);
    where the matrix has no per-OS cell (Windows, 13.x) its ``branch_min`` is that floor.
    """
    got = hard_floor(cuda, os_name)
    if got is not None:
        return got[0], COMPAT_URL, got[1]
    row = next((r for r in matrix("cuda_driver").get("minor_compat", [])
                if r.get("major") == cuda.major), None)
    floor = ver(row.get("branch_min")) if row else None
    if row and floor is not None:
        return floor, row.get("source", COMPAT_URL), confirmed(row)
    return None


def torch_archs(torch: Version, variant: str, platform: str) -> tuple[list[str], str, bool] | None:
    """(arch list, source, confirmed) of one torch wheel; None when the data has no row.

    aarch64 wheels are built with their own arch list (Jetson Thor's sm_110 is only there):
    the torch matrix's ``platform = "linux-aarch64"`` rows. An x86_64 list is never applied
    to another platform's wheel: no row, no list.
    """
    family = matrix_platform(platform)
    row = next((r for r in matrix("torch").get("variant", [])
                if r.get("cuda") == variant and in_range(torch, r.get("torch", ""))
                and r.get("platform", "default") == family), None)
    if row is None:
        return None
    return list(row.get("archs", [])), row.get("source", ""), confirmed(row)


# suggest's platform tags -> the torch matrix's ``platform`` of the rows that describe them
_MATRIX_PLATFORM = {"linux_aarch64": "linux-aarch64"}


def matrix_platform(platform: str) -> str:
    """The torch matrix's ``platform`` of the variant rows that describe ``platform``'s wheels."""
    return _MATRIX_PLATFORM.get(platform, "default")


def conda_row(package: str) -> dict[str, Any] | None:
    return next((r for r in wheel_index().get("conda", []) if r.get("package") == package), None)


def rows(table: str) -> list[dict[str, Any]]:
    return list(wheel_index().get(table, []))


def platform_row(table: str, platform: str) -> dict[str, Any] | None:
    return releases().platform_row(table, platform)


def board_gpu(board: JetsonBoard) -> GpuInfo:
    """The iGPU as the planners name it: the module, and its compute capability (from the
    SoC's architecture, sm_87 -> 8.7) where the matrix knows the SoC."""
    row = jetson_table.soc_row(board.soc) or {}
    arch = str(row.get("arch", ""))
    cc = None
    if arch.startswith("sm_") and arch[3:].isdigit():
        digits = arch[3:]
        cc = Version(f"{digits[:-1]}.{digits[-1]}")
    return GpuInfo(board.model or row.get("family") or "Jetson iGPU", cc)


def jetson_gpu(m: Machine) -> GpuInfo | None:
    """The Jetson (Tegra integrated) GPU of a Linux aarch64 machine, or None: gpus.toml marks
    those architectures ``integrated``; SBSA wheels do not run on them. A board whose L4T
    files were read is a Jetson whatever its GPU list says (NVML does not list the iGPU)."""
    if m.jetson is not None:
        return board_gpu(m.jetson)
    if m.platform != "linux_aarch64":
        return None
    for gpu in m.gpus:
        row = lookup_arch(gpu.cc) if gpu.cc is not None else None
        if row is not None and row.get("integrated"):
            return gpu
    return None


def jetson_row(framework: str) -> dict[str, Any]:
    return next((r for r in wheel_index().get("jetson", []) if r.get("framework") == framework),
                {})


def driver_os(m: Machine) -> str:
    """Whose driver numbering the floors are read in: under WSL the driver is the Windows one
    (nvidia-smi there shows 566.36), so its CUDA 12.x floor is Windows' 528.33."""
    return "windows" if m.wsl else (m.os or "linux")


# ------------------------------------------------------------------ the C library (glibc)
GLIBC_URL = "https://peps.python.org/pep-0600/"


class GlibcCap:
    """``project``'s releases from ``first`` on have Linux wheels whose manylinux tag needs a
    newer glibc than this machine's (wheel_index [[manylinux]], PEP 600): pip does not install
    them there. ``last_before`` is the newest release before them."""

    def __init__(self, row: dict[str, Any], glibc: Version) -> None:
        self.row, self.glibc = row, glibc
        self.project = str(row["project"])
        self.first = Version(str(row["first"]))
        self.last_before = Version(str(row["last_before"]))
        self.source = str(row.get("source", GLIBC_URL))

    def allows(self, version: Version | str) -> bool:
        return Version(str(version)) < self.first

    @property
    def before_confirmed(self) -> bool:
        """Whether the releases before ``first`` are known to load on an older glibc (their
        tag says so and nothing says otherwise)."""
        return bool(self.row.get("before_confirmed", True))

    def text(self, newest: Version | str) -> str:
        """Why ``newest`` (a release from ``first`` on) is not the answer here."""
        return (f"{self.project} {newest}'s Linux wheels are {self.row['tag']}: glibc "
                f"{self.glibc} cannot load them; {self.last_before} is the last with "
                f"{self.row['before_tag']}")


def _manylinux_rows(project: str, platform: str) -> list[dict[str, Any]]:
    return [r for r in wheel_index().get("manylinux", [])
            if r.get("project") == project and r.get("platform") == platform]


def glibc_cap(project: str, platform: str, m: Machine, framework: str) -> GlibcCap | None:
    """The glibc cap on ``project``'s releases for this machine, from the shipped
    [[manylinux]] rows; None when the machine's glibc is not stated, the platform is not
    Linux, no floor is above its glibc, or an index was read for ``framework`` (its wheels'
    tags were then matched against this glibc already: ``wheels.supported``)."""
    if m.glibc is None or not platform.startswith("linux"):
        return None
    if (getattr(releases(), "sources", None) or {}).get(framework):
        return None
    above = [r for r in _manylinux_rows(project, platform)
             if (g := ver(r.get("glibc"))) is not None and g > m.glibc]
    if not above:
        return None
    return GlibcCap(min(above, key=lambda r: Version(str(r["first"]))), m.glibc)


def glibc_assumed(project: str, platform: str, m: Machine, version: Version | str,
                  framework: str) -> tuple[str, str] | None:
    """(text, source) when the machine's glibc is not stated and ``version``'s Linux wheels
    need a newer glibc than an older release's did: the answer assumes a current glibc and
    says so. None when it does not matter (glibc stated, not Linux, no floor rose) or when an
    index was read for ``framework`` (the shipped rows do not describe its releases)."""
    if m.glibc is not None or m.platform is None or not platform.startswith("linux"):
        return None
    if (getattr(releases(), "sources", None) or {}).get(framework):
        return None   # an index's release: its own tags, not the shipped rows, would say
    rows = [r for r in _manylinux_rows(project, platform)
            if Version(str(version)) >= Version(str(r["first"]))]
    if not rows:
        return None
    row = max(rows, key=lambda r: Version(str(r["first"])))
    return (f"the snapshot does not state the C library: {project} {version}'s Linux wheels "
            f"are {row['tag']} (glibc >= {row['glibc']}), assumed here; on an older glibc "
            f"{row['last_before']} is the last with {row['before_tag']}",
            str(row.get("source", GLIBC_URL)))
