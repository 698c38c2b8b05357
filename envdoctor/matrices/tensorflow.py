"""TensorFlow: tested build configurations, the Windows GPU cut-off, its pip distributions
(tensorflow.toml)."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.matrices import matrix
from envdoctor.versions import in_range, series, ver


def lookup_tf_release(version: Any) -> dict[str, Any] | None:
    """The tested-build-configuration row of a TensorFlow version (major.minor)."""
    want = series(version)
    return next((r for r in matrix("tensorflow").get("release", [])
                 if want is not None and ver(r["tensorflow"]) == want), None)


def last_windows_gpu() -> Version | None:
    """The last TensorFlow with GPU support on native Windows (2.10)."""
    return ver(matrix("tensorflow").get("windows", {}).get("last_native_gpu"))


def no_cuda_distributions() -> tuple[str, ...]:
    """TensorFlow distributions that cannot use an NVIDIA GPU whatever CUDA is installed
    (``[distributions] no_cuda`` in tensorflow.toml)."""
    return tuple(matrix("tensorflow").get("distributions", {}).get("no_cuda", ()))


def cpu_only_distributions() -> tuple[str, ...]:
    """Distributions that are CPU-only builds by name (``tensorflow-cpu``, ``tf-nightly-cpu``)."""
    return tuple(matrix("tensorflow").get("distributions", {}).get("cpu_only", ()))


def distributions() -> tuple[str, ...]:
    """Every pip distribution that provides the ``tensorflow`` module, the plain package
    first (``[distributions] all``): what probes and report parsers take as TensorFlow."""
    return tuple(matrix("tensorflow").get("distributions", {}).get("all", ()))


def thin_pairs() -> dict[str, frozenset[str]]:
    """Thin installer wheel -> the platform builds it pins (``tensorflow`` ->
    tensorflow-intel, tensorflow-cpu-aws, tensorflow-macos): an intended pair, no conflict."""
    thin = matrix("tensorflow").get("distributions", {}).get("thin", {})
    return {name: frozenset(builds) for name, builds in thin.items()}


def base_package_cpu_only(version: Any) -> bool:
    """Whether that release of the plain ``tensorflow`` package was CPU-only
    (``[base_package] cpu_only``: before 1.15, 1.15.2, 2.0)."""
    v = ver(version)
    if v is None:
        return False
    specs = matrix("tensorflow").get("base_package", {}).get("cpu_only", ())
    return any(in_range(v, spec) for spec in specs)


def base_package_assumed(version: Any) -> bool:
    """Whether a report that names that release but not its package is read as the plain
    ``tensorflow`` package (``[base_package] unstated_name``: 1.15.2, 2.0)."""
    v = ver(version)
    if v is None:
        return False
    specs = matrix("tensorflow").get("base_package", {}).get("unstated_name", ())
    return any(in_range(v, spec) for spec in specs)


def and_cuda_from() -> Version | None:
    """The first TensorFlow whose GPU install is the ``[and-cuda]`` extra (pinned nvidia-*
    wheels instead of a system CUDA): ``gpu_from`` of the wheel_index platform row that
    installs that extra; None when the data has none."""
    extra = matrix("tensorflow").get("and_cuda", {}).get("extra", "tensorflow[and-cuda]")
    row = next((r for r in matrix("wheel_index").get("tensorflow_platform", [])
                if r.get("gpu") == extra and r.get("gpu_from")), None)
    return ver(row["gpu_from"]) if row else None


def has_and_cuda(version: Any) -> bool:
    """Whether TensorFlow ``version`` ships the ``[and-cuda]`` extra (``and_cuda_from``)."""
    v, first = ver(version), and_cuda_from()
    return v is not None and first is not None and v >= first


def hardware(release: Any = None) -> dict[str, Version | None]:
    """``min_cc``: the oldest GPU architecture TF wheels support; ``newest_cc``: the newest
    they carry code for (a newer GPU runs its PTX through the JIT). ``[hardware]``; with a
    ``release``, the newest ``[[hardware.builds]]`` row that covers it raises ``min_cc`` to the
    capability list that release's build compiles (pip.md's list is older than the builds)."""
    row = matrix("tensorflow").get("hardware", {})
    out = {"min_cc": ver(row.get("min_cc")), "newest_cc": ver(row.get("newest_cc"))}
    v = ver(release)
    if v is not None:
        floors = [c for b in row.get("builds", [])
                  if (f := ver(b.get("from"))) is not None and v >= f
                  and (c := ver(b.get("min_cc"))) is not None]
        if floors:
            out["min_cc"] = max(floors)
    return out


def hardware_build(release: Any) -> dict[str, Any] | None:
    """The ``[[hardware.builds]]`` row that covers ``release`` (the newest ``from``), or None."""
    v = ver(release)
    rows = [b for b in matrix("tensorflow").get("hardware", {}).get("builds", [])
            if v is not None and (f := ver(b.get("from"))) and v >= f]
    return dict(max(rows, key=lambda b: Version(str(b["from"])))) if rows else None


def hardware_source(release: Any) -> str | None:
    """The source of the ``[[hardware.builds]]`` row that decides ``release``'s ``min_cc``."""
    row = hardware_build(release)
    return str(row["source"]) if row else None
