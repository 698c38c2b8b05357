"""Knowledge functions over the live facts, for the checks in ``rules/checks/live``.

Each returns a list of one-line statements (empty: nothing wrong) or UNKNOWN when no worker
ran, so ``when = "len(live_failed()) > 0"`` reads as it should and a static run (``--static``)
leaves these checks *unknown*, never passed or fired on no evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envdoctor.engine.expr import UNKNOWN
from envdoctor.engine.vocabulary import register
from envdoctor.facts import Facts, LiveFramework, Status

HIDDEN = ("", "-1", "none", "NoDevFiles")
SLOW = 0.5   # a GPU under half its datasheet peak gets a finding


def ran(facts: Facts) -> list[LiveFramework] | None:
    """Workers whose answer (or failure) is recorded; None when none ran."""
    frameworks = [lf for lf in facts.live.values() if isinstance(lf, LiveFramework)
                  and lf.probe.status is not Status.SKIPPED]
    return frameworks or None


def _answered(facts: Facts) -> list[LiveFramework] | None:
    frameworks = ran(facts)
    if frameworks is None:
        return None
    return [lf for lf in frameworks if lf.probe.status is Status.OK and lf.import_ok]


def _live_fn(compute: Callable[[Facts], list[str] | None]
             ) -> Callable[[Facts, str], Callable[[], Any]]:
    def factory(facts: Facts, intent: str) -> Callable[[], Any]:
        def fn() -> Any:
            value = compute(facts)
            return UNKNOWN if value is None else value
        return fn
    return factory


def failed(facts: Facts) -> list[str] | None:
    frameworks = ran(facts)
    if frameworks is None:
        return None
    return [f"{lf.name}: {lf.probe.reason}" for lf in frameworks
            if lf.probe.status is Status.ERROR]


def import_failed(facts: Facts) -> list[str] | None:
    frameworks = ran(facts)
    if frameworks is None:
        return None
    return [f"{lf.name}: {lf.import_error}" for lf in frameworks
            if lf.probe.status is not Status.ERROR and lf.import_ok is False]


def smoke_failed(facts: Facts) -> list[str] | None:
    frameworks = _answered(facts)
    if frameworks is None:
        return None
    return [f"{lf.name} {s.name}: {s.detail}" for lf in frameworks if lf.smoke
            for s in lf.smoke.failed]


def cudnn_mismatch(facts: Facts) -> list[str] | None:
    """A loaded cuDNN of another major, or older than the one the framework was built with."""
    frameworks = _answered(facts)
    if frameworks is None:
        return None
    out = []
    for lf in frameworks:
        if lf.cudnn is None or lf.built_cudnn is None:
            continue
        if lf.cudnn.major != lf.built_cudnn.major or lf.cudnn < lf.built_cudnn:
            where = next((lib.path for lib in lf.loaded if lib.name == "cudnn"), "")
            out.append(f"{lf.name} {lf.version} loaded cuDNN {lf.cudnn}"
                       + (f" from {where}" if where else "")
                       + f", built with cuDNN {lf.built_cudnn}")
    return out


def shadowed(facts: Facts) -> list[str] | None:
    frameworks = _answered(facts)
    if frameworks is None:
        return None
    return [f"{lf.name} loaded {text} (a wheel in site-packages ships its own copy)"
            for lf in frameworks for text in lf.shadowed]


def cudnn_majors(facts: Facts) -> list[str] | None:
    """One entry per framework with a known cuDNN major; >1 distinct majors conflict."""
    frameworks = _answered(facts)
    if frameworks is None:
        return None
    entries = [(lf.name, lf.cudnn_major) for lf in frameworks if lf.cudnn_major is not None]
    if len({major for _, major in entries}) < 2:
        return []
    return [f"{name} needs cuDNN {major}" for name, major in entries]


def gpu_blind(facts: Facts) -> list[str] | None:
    """Frameworks that see no GPU on a machine whose driver sees some, each with the reason."""
    frameworks = _answered(facts)
    nv = facts.nvidia
    if frameworks is None or not nv.probe.status.known:
        return None
    if not nv.gpus:
        return []
    env_visible = facts.env.vars.get("CUDA_VISIBLE_DEVICES") if facts.env.probe.status.known \
        else None
    out = []
    for lf in frameworks:
        if lf.gpu_count > 0 or lf.name == "keras" or lf.build in ("tpu", "metal", "mps"):
            continue
        visible = lf.visible_devices if lf.visible_devices is not None else env_visible
        if visible is not None and visible.strip() in HIDDEN:
            why = f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU"
        elif lf.name == "jax" and lf.build == "cpu":
            why = "no JAX CUDA plugin is installed (pip install -U 'jax[cuda12]')"
        elif lf.build == "cpu":
            why = f"{lf.name} {lf.version} is a CPU-only build"
        elif lf.built_cuda is not None and nv.cuda_driver_version is not None \
                and nv.cuda_driver_version.major < lf.built_cuda.major:
            why = (f"the driver {nv.driver_version} supports CUDA up to "
                   f"{nv.cuda_driver_version}, the build needs CUDA {lf.built_cuda}")
        else:
            why = lf.gpu_error or "the framework gave no reason"
        out.append(f"{lf.name}: {why}")
    return out


def _datasheet_row(name: str) -> dict[str, Any] | None:
    from envdoctor.engine.loader import matrix
    for row in matrix("gpu_datasheet").get("gpu", []):
        if any(m.lower() in name.lower() for m in row.get("match", [])) and \
                not any(x.lower() in name.lower() for x in row.get("exclude", [])):
            return row
    return None


def speed_shortfall(facts: Facts) -> list[str] | None:
    """Measured matmul TFLOP/s and copy GB/s under half the datasheet peak of that GPU."""
    frameworks = _answered(facts)
    if frameworks is None:
        return None
    out = []
    pairs = (("tflops_bf16", "bf16_tflops", "TFLOP/s bf16"),
             ("tflops_fp16", "fp16_tflops", "TFLOP/s fp16"),
             ("tflops_tf32", "tf32_tflops", "TFLOP/s TF32"), ("copy_gbs", "mem_bandwidth_gbs",
                                                              "GB/s device copy"))
    for lf in frameworks:
        step = next((s for s in (lf.smoke.steps if lf.smoke else ()) if s.name == "speed"
                     and s.status == "passed" and s.metrics), None)
        if step is None or not lf.gpus:
            continue
        gpu = lf.gpus[0].name
        row = _datasheet_row(gpu)
        if row is None:
            continue
        for metric, column, unit in pairs:
            got, peak = step.metrics.get(metric), row.get(column) or 0.0
            if got is not None and peak > 0 and got < SLOW * peak:
                out.append(f"{lf.name} on {gpu}: {got:.0f} {unit} = {got / peak:.0%} of the "
                           f"{peak:g} datasheet peak ({row.get('source', '')}, unconfirmed)")
    return out


for _name, _fn in {"live_failed": failed, "live_import_failed": import_failed,
                   "smoke_failed": smoke_failed, "live_cudnn_mismatch": cudnn_mismatch,
                   "live_shadowed": shadowed, "live_cudnn_majors": cudnn_majors,
                   "live_gpu_blind": gpu_blind, "speed_shortfall": speed_shortfall}.items():
    register(_name)(_live_fn(_fn))


@register("live_stderr")
def _stderr(facts: Facts, intent: str) -> Callable[[], Any]:
    """The stderr tails and explain diagnoses of failed workers, for evidence."""
    def fn() -> Any:
        frameworks = ran(facts)
        if frameworks is None:
            return UNKNOWN
        return {lf.name: lf.stderr_tail for lf in frameworks if lf.stderr_tail}
    return fn


@register("live_diagnoses")
def _diagnoses(facts: Facts, intent: str) -> Callable[[], Any]:
    def fn() -> Any:
        frameworks = ran(facts)
        if frameworks is None:
            return UNKNOWN
        return [f"{lf.name}: {lf.diagnosis_text}" for lf in frameworks if lf.diagnoses]
    return fn
