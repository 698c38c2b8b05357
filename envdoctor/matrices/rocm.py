"""Look-ups in rules/matrices/rocm.toml: which gfx targets a ROCm release supports on Linux,
which consumer chips run as another through HSA_OVERRIDE_GFX_VERSION, integrated GPUs."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.matrices import confirmed, matrix
from envdoctor.versions import ver


def gfx_rows() -> list[dict[str, Any]]:
    return list(matrix("rocm").get("gfx", []))


def gfx_row(target: str) -> dict[str, Any] | None:
    return next((r for r in gfx_rows() if r.get("target") == target), None)


def coverage_from() -> Version | None:
    """The oldest ROCm release the gfx table speaks for (its per-release pages start there)."""
    return ver(matrix("rocm").get("coverage", {}).get("from"))


def support(target: str, release: Version | None) -> bool | None:
    """Whether ROCm ``release`` (major.minor counts) supports ``target`` on Linux: True,
    False (confirmed: the target is listed by no release, or its confirmed row starts later
    or was dropped), or None when only an unconfirmed row says it is not, or the release is
    older than the table covers and no row's ``earlier`` names it (undecided, not absent)."""
    row = gfx_row(target)
    minor = Version(f"{release.major}.{release.minor}") if release is not None else None
    start = coverage_from()
    if minor is not None and start is not None and minor < start:
        earlier = {ver(e) for e in (row or {}).get("earlier", ())}
        return True if minor in earlier else None
    if row is None:
        return False
    if minor is None:
        return True
    since, dropped = ver(row.get("since")), ver(row.get("dropped"))
    inside = (since is None or minor >= since) and (dropped is None or minor < dropped)
    if inside:
        return True
    return False if confirmed(row) else None


def torch_wheel_has(target: str, torch: Version | None, hip: Version | None = None) -> bool:
    """Whether PyTorch's ROCm wheels of release ``torch`` (built for ROCm ``hip``) carry code
    for ``target`` beyond AMD's support table ([[torch_gfx]]: from the first release cut after
    the target entered PYTORCH_ROCM_ARCH, a pre-release of that release not counting; earlier
    where the row's ``with_rocm`` says wheels for that ROCm or later carried it already)."""
    if torch is None:
        return False
    for r in matrix("rocm").get("torch_gfx", []):
        if target not in r.get("targets", ()):
            continue
        first, rocm = ver(r.get("torch")), ver(r.get("with_rocm"))
        if first is not None and torch >= first:
            return True
        if rocm is not None and hip is not None and \
                Version(f"{hip.major}.{hip.minor}") >= rocm:
            return True
    return False


def torch_gfx_listed(target: str) -> bool:
    """Whether [[torch_gfx]] says when ``target`` entered PyTorch's ROCm wheels."""
    return any(target in r.get("targets", ()) for r in matrix("rocm").get("torch_gfx", []))


def override_for(target: str) -> dict[str, Any] | None:
    """The HSA_OVERRIDE_GFX_VERSION row whose family ``target`` belongs to, or None."""
    return next((r for r in matrix("rocm").get("override", [])
                 if target in r.get("targets", ())), None)


def is_igpu(target: str) -> bool:
    return target in matrix("rocm").get("igpu", {}).get("targets", ())


def driver_window() -> int:
    return int(matrix("rocm").get("driver", {}).get("window", 2))


def series() -> list[str]:
    """The ROCm releases (major.minor) in the data's order, oldest first."""
    return [str(x) for x in matrix("rocm").get("driver", {}).get("series", [])]


_series = series


def release_distance(wheel: Version, kernel: Version) -> tuple[int, bool] | None:
    """How many ROCm releases (minor series, in the support matrix's order) the wheel's user
    space is from the kernel driver's, signed (positive: the wheel is newer), and whether both
    releases are inside the part of the order a support-matrix page states; None when either
    release is not in the data's order."""
    order = _series()
    row = matrix("rocm").get("driver", {})
    keys = [f"{v.major}.{v.minor}" for v in (wheel, kernel)]
    if any(k not in order for k in keys):
        return None
    through = ver(row.get("confirmed_through"))
    inside = through is not None and all(Version(k) <= through for k in keys)
    return order.index(keys[0]) - order.index(keys[1]), inside and confirmed(row)


def driver_row() -> dict[str, Any]:
    return dict(matrix("rocm").get("driver", {}))


def tensorflow_row(release: Version | None) -> dict[str, Any] | None:
    """AMD's tensorflow-rocm row for a ROCm release (major.minor), or None."""
    if release is None:
        return None
    key = f"{release.major}.{release.minor}"
    return next((r for r in matrix("rocm").get("tensorflow", []) if r.get("rocm") == key), None)


def jax_row() -> dict[str, Any]:
    return dict(matrix("rocm").get("jax", {}))


def _board_key(name: str) -> str:
    """"AMD Radeon 8060S Graphics", "Radeon 8060S" -> "radeon 8060s": the vendor word and a
    trailing "Graphics" are how tools differ, not boards."""
    words = name.lower().replace("(tm)", " ").split()
    if words and words[0] == "amd":
        words = words[1:]
    if words and words[-1] == "graphics":
        words = words[:-1]
    return " ".join(words)


def native_gfx(board: str) -> str | None:
    """The board's own gfx target from its marketing name (the support table's names and the
    [[native]] rows), or None for a name the data does not hold (a generic "AMD Radeon
    Graphics" among them)."""
    key = _board_key(board or "")
    if not key:
        return None
    for row in [*gfx_rows(), *matrix("rocm").get("native", [])]:
        if any(_board_key(g) == key for g in row.get("gpus", ())):
            return str(row["target"])
    return None


def override_target(value: str) -> str | None:
    """HSA_OVERRIDE_GFX_VERSION's "major.minor.stepping" (decimal) as the gfx target it makes
    the runtime load (stepping in hex): "10.3.0" -> "gfx1030", "9.0.10" -> "gfx90a"; None
    when the value is not three numbers."""
    parts = (value or "").strip().split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    major, minor, step = (int(p) for p in parts)
    if minor > 9 or step > 15:
        return None
    return f"gfx{major}{minor}{step:x}"


# ---------------------------------------------------------------- AMD's own lists, by release
def listed_in(target: str, release: Version | None) -> bool | None:
    """Whether AMD's official list for ROCm ``release`` names ``target``: the README list of
    a release older than the gfx table covers (``listed_before``), else the gfx table
    (``support``). None when neither speaks for the release (4.5, or no release: see
    ``listed_by_any``). Unlike ``support`` this is "AMD lists it", not "the build has code":
    the 4.x builds still carried gfx803 code that their lists no longer named."""
    if release is None:
        return None
    minor = Version(f"{release.major}.{release.minor}")
    start = coverage_from()
    if start is not None and minor < start:
        for row in matrix("rocm").get("listed_before", []):
            if any(ver(r) == minor for r in row.get("releases", ())):
                return target in row.get("targets", ())
        return None
    return support(target, release)


def listed_by_any(target: str) -> bool:
    """Whether any release AMD documents lists ``target`` (a gfx row, or a README list)."""
    if gfx_row(target) is not None:
        return True
    return any(target in row.get("targets", ())
               for row in matrix("rocm").get("listed_before", []))


def name_key(name: str) -> str:
    """A product name as one comparable key: "AMD Radeon RX 5600 XT" and "RX 5600XT" are both
    ``rx5600xt``; "AMD Instinct MI210" is ``mi210``."""
    low = name.lower().replace("\u2122", " ").replace("(tm)", " ")
    words = [w for w in low.replace("-", " ").split()
             if w not in ("amd", "radeon", "instinct", "pro", "graphics", "accelerator")]
    return "".join(words)


def target_of_name(name: str) -> str | None:
    """The gfx target of an AMD product name (``names`` rows and the gfx rows' GPUs), or
    None when the data does not name it."""
    key = name_key(name)
    if not key:
        return None
    for row in [*matrix("rocm").get("names", []), *matrix("rocm").get("native", []),
                *gfx_rows()]:
        for gpu in row.get("names", row.get("gpus", ())):
            if name_key(str(gpu)) == key:
                return str(row["target"])
    return None


def target_of_ryzen(series: str, suffix: str) -> str | None:
    """The gfx target of the integrated GPU of a Ryzen model (first digit of its number,
    suffix: "5", "HX" for a 5900HX), or None when ``apu_cpus`` names none."""
    for row in matrix("rocm").get("apu_cpus", []):
        if series in row.get("series", ()) and suffix.upper() in row.get("suffixes", ()):
            return str(row["target"])
    return None


def listed_span(target: str) -> tuple[Version | None, Version | None]:
    """The first and the last ROCm release (major.minor) AMD's lists name ``target`` in: the
    README lists before the gfx table, then the gfx row's ``since`` (a confirmed row only) and
    ``dropped`` (the last is the release before a confirmed drop; None while the table still
    lists it, or when the drop is unconfirmed). (None, None) when no list names it."""
    firsts: list[Version] = []
    lasts: list[Version] = []
    for row in matrix("rocm").get("listed_before", []):
        if target in row.get("targets", ()):
            releases = [v for r in row.get("releases", ()) if (v := ver(r)) is not None]
            firsts += releases[:1]
            lasts += releases[-1:]
    row = gfx_row(target)
    if row is not None:
        # the gfx table supersedes the README lists for the last release: still listed, or
        # listed up to the release before a confirmed drop (an unconfirmed one says nothing)
        since = ver(row.get("since"))
        if since is not None and confirmed(row):
            firsts.append(since)
        lasts = []
        order = series()
        dropped = str(row.get("dropped", ""))
        if dropped in order and order.index(dropped) > 0 and confirmed(row):
            lasts.append(Version(order[order.index(dropped) - 1]))
    return (min(firsts) if firsts else None), (max(lasts) if lasts else None)
