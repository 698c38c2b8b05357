"""Knowledge functions over the compatibility matrices in ``rules/matrices``.

Each is registered by name in ``envdoctor.engine.vocabulary.FUNCTIONS`` and called from rule
expressions,
e.g. ``when = "nvidia.driver_version < min_driver(torch.cuda)"``. They return ``None`` when the
matrices do not know the answer: a rule then does not fire (a wrong verdict is worse than none).
A factory is ``f(facts, intent) -> callable``; a section whose probe did not answer makes the
callable return ``UNKNOWN``. The pure look-ups (``lookup_*``) take plain values so tests can
call them without facts. Rows may carry ``confirmed = false``; functions named ``*_confirmed``
say whether the cell an answer came from was confirmed, for a check's ``confirmed`` field.
"""

from __future__ import annotations

import re
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from envdoctor.engine.expr import UNKNOWN
from envdoctor.engine.loader import matrix
from envdoctor.engine.vocabulary import register
from envdoctor.facts import Facts, Gpu
from envdoctor.versions import DisplayVersion


# ---------------------------------------------------------------------------- helpers
def ver(value: Any) -> Version | None:
    """A Version from a Version, a string or a number; None when it does not parse."""
    if isinstance(value, Version):
        return value
    if value is None or isinstance(value, bool):
        return None
    try:
        return Version(str(value).strip())
    except InvalidVersion:
        return None


def driver_ver(value: Any) -> Version | None:
    """A driver version from the matrices that prints as NVIDIA writes it (``560.28.03``, not
    PEP 440's ``560.28.3``) and compares numerically."""
    if value is None or isinstance(value, (bool, Version)):
        return value if isinstance(value, Version) else None
    try:
        return DisplayVersion(str(value).strip())
    except InvalidVersion:
        return None


def series(value: Any) -> Version | None:
    """``12.4.131`` -> ``12.4``: the major.minor series of a version."""
    v = ver(value)
    return Version(f"{v.major}.{v.minor}") if v is not None else None


def confirmed(row: dict[str, Any] | None) -> bool:
    """A matrix row counts as confirmed unless it says ``confirmed = false``."""
    return bool(row) and row.get("confirmed", True) is not False


def in_range(value: Version, spec: str) -> bool:
    """``value`` (its release part, without +local) inside a specifier like ``>=2.4,<2.7``."""
    try:
        return SpecifierSet(spec).contains(Version(value.base_version), prereleases=True)
    except InvalidSpecifier:
        return False


# ---------------------------------------------------------------------------- GPUs
def _name_matches(name: str, pattern: str) -> bool:
    """Case-insensitive substring match on word boundaries ("A10" does not match "A100")."""
    low, pat = name.lower(), pattern.lower().strip()
    start = low.find(pat)
    while start >= 0:
        end = start + len(pat)
        before_ok = start == 0 or not low[start - 1].isalnum()
        after_ok = end == len(low) or not low[end].isalnum()
        if before_ok and after_ok:
            return True
        start = low.find(pat, start + 1)
    return False


def lookup_gpu(name: str) -> dict[str, Any] | None:
    """The ``[[gpu]]`` row for an nvidia-smi/NVML name; the longest matching pattern wins."""
    best, best_len = None, 0
    for row in matrix("gpus").get("gpu", []):
        if any(x.lower() in name.lower() for x in row.get("exclude", [])):
            continue
        for pattern in row.get("match", []):
            if len(pattern) > best_len and _name_matches(name, pattern):
                best, best_len = row, len(pattern)
    return best


def gpu_cc_of(gpu: Gpu) -> Version | None:
    """A GPU's compute capability: NVML's, else the name table's (pasted reports lack it)."""
    if gpu.cc is not None:
        return gpu.cc
    row = lookup_gpu(gpu.name) if gpu.name else None
    return ver(row["cc"]) if row else None


def _nvidia(facts: Facts) -> Any:
    return facts.nvidia if facts.nvidia.probe.status.known else UNKNOWN


@register("any_gpu_cc")
def _any_gpu_cc(facts: Facts, intent: str) -> Any:
    """``any_gpu_cc(">=12.0")``: does any GPU's compute capability satisfy the specifier?

    False when there are no GPUs; UNKNOWN when the NVIDIA probe did not answer, or when no GPU
    matches and some GPU's capability is unknown (neither NVML nor the name table knows it).
    """
    def fn(spec: str) -> Any:
        nv = _nvidia(facts)
        if nv is UNKNOWN:
            return UNKNOWN
        ccs = [gpu_cc_of(g) for g in nv.gpus]
        wanted = SpecifierSet(spec)
        if any(cc is not None and wanted.contains(cc, prereleases=True) for cc in ccs):
            return True
        return UNKNOWN if None in ccs else False
    return fn


@register("gpu_cc")
def _gpu_cc(facts: Facts, intent: str) -> Any:
    """``gpu_cc(gpu)``: a GPU's compute capability (NVML's, else by name); None if unknown."""
    return lambda gpu: None if gpu is None else gpu_cc_of(gpu)


# ---------------------------------------------------------------------------- torch wheels
_LOCAL_CUDA = re.compile(r"^cu(\d{3,4})$")


def torch_variant_name(version: Any, cuda: Any) -> str | None:
    """``2.6.0+cu124`` -> ``cu124``; without a local label, built from torch.version.cuda."""
    v = ver(version)
    if v is not None and v.local and _LOCAL_CUDA.match(v.local):
        return v.local
    c = ver(cuda)
    return f"cu{c.major}{c.minor}" if c is not None else None


def wheel_platform(arch: Any) -> str:
    """The torch wheel platform tag family of a CPU architecture: ``aarch64``/``arm64`` ->
    ``linux-aarch64``; anything else (x86_64, unknown) -> ``default`` (the x86_64/Windows rows)."""
    return "linux-aarch64" if str(arch or "").lower() in ("aarch64", "arm64", "sbsa") else "default"


def lookup_torch_variant(version: Any, cuda: Any, arch: Any = None) -> dict[str, Any] | None:
    """The ``[[variant]]`` row (bundled cuDNN, arch list) of a torch CUDA wheel, or None.

    aarch64 wheels are built with their own TORCH_CUDA_ARCH_LIST (.ci/aarch64_linux/), so a row
    applies only to the platform it names (``platform = "linux-aarch64"``; no field: x86_64 and
    Windows). An aarch64 wheel without its own row has no known arch list: None, no verdict.
    """
    v, name = ver(version), torch_variant_name(version, cuda)
    if v is None or name is None:
        return None
    want = wheel_platform(arch)
    for row in matrix("torch").get("variant", []):
        if (row.get("cuda") == name and in_range(v, row.get("torch", ""))
                and row.get("platform", "default") == want):
            return row
    return None


def _host_arch(facts: Facts) -> Any:
    return facts.host.arch if facts.host.probe.status.known else None


def _arch_cc(arch: str) -> tuple[str, Version] | None:
    """``sm_86`` -> ("sm", 8.6); ``compute_120`` -> ("compute", 12.0); arch suffixes dropped."""
    m = re.match(r"^(sm|compute)_(\d+)(\d)[a-z]?$", arch.strip().lower())
    return (m.group(1), Version(f"{m.group(2)}.{m.group(3)}")) if m else None


def archs_run_on(archs: list[str], target: str) -> bool:
    """Whether code compiled for ``archs`` runs on a GPU of arch ``target`` (e.g. "sm_120").

    CUDA binary compatibility: SASS for sm_XY runs on the same major X with minor >= Y; PTX
    (compute_XY) is JIT-compiled for any GPU with capability >= X.Y.
    """
    want = _arch_cc(target)
    if want is None:
        return False
    cc = want[1]
    for arch in archs:
        got = _arch_cc(arch)
        if got is None:
            continue
        kind, have = got
        if kind == "sm" and have.major == cc.major and have.minor <= cc.minor:
            return True
        if kind == "compute" and have <= cc:
            return True
    return False


def _torch(facts: Facts) -> Any:
    fw = facts.frameworks
    return fw.torch if fw.probe.status.known else UNKNOWN


@register("torch_has_arch")
def _torch_has_arch(facts: Facts, intent: str) -> Any:
    """``torch_has_arch("sm_120")``: does the installed torch wheel carry code for that arch?

    True when its arch list (torch matrix, by CUDA variant and release) has SASS that runs on
    it (same major, lower or equal minor) or PTX it can JIT; None when torch is absent, not a
    CUDA build, or the matrix has no row for the wheel; UNKNOWN when frameworks is unknown.
    """
    def fn(arch: str) -> Any:
        torch = _torch(facts)
        if torch is UNKNOWN:
            return UNKNOWN
        if torch is None or torch.cuda is None:
            return None
        row = lookup_torch_variant(torch.version, torch.cuda, _host_arch(facts))
        return None if row is None else archs_run_on(row.get("archs", []), arch)
    return fn


def sm_of(cc: Any) -> str | None:
    """Compute capability ``8.6`` -> ``sm_86``; ``12.0`` -> ``sm_120``."""
    v = ver(cc)
    return f"sm_{v.major}{v.minor}" if v is not None else None


def live_torch_archs(facts: Facts) -> tuple[str, ...] | None:
    """torch's own arch list (``torch.cuda.get_arch_list()`` from a live worker, or the list a
    pasted "sm_XX is not compatible ... supports CUDA capabilities sm_50 sm_60 ..." warning
    printed); None when absent or when it names no CUDA arch (a ROCm build lists gfx*)."""
    live = facts.live.get("torch") if facts.live else None
    if live is None:
        return None
    if not live.arch_list:
        return archs_in_range(getattr(live, "cc_range", ()))
    cuda = tuple(a for a in live.arch_list if _arch_cc(a) is not None)
    return cuda or None


def archs_in_range(cc_range: Any) -> tuple[str, ...] | None:
    """torch's "supported capability (7.0) - (12.0)" as the sm list it stands for.

    torch prints that range (min and max of its own arch list) when a GPU falls outside it;
    every known architecture from the GPU table inside the range is taken as covered, so a
    GPU below the minimum or above the maximum is missing and one inside is not.
    """
    if not cc_range or len(cc_range) != 2:
        return None
    low, high = ver(cc_range[0]), ver(cc_range[1])
    if low is None or high is None or low > high:
        return None
    ccs = {low, high} | {v for v in (ver(r.get("cc")) for r in matrix("gpus").get("arch", []))
                         if v is not None and low <= v <= high}
    return tuple(f"sm_{v.major}{v.minor}" for v in sorted(ccs))


def torch_archs_of(facts: Facts) -> Any:
    """The arch list behind GPU001: ``{"archs", "source", "confirmed", "torch"}``.

    The live list wins (it is what the installed torch says about itself, so it is confirmed
    and needs no version); else the torch matrix row of the wheel's CUDA variant. None when
    neither knows; UNKNOWN when there is no live list and the frameworks section is unknown.
    """
    archs = live_torch_archs(facts)
    live = facts.live.get("torch") if facts.live else None
    if archs is not None:
        version = live.version if live is not None and live.version is not None else None
        if version is None and facts.frameworks.probe.status.known \
                and facts.frameworks.torch is not None:
            version = facts.frameworks.torch.version
        source = "torch's own arch list" if live is not None and live.arch_list else \
            "torch's supported capability range " + " - ".join(getattr(live, "cc_range", ()))
        return {"archs": list(archs), "source": source, "confirmed": True,
                "torch": str(version) if version is not None else "(version not reported)"}
    torch = _torch(facts)
    if torch is UNKNOWN:
        return UNKNOWN
    if torch is None or torch.cuda is None:
        return None
    row = lookup_torch_variant(torch.version, torch.cuda, _host_arch(facts))
    if row is None:
        return None
    return {"archs": list(row.get("archs", [])), "source": "torch matrix",
            "confirmed": confirmed(row), "torch": str(torch.version)}


@register("torch_archs")
def _torch_archs(facts: Facts, intent: str) -> Any:
    """``torch_archs()`` -> archs, source (live list or matrix), confirmed, torch version."""
    return lambda: torch_archs_of(facts)


def gpus_newer_than_build_cuda(nv: Any, build_cuda: Any) -> list[str]:
    """GPUs whose architecture the build's CUDA version cannot compile for at all.

    An impossibility, so it needs no arch list: nvcc gained sm_120 in CUDA 12.8, hence a CUDA
    12.4 build holds no sm_120 code whatever its TORCH_CUDA_ARCH_LIST (only a confirmed
    ``first_cuda`` of the ``gpus`` matrix counts).
    """
    cuda = series(build_cuda)
    out = []
    for gpu in nv.gpus:
        cc = gpu_cc_of(gpu)
        row = lookup_arch(cc) if cc is not None else None
        first = ver(row.get("first_cuda")) if row and confirmed(row) else None
        if cuda is not None and first is not None and cuda < first:
            out.append(f"{gpu.name} ({sm_of(cc)}, needs CUDA >= {first})")
    return out


def _missing_archs(facts: Facts) -> Any:
    nv = _nvidia(facts)
    if nv is UNKNOWN:
        return UNKNOWN
    got = torch_archs_of(facts)
    if got is UNKNOWN:
        return got
    torch = _torch(facts)
    impossible = [] if torch in (None, UNKNOWN) or torch.cuda is None or \
        (got is not None and got["source"] != "torch matrix") else \
        gpus_newer_than_build_cuda(nv, torch.cuda)
    if got is None:
        return impossible or None
    missing = []
    for gpu in nv.gpus:
        sm = sm_of(gpu_cc_of(gpu))
        if sm is None:
            return impossible or None
        if not archs_run_on(got["archs"], sm):
            missing.append(f"{gpu.name} ({sm})")
    return missing


@register("torch_missing_archs")
def _torch_missing_archs(facts: Facts, intent: str) -> Any:
    """GPUs the installed torch has no kernels for, as ``"NAME (sm_XY)"``.

    Uses torch's own arch list when a live worker or a pasted warning gave one (the torch
    version may then be unknown), else the matrix row of the wheel; GPUs the build's CUDA
    predates are missing even without a row. None when nothing is known (CPU build, no row and
    no impossibility, a GPU's capability unknown): no verdict then.
    """
    return lambda: _missing_archs(facts)


@register("torch_archs_confirmed")
def _torch_archs_confirmed(facts: Facts, intent: str) -> Any:
    """Whether GPU001's verdict is confirmed: a live arch list, a confirmed matrix row, or a
    GPU the build's CUDA version cannot target at all (an impossibility needs no list)."""
    def fn() -> Any:
        got = torch_archs_of(facts)
        if got not in (None, UNKNOWN) and got["confirmed"]:
            return True
        nv, torch = _nvidia(facts), _torch(facts)
        if UNKNOWN in (nv, torch) or torch is None or torch.cuda is None:
            return False
        return bool(gpus_newer_than_build_cuda(nv, torch.cuda))
    return fn


@register("torch_variant")
def _torch_variant(facts: Facts, intent: str) -> Any:
    """The torch ``[[variant]]`` row of the installed wheel (cuda, archs, cudnn, confirmed)."""
    def fn() -> Any:
        torch = _torch(facts)
        if torch is UNKNOWN:
            return UNKNOWN
        if torch is None:
            return None
        return _with_confirmed(lookup_torch_variant(torch.version, torch.cuda, _host_arch(facts)))
    return fn


def _with_confirmed(row: dict[str, Any] | None) -> dict[str, Any] | None:
    """A row for rule expressions: always has a boolean ``confirmed``."""
    return None if row is None else {**row, "confirmed": confirmed(row)}


# ---------------------------------------------------------------------------- GPU tables
def lookup_arch(cc: Any) -> dict[str, Any] | None:
    """The ``[[arch]]`` row (name, first/last CUDA) of a compute capability."""
    v = ver(cc)
    if v is None:
        return None
    return next((r for r in matrix("gpus").get("arch", []) if ver(r.get("cc")) == v), None)


@register("arch_name")
def _arch_name(facts: Facts, intent: str) -> Any:
    """``arch_name("8.6")`` -> "Ampere"; None when the table does not list it."""
    return lambda cc: (lookup_arch(cc) or {}).get("name")


@register("gpu_row")
def _gpu_row(facts: Facts, intent: str) -> Any:
    """``gpu_row("NVIDIA GeForce RTX 5090")`` -> its ``[[gpu]]`` row (cc, confirmed) or None."""
    return lambda name: _with_confirmed(lookup_gpu(name)) if name else None


def lookup_datasheet(name: str) -> dict[str, Any] | None:
    """Peak datasheet numbers for a GPU name (``gpu_datasheet.toml``), longest match wins.

    ``bf16_tflops = 0.0`` in the table means the GPU has no bf16 tensor cores.
    """
    best, best_len = None, 0
    for row in matrix("gpu_datasheet").get("gpu", []):
        if any(x.lower() in name.lower() for x in row.get("exclude", [])):
            continue
        for pattern in row.get("match", []):
            if len(pattern) > best_len and _name_matches(name, pattern):
                best, best_len = row, len(pattern)
    return best


@register("datasheet")
def _datasheet(facts: Facts, intent: str) -> Any:
    """``datasheet(gpu.name)`` -> peak TFLOPS/bandwidth row (all rows unconfirmed) or None."""
    return lambda name: _with_confirmed(lookup_datasheet(name)) if name else None


# ---------------------------------------------------------------------------- CUDA ↔ driver
def _platform(os_name: str) -> str:
    return "windows" if os_name.lower().startswith("win") else "linux"


def lookup_min_driver(cuda: Any, os_name: str = "linux") -> tuple[Version, bool] | None:
    """Driver bundled with the first release of a CUDA series (Table 3), and confirmed.

    ``12.4`` and ``12.4.131`` both mean the 12.4 series: its GA (lowest) row. None when the
    table has no row or the cell is N/A (Windows from CUDA 13.0).
    """
    want, col = series(cuda), _platform(os_name)
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
    v, col = ver(cuda), _platform(os_name)
    if v is None:
        return None
    row = next((r for r in matrix("cuda_driver").get("minor_compat", [])
                if r.get("major") == v.major), None)
    return driver_ver(row.get(col)) if row and confirmed(row) else None


def lookup_max_cuda(driver: Any, os_name: str = "linux") -> Version | None:
    """Newest CUDA series whose bundled driver minimum is <= ``driver``; None if none known."""
    d, col = ver(driver), _platform(os_name)
    if d is None:
        return None
    best = None
    for row in matrix("cuda_driver").get("toolkit", []):
        need = ver(row.get(col))
        if need is not None and need <= d and confirmed(row):
            best = max(best, series(row["cuda"])) if best else series(row["cuda"])
    return best


def _os(facts: Facts) -> str:
    return facts.host.os if facts.host.probe.status.known else "linux"


@register("min_driver")
def _min_driver(facts: Facts, intent: str) -> Any:
    """``min_driver(cuda)``: the toolkit-bundled driver for that CUDA series on this OS."""
    def fn(cuda: Any) -> Any:
        got = lookup_min_driver(cuda, _os(facts))
        return got[0] if got else None
    return fn


@register("min_driver_compat")
def _min_driver_compat(facts: Facts, intent: str) -> Any:
    """``min_driver_compat(cuda)``: minor-version-compatibility floor of that CUDA major."""
    return lambda cuda: lookup_compat_floor(cuda, _os(facts))


@register("max_cuda")
def _max_cuda(facts: Facts, intent: str) -> Any:
    """``max_cuda(driver)``: newest CUDA series the driver supports with no compat caveat."""
    return lambda driver: lookup_max_cuda(driver, _os(facts))


def framework_cudas(facts: Facts) -> list[tuple[str, Version]]:
    """(what, CUDA version) for each installed framework built for CUDA.

    torch: torch.version.cuda. TensorFlow: its build_info CUDA, else the tested-configuration
    row. JAX: the CUDA major of its plugin (``jax-cuda12-plugin`` -> 12.0: the plugin's floor).
    """
    fw = facts.frameworks
    out: list[tuple[str, Version]] = []
    if fw.torch is not None and fw.torch.cuda is not None:
        out.append((f"torch {fw.torch.version}", fw.torch.cuda))
    tf = fw.tensorflow
    if tf is not None and tf.is_cuda_build is not False and tf.version is not None:
        cuda = tf.cuda or ver((lookup_tf_release(tf.version) or {}).get("cuda"))
        if cuda is not None and (tf.is_cuda_build or tf.cuda is not None):
            out.append((f"tensorflow {tf.version}", cuda))
    if fw.jax is not None:
        for major in sorted({m for m in (_jax_plugin_major(p.name) for p in fw.jax.plugins) if m}):
            out.append((f"jax-cuda{major}-plugin", Version(f"{major}.0")))
    return out


# Minor-version compatibility exists from CUDA 11 on: "before CUDA 11, applications built
# against newer CUDA Toolkit releases were not supported on older drivers" (CUDA Compatibility
# guide, https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html).
# For CUDA 10.x and older the driver bundled with that minor release is a hard floor.
FIRST_MINOR_COMPAT_MAJOR = 11


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


def _driver_gaps(facts: Facts, below_floor: bool, confirmed_only: bool = False) -> Any:
    nv, fw = _nvidia(facts), facts.frameworks
    if nv is UNKNOWN or not fw.probe.status.known:
        return UNKNOWN
    if nv.driver_version is None:
        return []
    os_name, gaps = _os(facts), []
    for what, cuda in framework_cudas(facts):
        floor = hard_floor(cuda, os_name)
        bundled = lookup_min_driver(cuda, os_name)
        if below_floor and floor is not None and nv.driver_version < floor[0]:
            if not confirmed_only or floor[1]:
                gaps.append(f"{what} (CUDA {cuda} needs driver >= {floor[0]})")
        elif not below_floor and bundled is not None and nv.driver_version < bundled[0] \
                and (floor is None or nv.driver_version >= floor[0]) \
                and not what.startswith("jax"):
            gaps.append(f"{what} (CUDA {cuda}: full support from driver {bundled[0]})")
    return gaps


@register("driver_below_floor")
def _driver_below_floor(facts: Facts, intent: str) -> Any:
    """Frameworks whose CUDA major the driver cannot run at all (below the compat floor)."""
    return lambda: _driver_gaps(facts, below_floor=True)


@register("driver_below_floor_confirmed")
def _driver_below_floor_confirmed(facts: Facts, intent: str) -> Any:
    """Whether every gap of ``driver_below_floor()`` rests on a confirmed matrix cell."""
    def fn() -> Any:
        every = _driver_gaps(facts, below_floor=True)
        if every is UNKNOWN:
            return UNKNOWN
        return len(_driver_gaps(facts, below_floor=True, confirmed_only=True)) == len(every)
    return fn


@register("driver_below_bundled")
def _driver_below_bundled(facts: Facts, intent: str) -> Any:
    """Frameworks running under minor-version compatibility (driver older than their CUDA's)."""
    return lambda: _driver_gaps(facts, below_floor=False)


# ---------------------------------------------------------------------------- cuDNN
def _series_range(text: str) -> tuple[Version, Version] | None:
    """``"9.1-9.4"`` -> (9.1, 9.4); ``"9.10"`` -> (9.10, 9.10)."""
    parts = [ver(p) for p in str(text).split("-")]
    if not parts or None in parts or len(parts) > 2:
        return None
    return parts[0], parts[-1]  # type: ignore[return-value]


def lookup_cudnn(version: Any) -> dict[str, Any] | None:
    """The cuDNN support-matrix row covering a version (``9.13.0.50`` -> the "9.11-9.16" row)."""
    want = series(version)
    if want is None:
        return None
    for row in matrix("cudnn").get("release", []):
        rng = _series_range(row.get("cudnn", ""))
        if rng and rng[0] <= want <= rng[1]:
            return row
    return None


def lookup_cudnn_min_cc(version: Any, cuda_major: int | None = None) -> Version | None:
    """Oldest compute capability a cuDNN release supports (CUDA-11 packages may differ)."""
    row = lookup_cudnn(version)
    if row is None:
        return None
    if cuda_major == 11 and row.get("min_cc_cuda11"):
        return ver(row["min_cc_cuda11"])
    return ver(row.get("min_cc"))


@register("cudnn_min_cc")
def _cudnn_min_cc(facts: Facts, intent: str) -> Any:
    """``cudnn_min_cc("9.13.0")`` -> 7.5; None when the support matrix has no row."""
    return lambda version, cuda_major=None: lookup_cudnn_min_cc(version, cuda_major)


@register("cudnn_row")
def _cudnn_row(facts: Facts, intent: str) -> Any:
    """``cudnn_row(version)`` -> the support-matrix row (with ``confirmed``) or None."""
    return lambda version: _with_confirmed(lookup_cudnn(version))


def cudnn_wheels(facts: Facts) -> list[tuple[str, Version, int | None]]:
    """pip cuDNN wheels: (distribution, version, CUDA major from the -cuNN suffix)."""
    out = []
    for d in facts.packages.distributions:
        m = re.match(r"^nvidia-cudnn(?:-cu(\d+))?$", d.name)
        if m and d.version is not None:
            out.append((d.name, d.version, int(m.group(1)) if m.group(1) else None))
    return out


@register("gpus_below_cudnn")
def _gpus_below_cudnn(facts: Facts, intent: str) -> Any:
    """GPUs older than the installed pip cuDNN supports.

    E.g. ``["GTX 1080 Ti (6.1 < 7.5, cuDNN 9.13)"]``.

    Also the list ``gpus_below_cudnn_confirmed()`` says whether every row used was confirmed.
    """
    def fn() -> Any:
        nv = _nvidia(facts)
        if nv is UNKNOWN or not facts.packages.probe.status.known:
            return UNKNOWN
        out = []
        for dist, version, major in cudnn_wheels(facts):
            floor = lookup_cudnn_min_cc(version, major)
            for gpu in nv.gpus:
                cc = gpu_cc_of(gpu)
                if floor is not None and cc is not None and cc < floor:
                    out.append(f"{gpu.name} (cc {cc} < {floor}, {dist} {version})")
        return out
    return fn


@register("gpus_below_cudnn_confirmed")
def _gpus_below_cudnn_confirmed(facts: Facts, intent: str) -> Any:
    """Whether every cuDNN row behind ``gpus_below_cudnn()`` is confirmed."""
    return lambda: all(confirmed(lookup_cudnn(v)) for _, v, _ in cudnn_wheels(facts)
                       if lookup_cudnn(v) is not None)


# ---------------------------------------------------------------------------- torch releases
def lookup_torch_release(version: Any) -> dict[str, Any] | None:
    """The RELEASE.md row of a torch version (matched on major.minor)."""
    want = series(version)
    return next((r for r in matrix("torch").get("release", [])
                 if want is not None and ver(r["torch"]) == want), None)


@register("torch_release")
def _torch_release(facts: Facts, intent: str) -> Any:
    """``torch_release(version)`` -> python range, torchvision/torchaudio, variants, confirmed."""
    return lambda version: _with_confirmed(lookup_torch_release(version))


def local_variant(version: Any) -> str | None:
    """``0.19.0+cu121`` -> ``cu121``; ``+cpu`` -> ``cpu``; anything else (no label, a source
    build's git hash like ``+a9603c7``) -> None."""
    v = ver(version)
    if v is None or not v.local:
        return None
    return v.local if re.fullmatch(r"cu\d+|cpu|rocm[\d.]+|xpu", v.local) else None


@register("torch_companion_mismatch")
def _torch_companion_mismatch(facts: Facts, intent: str) -> Any:
    """torchvision/torchaudio that do not pair with torch: wrong release or CUDA variant.

    Returns ``["torchvision 0.19.0+cu121 (torch 2.6 needs 0.21)"]``; a pairing the matrix does
    not list is not judged.
    """
    def fn() -> Any:
        pk = facts.packages
        if not pk.probe.status.known:
            return UNKNOWN
        torch = pk.get("torch")
        if torch is None or torch.version is None:
            return []
        row, out = lookup_torch_release(torch.version) or {}, []
        tv = local_variant(torch.version)
        for comp in ("torchvision", "torchaudio"):
            dist = pk.get(comp)
            if dist is None or dist.version is None:
                continue
            want = ver(row.get(comp))
            if want is not None and series(dist.version) != want:
                out.append(f"{comp} {dist.version} (torch {series(torch.version)} needs "
                           f"{want}.x)")
                continue
            cv = local_variant(dist.version)
            if tv and cv and tv != cv:
                out.append(f"{comp} {dist.version} is a {cv} build, torch {torch.version} "
                           f"is {tv}")
        return out
    return fn


# ---------------------------------------------------------------------------- TensorFlow
def lookup_tf_release(version: Any) -> dict[str, Any] | None:
    """The tested-build-configuration row of a TensorFlow version (major.minor)."""
    want = series(version)
    return next((r for r in matrix("tensorflow").get("release", [])
                 if want is not None and ver(r["tensorflow"]) == want), None)


@register("tf_release")
def _tf_release(facts: Facts, intent: str) -> Any:
    """``tf_release(version)`` -> python range, tested CUDA and cuDNN, confirmed; or None."""
    return lambda version: _with_confirmed(lookup_tf_release(version))


@register("tf_last_windows_gpu")
def _tf_last_windows_gpu(facts: Facts, intent: str) -> Any:
    """The last TensorFlow with GPU support on native Windows (2.10)."""
    value = ver(matrix("tensorflow").get("windows", {}).get("last_native_gpu"))
    return lambda: value


# Distributions that cannot use an NVIDIA GPU whatever CUDA is installed.
_TF_NO_CUDA = ("tensorflow-cpu", "tf-nightly-cpu", "tensorflow-intel", "tensorflow-macos",
               "tensorflow-cpu-aws", "tensorflow-aarch64", "tensorflow-rocm")


def _cuda_fits(have: Version, want: Version) -> bool:
    """Whether toolkit ``have`` provides the runtime a build for CUDA ``want`` loads.

    From CUDA 11 the runtime's soname carries the major only (libcudart.so.11.0 and .so.12 for
    every minor, minor-version compatibility); before, it carried major.minor (cudart64_101.dll,
    libcudart.so.10.1), so a 10.1 build does not load 10.2.
    """
    if have.major != want.major:
        return False
    return want.major >= FIRST_MINOR_COMPAT_MAJOR or have.minor == want.minor


def tf_cuda_mismatch_of(facts: Facts) -> Any:
    """Why a CUDA TensorFlow cannot load the installed CUDA/cuDNN, as readable strings.

    Only for builds that load the system CUDA (not ``[and-cuda]`` pip wheels): the CUDA and
    cuDNN TensorFlow was built with (build_info, else the tested-configuration row) against
    every installed toolkit and cuDNN library. [] when nothing to compare or all fits; UNKNOWN
    when a section needed is unknown.
    """
    fw = facts.frameworks
    if not fw.probe.status.known:
        return UNKNOWN
    tf = fw.tensorflow
    if tf is None or tf.version is None or tf.is_cuda_build is False \
            or tf.distribution in _TF_NO_CUDA:
        return []
    os_name = facts.host.os if facts.host.probe.status.known else ""
    last_win = ver(matrix("tensorflow").get("windows", {}).get("last_native_gpu"))
    if os_name == "Darwin" or (os_name == "Windows" and last_win is not None
                               and series(tf.version) > last_win):
        return []
    row = lookup_tf_release(tf.version) or {}
    want_cuda = tf.cuda or ver(row.get("cuda"))
    want_cudnn = tf.cudnn or ver(row.get("cudnn"))
    if want_cuda is None:
        return []
    pk = facts.packages
    if pk.probe.status.known:
        if any(d.name.startswith(("nvidia-cuda-runtime", "nvidia-cudnn"))
               for d in pk.distributions):
            return []  # tensorflow[and-cuda]: TF loads the pip wheels (TF002 covers gaps)
    elif tf.version >= Version("2.14"):
        return UNKNOWN  # may be an [and-cuda] install: cannot tell without the packages
    if not facts.cuda.probe.status.known:
        return UNKNOWN
    out = []
    have = facts.cuda.versions
    if have and not any(_cuda_fits(h, want_cuda) for h in have):
        need = f"{want_cuda.major}.x" if want_cuda.major >= FIRST_MINOR_COMPAT_MAJOR \
            else f"{want_cuda.major}.{want_cuda.minor}"
        out.append(f"CUDA {need} needed, installed: " + ", ".join(str(h) for h in have))
    if want_cudnn is not None and facts.libraries.probe.status.known:
        cudnn = [lib.version for lib in facts.libraries.named("cudnn") if lib.version]
        if cudnn and not any(v.major == want_cudnn.major for v in cudnn):
            out.append(f"cuDNN {want_cudnn.major}.x needed, installed: "
                       + ", ".join(str(v) for v in cudnn))
    return out


@register("tf_cuda_mismatch")
def _tf_cuda_mismatch(facts: Facts, intent: str) -> Any:
    """``tf_cuda_mismatch()``: CUDA/cuDNN a system-CUDA TensorFlow needs but does not find."""
    return lambda: tf_cuda_mismatch_of(facts)


# The `tensorflow` (not `tensorflow-gpu`) pip package had no GPU support before 1.15, in
# 1.15.2 (a build-script change: tensorflow/tensorflow#36347, answered by a TF maintainer) and
# in 2.0; 1.15.0 and from 2.1 on it includes GPU support (RELEASE.md, Release 2.1.0: "The
# `tensorflow` pip package now includes GPU support by default (same as `tensorflow-gpu`)").
# 1.15.3-1.15.5 are not judged: not confirmed in this session.


def tf_cpu_only_package_of(facts: Facts) -> Any:
    """``"tensorflow 1.15.2"`` when the installed `tensorflow` pip package is a CPU-only one;
    None when it is not (or another distribution provides TF); UNKNOWN when unknown."""
    fw = facts.frameworks
    if not fw.probe.status.known:
        return UNKNOWN
    tf = fw.tensorflow
    if tf is None or tf.version is None or tf.distribution != "tensorflow" \
            or tf.is_cuda_build is True:
        return None
    v = Version(tf.version.base_version)
    cpu_only = v < Version("1.15") or v == Version("1.15.2") \
        or Version("2.0") <= v < Version("2.1")
    if not cpu_only:
        return None
    pk = facts.packages
    if pk.probe.status.known and (pk.get("tensorflow-gpu") is not None
                                  or pk.get("tensorflow") is None and pk.distributions):
        return None  # tensorflow-gpu provides it, or the list shows no `tensorflow` package
    if not pk.probe.status.known:  # e.g. an issue template: the package name is not stated
        return f"tensorflow {tf.version} (if installed as `tensorflow`, not `tensorflow-gpu`)"
    return f"tensorflow {tf.version}"


@register("tf_cpu_only_package")
def _tf_cpu_only_package(facts: Facts, intent: str) -> Any:
    """``tf_cpu_only_package()``: the CPU-only `tensorflow` package installed, or None."""
    return lambda: tf_cpu_only_package_of(facts)


# ---------------------------------------------------------------------------- JAX
def _jax_plugin_major(name: str) -> int | None:
    m = re.match(r"^jax-cuda(\d+)-(plugin|pjrt)$", name)
    return int(m.group(1)) if m else None


def lookup_jax_release(version: Any) -> dict[str, Any] | None:
    """The JAX row whose first..last range holds ``version``."""
    v = ver(version)
    if v is None:
        return None
    for row in matrix("jax").get("release", []):
        first, last = ver(row.get("first")), ver(row.get("last"))
        if first and last and first <= Version(v.base_version) <= last:
            return row
    return None


def lookup_jax_plugin(cuda_major: Any) -> dict[str, Any] | None:
    """The CUDA plugin rule (package names, min driver/cuDNN/cc) of a CUDA major."""
    return next((r for r in matrix("jax").get("plugin", [])
                 if str(r.get("cuda_major")) == str(cuda_major)), None)


@register("jax_release")
def _jax_release(facts: Facts, intent: str) -> Any:
    """``jax_release(version)`` -> python range, numpy floor; None past the table."""
    return lambda version: _with_confirmed(lookup_jax_release(version))


@register("jax_plugin")
def _jax_plugin(facts: Facts, intent: str) -> Any:
    """``jax_plugin(12)`` -> plugin/pjrt names, min driver, min cuDNN, min cc."""
    return lambda major: _with_confirmed(lookup_jax_plugin(major))


@register("jax_mismatch")
def _jax_mismatch(facts: Facts, intent: str) -> Any:
    """Version rule of jax/jaxlib/plugin/pjrt broken, as readable strings.

    jax setup.py: jaxlib and the plugin must lie in [jaxlib floor, jax]; the plugin pins its
    pjrt to its own version (jax_plugins/cuda/plugin_setup.py).
    """
    def fn() -> Any:
        pk = facts.packages
        if not pk.probe.status.known:
            return UNKNOWN
        jax, jaxlib = pk.get("jax"), pk.get("jaxlib")
        if jax is None or jax.version is None:
            return []
        out = []
        jv = Version(jax.version.base_version)
        if jaxlib is not None and jaxlib.version is not None \
                and Version(jaxlib.version.base_version) > jv:
            out.append(f"jaxlib {jaxlib.version} is newer than jax {jax.version}")
        by_major: dict[int, dict[str, Version]] = {}
        for d in pk.distributions:
            m = re.match(r"^jax-cuda(\d+)-(plugin|pjrt)$", d.name)
            if m and d.version is not None:
                by_major.setdefault(int(m.group(1)), {})[m.group(2)] = d.version
        for major, parts in sorted(by_major.items()):
            plugin, pjrt = parts.get("plugin"), parts.get("pjrt")
            if plugin is not None and pjrt is not None and plugin != pjrt:
                out.append(f"jax-cuda{major}-plugin {plugin} needs jax-cuda{major}-pjrt "
                           f"=={plugin}, found {pjrt}")
            if plugin is not None and Version(plugin.base_version) > jv:
                out.append(f"jax-cuda{major}-plugin {plugin} is newer than jax {jax.version}")
            if plugin is not None and jaxlib is not None and jaxlib.version is not None \
                    and Version(plugin.base_version) < Version(jaxlib.version.base_version):
                out.append(f"jax-cuda{major}-plugin {plugin} is older than jaxlib "
                           f"{jaxlib.version}")
        return out
    return fn


@register("gpus_below_jax")
def _gpus_below_jax(facts: Facts, intent: str) -> Any:
    """GPUs older than the installed JAX CUDA plugin's minimum compute capability."""
    def fn() -> Any:
        nv, fw = _nvidia(facts), facts.frameworks
        if nv is UNKNOWN or not fw.probe.status.known:
            return UNKNOWN
        if fw.jax is None:
            return []
        out = []
        for major in sorted({m for m in (_jax_plugin_major(p.name) for p in fw.jax.plugins) if m}):
            floor = ver((lookup_jax_plugin(major) or {}).get("min_cc"))
            for gpu in nv.gpus:
                cc = gpu_cc_of(gpu)
                if floor is not None and cc is not None and cc < floor:
                    out.append(f"{gpu.name} (cc {cc} < {floor} for jax-cuda{major}-plugin)")
        return out
    return fn


# ---------------------------------------------------------------------------- GPU health
_THROTTLE_BAD = ("hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown",
                 "hw_power_brake_slowdown")


@register("gpu_throttling")
def _gpu_throttling(facts: Facts, intent: str) -> Any:
    """GPUs slowed for a reason other than idling: thermal, hardware or power-brake slowdown,
    or a software power cap while drawing < 80% of the limit (a lowered limit)."""
    def fn() -> Any:
        nv = _nvidia(facts)
        if nv is UNKNOWN:
            return UNKNOWN
        out = []
        for g in nv.gpus:
            bad = [r for r in g.throttle_reasons if r in _THROTTLE_BAD]
            if "sw_power_cap" in g.throttle_reasons and g.power_draw_w is not None \
                    and g.power_limit_w and g.power_draw_w < 0.8 * g.power_limit_w:
                bad.append(f"sw_power_cap at {g.power_draw_w:.0f} of {g.power_limit_w:.0f} W")
            if bad:
                temp = f", {g.temperature_c} C" if g.temperature_c is not None else ""
                out.append(f"{g.name} #{g.index}: {', '.join(bad)}{temp}")
        return out
    return fn


@register("gpu_processes")
def _gpu_processes(facts: Facts, intent: str) -> Any:
    """Every process on every GPU as ``"python (pid 48213, 71674 MiB) on #0"``."""
    def fn() -> Any:
        nv = _nvidia(facts)
        if nv is UNKNOWN:
            return UNKNOWN
        return [f"{p.name} (pid {p.pid}" + (f", {p.used_mb} MiB" if p.used_mb is not None else "")
                + f") on #{g.index}" for g in nv.gpus for p in g.processes]
    return fn


# ---------------------------------------------------------------------------- packages
_UNSUFFIXED_CUDA = ("nvidia-cuda-runtime", "nvidia-cublas", "nvidia-cufft", "nvidia-curand",
                    "nvidia-cusolver", "nvidia-cusparse", "nvidia-nvjitlink",
                    "nvidia-cuda-nvrtc", "nvidia-cuda-cupti", "nvidia-cuda-nvcc", "nvidia-nvtx")


def nvidia_wheel_major(name: str, version: Version | None) -> int | None:
    """CUDA major of a pip ``nvidia-*`` wheel: its ``-cuNN`` suffix, or for CUDA 13's
    unsuffixed component wheels (``nvidia-cublas 13.0.0.19``) its version's major."""
    m = re.match(r"^nvidia-.+-cu(\d+)$", name)
    if m:
        return int(m.group(1))
    if name in _UNSUFFIXED_CUDA and version is not None and version.major >= 13:
        return version.major
    return None


@register("nvidia_wheel_majors")
def _nvidia_wheel_majors(facts: Facts, intent: str) -> Any:
    """Sorted CUDA majors of the pip ``nvidia-*`` CUDA wheels installed (``[12, 13]``)."""
    def fn() -> Any:
        if not facts.packages.probe.status.known:
            return UNKNOWN
        return sorted({m for d in facts.packages.distributions
                       if (m := nvidia_wheel_major(d.name, d.version)) is not None})
    return fn


@register("nvidia_wheels_of")
def _nvidia_wheels_of(facts: Facts, intent: str) -> Any:
    """``nvidia_wheels_of(12)`` -> names of the pip nvidia-* wheels built for that CUDA major."""
    def fn(major: int) -> Any:
        if not facts.packages.probe.status.known:
            return UNKNOWN
        return [f"{d.name}=={d.version}" for d in facts.packages.distributions
                if nvidia_wheel_major(d.name, d.version) == major]
    return fn


def _first_numpy2(package: str) -> tuple[Version, bool] | None:
    row = next((r for r in matrix("misc").get("numpy", []) if r.get("package") == package), None)
    v = ver(row.get("first_numpy2")) if row else None
    return (v, confirmed(row)) if v is not None else None


@register("numpy1_builds")
def _numpy1_builds(facts: Facts, intent: str) -> Any:
    """Installed packages built against NumPy 1 (misc.toml ``[[numpy]]``), each a dict with
    ``name``, ``version``, ``first_numpy2``, ``confirmed``; [] under NumPy 1."""
    def fn() -> Any:
        pk = facts.packages
        if not pk.probe.status.known:
            return UNKNOWN
        numpy = pk.get("numpy")
        if numpy is None or numpy.version is None or numpy.version.major < 2:
            return []
        out = []
        for name in ("torch", "tensorflow", "tensorflow-cpu", "jaxlib"):
            dist = pk.get(name)
            first = _first_numpy2("tensorflow" if name.startswith("tensorflow") else name)
            if dist is not None and dist.version is not None and first \
                    and Version(dist.version.base_version) < first[0]:
                out.append({"name": name, "version": str(dist.version),
                            "first_numpy2": str(first[0]), "confirmed": first[1]})
        return out
    return fn


@register("misc_row")
def _misc_row(facts: Facts, intent: str) -> Any:
    """``misc_row("mxnet", "numpy_max")``: the first ``[[mxnet]]`` row of misc.toml that has
    that field (with ``confirmed``), for checks that cite one fact of that table."""
    def fn(table: str, field: str) -> Any:
        rows = matrix("misc").get(table, [])
        return _with_confirmed(next((r for r in rows if field in r), None))
    return fn


@register("keras_row")
def _keras_row(facts: Facts, intent: str) -> Any:
    """``keras_row(tf_version)``: the Keras <-> TensorFlow row whose range holds that TF."""
    def fn(tf_version: Any) -> Any:
        v = ver(tf_version)
        if v is None:
            return None
        return _with_confirmed(next((r for r in matrix("misc").get("keras", [])
                                     if in_range(v, r.get("tensorflow", ""))), None))
    return fn


# ---------------------------------------------------------------------------- environment
@register("on_ld_path")
def _on_ld_path(facts: Facts, intent: str) -> Any:
    """``on_ld_path(path)``: is the folder of ``path`` listed in LD_LIBRARY_PATH?"""
    def fn(path: str) -> Any:
        if not facts.env.probe.status.known:
            return UNKNOWN
        dirs = {d.rstrip("/") for d in facts.env.vars.get("LD_LIBRARY_PATH", "").split(":") if d}
        folder = path.rsplit("/", 1)[0].rstrip("/") if "/" in path else ""
        return bool(folder) and folder in dirs
    return fn


@register("visible_devices_missing")
def _visible_devices_missing(facts: Facts, intent: str) -> Any:
    """Entries of CUDA_VISIBLE_DEVICES that name no GPU here (index past the count, unknown
    UUID or MIG id); [] when unset, empty or all valid. CUDA stops at the first bad entry."""
    def fn() -> Any:
        nv = _nvidia(facts)
        if nv is UNKNOWN or not facts.env.probe.status.known:
            return UNKNOWN
        value = facts.env.vars.get("CUDA_VISIBLE_DEVICES")
        if value is None or value.strip() in ("", "-1", "none", "NoDevFiles") or not nv.gpus:
            return []
        uuids = [g.uuid.lower() for g in nv.gpus if g.uuid]
        bad = []
        for entry in (e.strip() for e in value.split(",")):
            if re.fullmatch(r"\d+", entry):
                if int(entry) >= len(nv.gpus):
                    bad.append(entry)
            elif entry.lower().startswith(("gpu-", "mig-")):
                if uuids and not any(u.startswith(entry.lower()) for u in uuids) \
                        and not entry.lower().startswith("mig-"):
                    bad.append(entry)
            elif entry:
                bad.append(entry)
        return bad
    return fn


ALLOC_CONF_KEYS = {
    "max_split_size_mb": r"\d+",
    "roundup_power2_divisions": r"\d+|\[[0-9a-z_:, >]+\]",
    "garbage_collection_threshold": r"0?\.\d+|1(\.0*)?",
    "expandable_segments": r"True|False",
    "backend": r"native|cudaMallocAsync",
    "release_lock_on_cudamalloc": r"True|False",
    "pinned_use_cuda_host_register": r"True|False",
    "pinned_num_register_threads": r"\d+",
    "pinned_use_background_threads": r"True|False",
    "per_process_memory_fraction": r"0?\.\d+|1(\.0*)?",
    "graph_capture_record_stream_reuse": r"True|False",
}


def alloc_conf_problem(text: str) -> str | None:
    """What is wrong with a PYTORCH_CUDA_ALLOC_CONF value, or None when it parses.

    Grammar from c10/cuda/CUDAAllocatorConfig.cpp: comma-separated ``key:value`` pairs
    (roundup_power2_divisions may be a bracketed list); keys and True/False are case-sensitive.
    """
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    for part in (p.strip() for p in parts):
        if not part:
            continue
        key, sep, value = part.partition(":")
        key, value = key.strip(), value.strip()
        if not sep:
            return f"{part!r} is not key:value"
        if key not in ALLOC_CONF_KEYS:
            return f"unknown option {key!r}"
        if not re.fullmatch(ALLOC_CONF_KEYS[key], value):
            return f"bad value {value!r} for {key}"
    return None


@register("alloc_conf_problem")
def _alloc_conf_problem(facts: Facts, intent: str) -> Any:
    """``alloc_conf_problem(value)``: why PyTorch would reject an allocator config, or None."""
    return lambda text: None if text is None else alloc_conf_problem(text)


# ---------------------------------------------------------------------------- other
@register("no_gpu_reason")
def _no_gpu_reason(facts: Facts, intent: str) -> Any:
    """Why no GPU can be used here, in one sentence, or None when one can."""
    def reason() -> str | None:
        nv = facts.nvidia
        if not nv.probe.status.known:
            return "the NVIDIA probe did not answer: " + (nv.probe.reason or "unknown")
        if nv.gpus:
            visible = facts.env.vars.get("CUDA_VISIBLE_DEVICES")
            if visible is not None and visible.strip() in ("", "-1", "none", "NoDevFiles"):
                return f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU"
            return None
        if nv.nvml_error and "mismatch" in nv.nvml_error.lower():
            return f"the NVIDIA driver cannot be used: {nv.nvml_error}"
        if nv.pci_devices:
            return (f"{nv.pci_devices} NVIDIA GPU(s) are on the PCI bus but no NVIDIA driver "
                    "is loaded")
        if nv.driver_version is not None:
            return f"driver {nv.driver_version} is loaded but reports no GPU"
        return "no NVIDIA GPU and no NVIDIA driver were found on this machine"
    return reason


def cpu_only_frameworks_of(facts: Facts) -> Any:
    """The installed frameworks that cannot use an NVIDIA GPU whatever the machine has.

    ``["torch 2.13.0+cpu (CPU-only build)", "tensorflow-cpu 2.21.0 (CPU-only build)",
    "jax 0.10.2 (no CUDA plugin)"]``; [] when none; UNKNOWN when the frameworks probe did not
    answer. macOS is left out: its wheels use Metal, and no NVIDIA GPU runs there anyway.
    """
    fw = facts.frameworks
    if not fw.probe.status.known:
        return UNKNOWN
    if facts.host.probe.status.known and facts.host.os == "Darwin":
        return []
    out = []
    t = fw.torch
    if t is not None and t.version is not None and t.cuda is None and t.build_known:
        out.append(f"torch {t.version} ({'a ROCm build' if t.hip else 'CPU-only build'})")
    tf = fw.tensorflow
    if tf is not None and tf.version is not None and (
            tf.is_cuda_build is False or tf.distribution in ("tensorflow-cpu", "tf-nightly-cpu")):
        out.append(f"{tf.distribution or 'tensorflow'} {tf.version} (CPU-only build)")
    j = fw.jax
    if j is not None and j.version is not None and jax_gpu_build_of(facts) is False:
        out.append(f"jax {j.version} (no CUDA plugin)")
    return out


@register("cpu_only_frameworks")
def _cpu_only_frameworks(facts: Facts, intent: str) -> Any:
    """``cpu_only_frameworks()``: installed frameworks whose build cannot use an NVIDIA GPU."""
    return lambda: cpu_only_frameworks_of(facts)


# ---------------------------------------------------------------------------- validation
# Fields whose values must parse, per matrix and table: "version", "spec" or "series".
_TYPED_FIELDS: dict[tuple[str, str], dict[str, str]] = {
    ("cuda_driver", "toolkit"): {"cuda": "version", "linux": "version", "windows": "version"},
    ("cuda_driver", "minor_compat"): {"linux": "version", "windows": "version"},
    ("gpus", "arch"): {"cc": "version", "first_cuda": "version", "last_cuda": "version"},
    ("gpus", "gpu"): {"cc": "version"},
    ("torch", "release"): {"torch": "version", "python": "spec", "torchvision": "version",
                           "torchaudio": "version"},
    ("torch", "variant"): {"torch": "spec"},
    ("tensorflow", "release"): {"tensorflow": "version", "python": "spec", "cuda": "version",
                                "cudnn": "version"},
    ("jax", "release"): {"first": "version", "last": "version", "python": "spec"},
    ("jax", "plugin"): {"min_cudnn": "version", "min_cc": "version"},
    ("cudnn", "release"): {"cudnn": "series", "min_cc": "version"},
    ("misc", "keras"): {"tensorflow": "spec"},
}


def _type_problem(kind: str, value: Any) -> str | None:
    if value == "" and kind == "version":
        return None  # an empty cell: the matrix does not know (e.g. last_cuda of a live arch)
    if kind == "version" and ver(value) is None:
        return f"{value!r} is not a version"
    if kind == "spec":
        try:
            SpecifierSet(str(value))
        except InvalidSpecifier:
            return f"{value!r} is not a version specifier"
    if kind == "series" and _series_range(str(value)) is None:
        return f"{value!r} is not a version or a range like 9.1-9.4"
    return None


def matrix_problems(name: str, data: dict[str, Any]) -> list[str]:
    """What is wrong with one matrix's data: ``"<table>[i].<field>: message"`` per problem.

    Every row (any table other than ``meta``) needs a ``source`` URL; ``confirmed`` must be a
    boolean; typed fields must parse; arch lists must look like sm_XY / compute_XY.
    """
    from envdoctor.engine.loader import is_url
    problems = []
    for table, value in data.items():
        if table == "meta":
            continue
        rows = value if isinstance(value, list) else [value]
        for i, row in enumerate(rows):
            where = f"{table}[{i}]" if isinstance(value, list) else table
            if not isinstance(row, dict):
                problems.append(f"{where}: must be a table")
                continue
            if not is_url(row.get("source")):
                problems.append(f"{where}.source: every row needs a source URL")
            if "confirmed" in row and not isinstance(row["confirmed"], bool):
                problems.append(f"{where}.confirmed: must be true or false")
            for key, kind in _TYPED_FIELDS.get((name, table), {}).items():
                if key in row and (msg := _type_problem(kind, row[key])):
                    problems.append(f"{where}.{key}: {msg}")
            for arch in row.get("archs", []) if table == "variant" else []:
                if _arch_cc(arch) is None:
                    problems.append(f"{where}.archs: {arch!r} is not sm_XY or compute_XY")
    return problems


# ---------------------------------------------------------------------------- torch wheel fix
def _cu_version(tag: str) -> Version | None:
    m = _LOCAL_CUDA.match(tag or "")
    return Version(f"{m.group(1)[:-1]}.{m.group(1)[-1]}") if m else None


def driver_supports_arch(driver: Any, arch: str, os_name: str = "linux") -> bool | None:
    """Whether a driver branch can run GPUs of ``arch`` at all: a driver branch older than the
    one bundled with the first CUDA that knew the architecture predates the GPU (470 cannot
    drive an RTX 4090, sm_89 arrived with CUDA 11.8 / 520). Compared by branch (the major
    number) only, so a driver released within that branch is never called too old. None when
    the matrix does not know (no confirmed first CUDA)."""
    d, cc = ver(driver), _arch_cc(arch)
    if d is None or cc is None:
        return None
    row = lookup_arch(cc[1])
    first = ver(row.get("first_cuda")) if row and confirmed(row) else None
    floor = lookup_min_driver(first, os_name) if first is not None else None
    if floor is None:
        return None
    return d.major >= floor[0].major


def torch_wheel_for(targets: list[str], installed: Any, platform: str, os_name: str,
                    driver: Any) -> tuple[str, str] | None:
    """(torch pin, cu tag) of a wheel with code for every arch in ``targets`` that ``driver``
    can run: the installed release first (same version, other CUDA variant), else the newest
    release that has one. Of its variants, the newest CUDA the driver fully supports (no
    minor-version-compatibility caveat); else the oldest one it runs under that compatibility;
    with the driver unknown, the oldest (it runs on the most drivers).
    None when no listed wheel fits, or the driver cannot drive one of these GPUs at all (then
    the driver is the problem, not the wheel).
    """
    if any(driver_supports_arch(driver, t, os_name) is False for t in targets):
        return None
    rows = [r for r in matrix("torch").get("variant", [])
            if r.get("platform", "default") == platform]
    releases = sorted({v for v in (ver(r.get("torch")) for r in matrix("torch").get("release", []))
                       if v is not None}, reverse=True)
    inst = ver(installed)
    order = ([Version(inst.base_version)] if inst is not None else []) + releases
    d = ver(driver)
    for index, release in enumerate(order):
        fits = []
        for row in rows:
            cuda = _cu_version(row.get("cuda", ""))
            if cuda is None or not in_range(release, row.get("torch", "")):
                continue
            if not all(archs_run_on(row.get("archs", []), t) for t in targets):
                continue
            floor = lookup_compat_floor(cuda, os_name)
            if d is not None and (floor is None or d < floor):
                continue
            bundled = lookup_min_driver(cuda, os_name)
            full = d is not None and bundled is not None and d >= bundled[0]
            fits.append((full, cuda, row["cuda"]))
        if fits:
            pin = f"torch=={release}" if index == 0 and inst is not None else \
                f"torch=={release.major}.{release.minor}.*"
            full = [f for f in fits if f[0]]
            return pin, (max(full) if full else min(fits))[2]
    return None


def torch_command(pin: str, tag: str) -> str:
    return (f'pip install --force-reinstall "{pin}" torchvision torchaudio --index-url '
            f"https://download.pytorch.org/whl/{tag}")


def _torch_gpu_command(facts: Facts, keep_release: bool = True) -> Any:
    """The torch CUDA wheel for the GPUs and driver here (see ``torch_wheel_for``)."""
    nv, torch = _nvidia(facts), _torch(facts)
    if UNKNOWN in (nv, torch):
        return UNKNOWN
    targets = [sm_of(gpu_cc_of(g)) for g in nv.gpus]
    if None in targets or not targets:
        return SELECTOR
    installed = torch.version if torch is not None and keep_release else None
    got = torch_wheel_for(targets, installed, wheel_platform(_host_arch(facts)), _os(facts),
                          nv.driver_version)
    if got is None:
        if nv.driver_version is None:
            return SELECTOR
        return (f"upgrade the NVIDIA driver first: no listed torch wheel runs these GPUs on "
                f"driver {nv.driver_version}")
    return torch_command(*got)


SELECTOR = ("install the torch CUDA wheel for your GPU and driver from "
            "https://pytorch.org/get-started/locally/")


@register("driver_fix")
def _driver_fix(facts: Facts, intent: str) -> Any:
    """DRV001's fix: the driver to install (the newest floor among the installed frameworks'
    CUDA majors), and a torch wheel that runs on the current driver when one exists for these
    GPUs; never a wheel for a GPU the driver cannot drive."""
    def fn() -> Any:
        floors = [f for f in (lookup_compat_floor(c, _os(facts))
                              for _, c in framework_cudas(facts)) if f is not None]
        need = f" to {max(floors)} or newer" if floors else ""
        how = ("https://www.nvidia.com/Download/index.aspx or the NVIDIA App"
               if _os(facts).lower().startswith("win") else
               "Ubuntu: sudo ubuntu-drivers install; others: "
               "https://www.nvidia.com/Download/index.aspx")
        line = f"Upgrade the NVIDIA driver{need} ({how})."
        nv, torch = _nvidia(facts), _torch(facts)
        if UNKNOWN in (nv, torch) or torch is None:
            return line
        targets = [sm_of(gpu_cc_of(g)) for g in nv.gpus]
        if not targets or None in targets:
            return line
        got = torch_wheel_for(targets, torch.version, wheel_platform(_host_arch(facts)),
                              _os(facts), nv.driver_version)
        if got is None:
            got = torch_wheel_for(targets, None, wheel_platform(_host_arch(facts)), _os(facts),
                                  nv.driver_version)
        if got is None:
            return line
        return line + "\nOr keep the driver and install a torch built for an older CUDA: " + \
            torch_command(*got)
    return fn


@register("torch_gpu_install")
def _torch_gpu_install(facts: Facts, intent: str) -> Any:
    """``torch_gpu_install()``: the command that installs a torch CUDA wheel of the installed
    release for this machine's GPUs, driver, OS and CPU architecture (None if not computable)."""
    return lambda: _torch_gpu_command(facts)


@register("torch_reinstall_same_build")
def _torch_reinstall_same_build(facts: Facts, intent: str) -> Any:
    """``torch_reinstall_same_build()``: reinstall torch, torchvision and torchaudio of the
    installed torch release from the index of its own build (cu124, cpu, rocm6.2 …)."""
    def fn() -> Any:
        if not facts.packages.probe.status.known:
            return UNKNOWN
        torch = facts.packages.get("torch")
        if torch is None or torch.version is None:
            return None
        v = torch.version
        fw = facts.frameworks.torch if facts.frameworks.probe.status.known else None
        tag = v.local or (torch_variant_name(v, fw.cuda) if fw is not None and fw.cuda else None)
        base = f'pip install --force-reinstall "torch=={v.base_version}" torchvision torchaudio'
        if tag is None:
            return base
        return f"{base} --index-url https://download.pytorch.org/whl/{tag}"
    return fn


@register("torch_arch_fix")
def _torch_arch_fix(facts: Facts, intent: str) -> Any:
    """The install command that gives every GPU here a torch with its kernels, computed from
    the GPUs' architectures, the driver, OS and CPU architecture and the installed release;
    a driver upgrade when no listed wheel fits. None when a GPU's capability is unknown."""
    return lambda: _torch_gpu_command(facts)


# ---------------------------------------------------------------------------- TensorFlow libs
@register("tf_cuda_libs_fix")
def _tf_cuda_libs_fix(facts: Facts, intent: str) -> Any:
    """The command that gives the installed TensorFlow the CUDA libraries it was built for.

    2.14+ wheels take them from the ``[and-cuda]`` extra (pinned nvidia-*-cu12 wheels);
    older GPU wheels dlopen a system CUDA/cuDNN of the tested configuration, which conda-forge
    provides (any cuDNN of the same major with a minor >= the build's loads).
    """
    def fn() -> Any:
        fw = facts.frameworks
        if not fw.probe.status.known:
            return UNKNOWN
        tf = fw.tensorflow
        if tf is None or tf.version is None:
            return None
        release = f"{tf.version.major}.{tf.version.minor}"
        if tf.version >= Version("2.14"):
            return f'pip install "tensorflow[and-cuda]=={release}.*"'
        row = lookup_tf_release(tf.version) or {}
        cuda, cudnn = ver(row.get("cuda")), ver(row.get("cudnn"))
        if cuda is None or cudnn is None:
            return None
        cudnn_range = f"cudnn>={cudnn},<{cudnn.major + 1}"
        return (f'conda install -c conda-forge cudatoolkit={cuda} "{cudnn_range}"'
                "   # then put $CONDA_PREFIX/lib on LD_LIBRARY_PATH; or move to TensorFlow 2.14+"
                " with pip install \"tensorflow[and-cuda]\"")
    return fn


# ---------------------------------------------------------------------------- JAX
def jax_gpu_build_of(facts: Facts) -> Any:
    """Can the installed JAX use an NVIDIA GPU: True, False, or None when not observed.

    Observed evidence first: devices JAX itself listed (a live worker, a pasted
    ``jax.devices``) beat package metadata. Then a jax-cuda plugin or a CUDA jaxlib (old
    ``+cuda`` wheels). False only when the installed distributions were listed and have none.
    """
    fw = facts.frameworks
    if not fw.probe.status.known:
        return UNKNOWN
    j = fw.jax
    if j is None:
        return None
    live = facts.live.get("jax") if facts.live else None
    kinds = {d.kind for d in getattr(live, "devices", ()) or ()}
    if kinds & {"cuda", "gpu"}:
        return True
    if any(p.name.startswith(("jax-cuda", "jax_cuda")) for p in j.plugins) or \
            (j.jaxlib is not None and j.jaxlib.local and "cuda" in j.jaxlib.local):
        return True
    if kinds == {"cpu"}:
        return False  # JAX itself says it runs on the CPU
    return False if j.plugins_known else None


@register("jax_gpu_build")
def _jax_gpu_build(facts: Facts, intent: str) -> Any:
    """``jax_gpu_build()``: True/False, None when the report did not show it (see above)."""
    return lambda: jax_gpu_build_of(facts)


@register("gpu_install_lines")
def _gpu_install_lines(facts: Facts, intent: str) -> Any:
    """One install line per framework here that cannot use an NVIDIA GPU (INTENT002's fix),
    each for this machine's driver when it is known; a pointer to the selector otherwise."""
    def fn() -> Any:
        fw = facts.frameworks
        if not fw.probe.status.known:
            return UNKNOWN
        nv = facts.nvidia if facts.nvidia.probe.status.known else None
        driver = nv.driver_version if nv is not None else None
        lines = []
        t = fw.torch
        if t is not None and t.cuda is None and t.build_known:
            cmd = _torch_gpu_command(facts) if driver is not None else None
            lines.append(f"PyTorch: {cmd}" if cmd and cmd is not UNKNOWN else
                         "PyTorch: the CUDA wheel for your driver, from "
                         "https://pytorch.org/get-started/locally/")
        tf = fw.tensorflow
        cpu_dists = ("tensorflow-cpu", "tf-nightly-cpu")
        if tf is not None and tf.version is not None and (
                tf.is_cuda_build is False or tf.distribution in cpu_dists):
            release = f"{tf.version.major}.{tf.version.minor}"
            lines.append(f"TensorFlow (Linux): pip uninstall -y {tf.distribution} && "
                         f'pip install "tensorflow[and-cuda]=={release}.*"'
                         if tf.version >= Version("2.14") else
                         "TensorFlow: a GPU build, see https://www.tensorflow.org/install/pip")
        if fw.jax is not None and jax_gpu_build_of(facts) is False:
            d = ver(driver)
            extra = ("cuda13" if d is not None and d.major >= 580 else
                     "cuda12" if d is not None and d.major >= 525 else None)
            lines.append(f'JAX: pip install -U "jax[{extra}]"' if extra else
                         'JAX: pip install -U "jax[cuda12]" (driver >= 525) or "jax[cuda13]" '
                         "(driver >= 580)")
        return "\n".join(lines) or None
    return fn
