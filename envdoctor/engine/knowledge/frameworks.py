"""Knowledge functions for PaddlePaddle, MindSpore and MXNet checks (rules/checks/paddle|
mindspore|mxnet): which Paddle CUDA variant this driver can run (rules/matrices/paddle.toml on
top of CUDA's own driver floors), and what a framework's worker printed that names a problem.
"""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.engine.expr import UNKNOWN
from envdoctor.engine.knowledge.compat import (
    confirmed,
    in_range,
    lookup_compat_floor,
    lookup_max_cuda,
    matrix,
    ver,
)
from envdoctor.engine.vocabulary import register
from envdoctor.facts import Facts, LiveFramework, Status


def driver_runs(driver: Version, cuda: Version, os_name: str = "linux") -> bool:
    """A driver runs a CUDA build when its newest CUDA series is at least the build's, or the
    build's major is in the driver's minor-version-compatibility range (same major, driver at
    or above that major's floor)."""
    newest = lookup_max_cuda(driver, os_name)
    if newest is not None and newest >= Version(f"{cuda.major}.{cuda.minor}"):
        return True
    floor = lookup_compat_floor(cuda, os_name)
    return floor is not None and driver >= floor and newest is not None \
        and newest.major == cuda.major


@register("driver_runs_cuda")
def _driver_runs_cuda(facts: Facts, intent: str) -> Any:
    """``driver_runs_cuda(cuda)``: can the installed driver run a build for that CUDA? UNKNOWN
    without a driver version; a CUDA the matrix does not know is UNKNOWN too, never a finding."""
    def fn(cuda: Any) -> Any:
        nv = facts.nvidia
        driver, want = (ver(nv.driver_version) if nv.probe.status.known else None), ver(cuda)
        if driver is None or want is None:
            return UNKNOWN
        os_name = facts.host.os if facts.host.probe.status.known else "linux"
        if lookup_compat_floor(want, os_name) is None and lookup_max_cuda(driver, os_name) is None:
            return UNKNOWN
        return driver_runs(driver, want, os_name)
    return fn


def paddle_variants(paddle_version: Any) -> list[dict[str, Any]]:
    """The ``[[variant]]`` rows of rules/matrices/paddle.toml for that Paddle release."""
    v = ver(paddle_version)
    if v is None:
        return []
    base = Version(v.base_version)
    return [r for r in matrix("paddle").get("variant", []) if in_range(base, r.get("paddle", ""))]


@register("paddle_variant")
def _paddle_variant(facts: Facts, intent: str) -> Any:
    """``paddle_variant()``: the newest Paddle GPU variant of the installed release that this
    driver runs, as {tag, cuda, index_url, install, confirmed}; None when none does."""
    def fn() -> Any:
        fw, nv = facts.frameworks, facts.nvidia
        if not (fw.probe.status.known and nv.probe.status.known):
            return UNKNOWN
        paddle, driver = fw.paddle, ver(nv.driver_version)
        if paddle is None or driver is None:
            return None
        os_name = facts.host.os if facts.host.probe.status.known else "linux"
        fits = [r for r in paddle_variants(paddle.version)
                if ver(r.get("cuda")) is not None and driver_runs(driver, ver(r["cuda"]), os_name)]
        if not fits:
            return None
        best = max(fits, key=lambda r: ver(r["cuda"]))
        release = Version(paddle.version.base_version) if paddle.version else None
        if str(best["tag"]).startswith("post"):
            pin = f"paddlepaddle-gpu=={release}.{best['tag']}" if release else "paddlepaddle-gpu"
            install = f"python -m pip install {pin} -f {best['index_url']}"
        else:
            pin = f"paddlepaddle-gpu=={release}" if release else "paddlepaddle-gpu"
            install = f"python -m pip install {pin} -i {best['index_url']}"
        return {**best, "install": install, "confirmed": confirmed(best)}
    return fn


@register("paddle_install")
def _paddle_install(facts: Facts, intent: str) -> Any:
    """``paddle_install()``: the install command of ``paddle_variant()``, or what to do when no
    variant of this release runs on the driver."""
    variant = _paddle_variant(facts, intent)

    def fn() -> Any:
        row = variant()
        if row is UNKNOWN:
            return UNKNOWN
        if row is None:
            return ("no paddlepaddle-gpu variant of this release runs on this driver: upgrade the "
                    "NVIDIA driver (https://www.nvidia.com/Download/index.aspx)")
        return row["install"]
    return fn


def _worker(facts: Facts, name: str) -> LiveFramework | None | Any:
    if not facts.live:
        return UNKNOWN
    lf = facts.live.get(name)
    if not isinstance(lf, LiveFramework) or lf.probe.status is Status.SKIPPED:
        return None
    return lf


@register("live_warned_with")
def _live_warned_with(facts: Facts, intent: str) -> Any:
    """``live_warned_with('mindspore', 'ENUMPY001')``: did that framework's worker answer (its
    import worked) but print text the signature ``code`` recognises? UNKNOWN when no worker ran
    (``--static``); False when that framework's worker did not run."""
    def fn(name: str, code: str) -> Any:
        lf = _worker(facts, name)
        if lf is UNKNOWN:
            return UNKNOWN
        return lf is not None and any(d.code == code for d in lf.warnings)
    return fn


@register("live_warned")
def _live_warned(facts: Facts, intent: str) -> Any:
    """``live_warned(['mindspore:ENUMPY001'])``: "<framework>: <code>: <title>" for each problem
    a worker that answered printed, leaving out the codes (or framework:code pairs) listed:
    those have their own, more specific check. UNKNOWN when no worker ran."""
    def fn(excluded: Any = ()) -> Any:
        if not facts.live:
            return UNKNOWN
        skip = set(excluded or ())
        return [f"{name} {lf.version or ''}".rstrip() + f": {d.code}: {d.title}"
                for name, lf in facts.live.items() if isinstance(lf, LiveFramework)
                for d in lf.warnings if d.code not in skip and f"{name}:{d.code}" not in skip]
    return fn


NEEDS_NUMPY = (("paddle", "PaddlePaddle"), ("mindspore", "MindSpore"), ("mxnet", "MXNet"),
               ("tensorflow", "TensorFlow"), ("jax", "JAX"), ("keras", "Keras"))


@register("numpy_dependents")
def _numpy_dependents(facts: Facts, intent: str) -> Any:
    """``numpy_dependents()``: the installed frameworks that import NumPy when imported
    themselves (torch does not). UNKNOWN when the framework probe did not answer."""
    def fn() -> Any:
        fw = facts.frameworks
        if not fw.probe.status.known:
            return UNKNOWN
        return [label for name, label in NEEDS_NUMPY if getattr(fw, name) is not None]
    return fn


NEEDS_NUMPY = (("paddle", "PaddlePaddle"), ("mindspore", "MindSpore"), ("mxnet", "MXNet"),
               ("tensorflow", "TensorFlow"), ("jax", "JAX"), ("keras", "Keras"))


@register("numpy_dependents")
def _numpy_dependents(facts: Facts, intent: str) -> Any:
    """``numpy_dependents()``: the installed frameworks that import NumPy when imported
    themselves (torch does not). UNKNOWN when the framework probe did not answer."""
    def fn() -> Any:
        fw = facts.frameworks
        if not fw.probe.status.known:
            return UNKNOWN
        return [label for name, label in NEEDS_NUMPY if getattr(fw, name) is not None]
    return fn


@register("live_import_failed_except")
def _live_import_failed_except(facts: Facts, intent: str) -> Any:
    """``live_import_failed_except(["mxnet:ENUMPY004", "*:No module named 'numpy'"])``: like
    ``live_import_failed()``, without the failures a static check already names (one cause,
    one finding). Each entry is ``<framework or *>:<signature code or text in the error>``."""
    def fn(explained: Any = ()) -> Any:
        if not facts.live:
            return UNKNOWN
        rules = [tuple(e.split(":", 1)) for e in (explained or ()) if ":" in e]
        out = []
        for name, lf in facts.live.items():
            if not isinstance(lf, LiveFramework) or lf.probe.status is Status.ERROR \
                    or lf.probe.status is Status.SKIPPED or lf.import_ok is not False:
                continue
            codes = {d.code for d in lf.diagnoses}
            if any(who in ("*", name) and (what in codes or what in lf.import_error)
                   for who, what in rules):
                continue
            out.append(f"{name}: {lf.import_error}")
        return out
    return fn


def numpy_absent(facts: Facts) -> bool:
    """NumPy is confirmed absent: the package probe of this machine answered without it (a
    pasted report that does not list NumPy says nothing)."""
    pk = facts.packages
    return facts.origin != "report" and pk.probe.status.known and pk.get("numpy") is None


@register("live_import_failed_except")
def _live_import_failed_except(facts: Facts, intent: str) -> Any:
    """``live_import_failed_except(["mxnet:ENUMPY004"])``: like ``live_import_failed()``,
    without the failures a static check already names (one cause, one finding): each entry is
    ``<framework or *>:<signature code or text in the error>``; and, when NumPy is confirmed
    absent (NP002), the frameworks that import it, whatever their error says (jaxlib's is
    "Encountered an error while initializing the extension")."""
    def fn(explained: Any = ()) -> Any:
        if not facts.live:
            return UNKNOWN
        rules = [tuple(e.split(":", 1)) for e in (explained or ()) if ":" in e]
        need_numpy = {name for name, _ in NEEDS_NUMPY} if numpy_absent(facts) else set()
        out = []
        for name, lf in facts.live.items():
            if not isinstance(lf, LiveFramework) or lf.probe.status is Status.ERROR \
                    or lf.probe.status is Status.SKIPPED or lf.import_ok is not False:
                continue
            codes = {d.code for d in lf.diagnoses}
            if name in need_numpy or any(who in ("*", name) and (what in codes
                                                                  or what in lf.import_error)
                                         for who, what in rules):
                continue
            out.append(f"{name}: {lf.import_error}")
        return out
    return fn
