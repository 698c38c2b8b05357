"""CUDA and the driver: which driver a CUDA release needs (cuda_driver.toml, NVIDIA's CUDA
Toolkit release notes, Table 3, and the CUDA Compatibility guide)."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.matrices import confirmed, matrix, platform_of
from envdoctor.versions import driver_ver, series, ver

# Minor-version compatibility exists from CUDA 11 on: "before CUDA 11, applications built
# against newer CUDA Toolkit releases were not supported on older drivers" (CUDA Compatibility
# guide, https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html).
# For CUDA 10.x and older the driver bundled with that minor release is a hard floor.
FIRST_MINOR_COMPAT_MAJOR = 11


def lookup_min_driver(cuda: Any, os_name: str = "linux") -> tuple[Version, bool] | None:
    """Driver bundled with the first release of a CUDA series (Table 3), and confirmed.

    ``12.4`` and ``12.4.131`` both mean the 12.4 series: its GA (lowest) row. None when the
    table has no row or the cell is N/A (Windows from CUDA 13.0).
    """
    want, col = series(cuda), platform_of(os_name)
    if want is None:
        return None
    rows = [r for r in matrix("cuda_driver").get("toolkit", []) if series(r["cuda"]) == want]
    rows.sort(key=lambda r: ver(r["cuda"]) or Version("0"))
    for row in rows:
        value = driver_ver(row.get(col))
        if value is not None:
            return value, confirmed(row)
    return None


def lookup_compat_floor(cuda: Any, os_name: str = "linux") -> Version | None:
    """Minor-version-compatibility floor of a CUDA major: the oldest driver that runs it."""
    v, col = ver(cuda), platform_of(os_name)
    if v is None:
        return None
    row = next((r for r in matrix("cuda_driver").get("minor_compat", [])
                if r.get("major") == v.major), None)
    return driver_ver(row.get(col)) if row and confirmed(row) else None


def lookup_max_cuda(driver: Any, os_name: str = "linux") -> Version | None:
    """Newest CUDA series whose bundled driver minimum is <= ``driver``; None if none known."""
    d, col = ver(driver), platform_of(os_name)
    if d is None:
        return None
    best: Version | None = None
    for row in matrix("cuda_driver").get("toolkit", []):
        need, cuda = ver(row.get(col)), series(row["cuda"])
        if need is not None and need <= d and confirmed(row) and cuda is not None \
                and (best is None or cuda > best):
            best = cuda
    return best


def hard_floor(cuda: Any, os_name: str = "linux") -> tuple[Version, bool] | None:
    """The oldest driver that runs ``cuda`` at all, and whether its cell is confirmed.

    CUDA >= 11: the minor-version-compatibility floor of the major. Older: the driver bundled
    with that CUDA series (Table 3), since there is no minor-version compatibility.
    """
    v = ver(cuda)
    if v is None:
        return None
    if v.major < FIRST_MINOR_COMPAT_MAJOR:
        return lookup_min_driver(v, os_name)
    floor = lookup_compat_floor(v, os_name)
    return (floor, True) if floor is not None else None


def cuda_fits(have: Version, want: Version) -> bool:
    """Whether toolkit ``have`` provides the runtime a build for CUDA ``want`` loads.

    From CUDA 11 the runtime's soname carries the major only (libcudart.so.11.0 and .so.12 for
    every minor, minor-version compatibility); before, it carried major.minor (cudart64_101.dll,
    libcudart.so.10.1), so a 10.1 build does not load 10.2.
    """
    if have.major != want.major:
        return False
    return want.major >= FIRST_MINOR_COMPAT_MAJOR or have.minor == want.minor


def unsuffixed_wheels() -> tuple[frozenset[str], int | None]:
    """NVIDIA's CUDA component wheels that carry no ``-cuNN`` suffix, and the CUDA major from
    which they do so (cuda_driver.toml ``[pip_wheels]``: 13)."""
    row = matrix("cuda_driver").get("pip_wheels", {})
    first = row.get("unsuffixed_from_major")
    return frozenset(row.get("unsuffixed", ())), first if isinstance(first, int) else None
