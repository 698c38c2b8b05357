"""Knowledge functions over the live facts, for the checks in ``rules/checks/live``.

Each returns a list of one-line statements (empty: nothing wrong). They read ``live``, which
the engine resolves to UNKNOWN when no worker ran, so a static run (``--static``) leaves these
checks *unknown*, never passed or fired on no evidence.
"""

from __future__ import annotations

from typing import Any

from envdoctor.engine.knowledge._reads import optional, reads, result, some
from envdoctor.engine.knowledge.env import hides_every_gpu
from envdoctor.facts import LiveDiagnosis, LiveFramework, NvidiaFacts, PackageFacts, Status
from envdoctor.matrices.gpus import lookup_datasheet
from envdoctor.versions import named

SLOW = 0.5   # a GPU under half its datasheet peak gets a finding


def ran(live: dict[str, Any]) -> list[LiveFramework]:
    """Workers whose answer (or failure) is recorded."""
    return [lf for lf in live.values() if isinstance(lf, LiveFramework)
            and lf.probe.status is not Status.SKIPPED]


def answered(live: dict[str, Any]) -> list[LiveFramework]:
    """Workers that ran and imported their framework."""
    return [lf for lf in ran(live) if lf.probe.status is Status.OK and lf.import_ok]


@reads(live="live")
def framework_found_no_gpu(name: str, *, live: dict[str, Any]) -> bool:
    """``framework_found_no_gpu('tensorflow')``: the framework itself was asked for its GPUs
    and answered none (a worker, or a report's "Num GPUs Available: 0" / an empty
    list_physical_devices('GPU')): someone wanted the GPU. False when it was not asked or saw
    one."""
    lf = live.get(name)
    return isinstance(lf, LiveFramework) and lf in answered(live) and lf.cuda_available is False


@reads(live="live")
def framework_saw_gpu(name: str, *, live: dict[str, Any]) -> bool:
    """``framework_saw_gpu('torch')``: the framework itself, asked for its GPUs, listed one (a
    worker, or a pasted ``torch.cuda.is_available()`` answering True): a message that says it
    sees none came from somewhere else (another environment, a configuration)."""
    lf = live.get(name)  # an answer of True says the import worked, stated or not
    return isinstance(lf, LiveFramework) and lf in ran(live) and lf.cuda_available is True


@reads(live="live", pk=optional("packages"))
def live_module_shadowed(*, live: dict[str, Any], pk: PackageFacts | None) -> list[str]:
    """Frameworks whose ``import`` loaded something that is not the framework (a same-named
    folder or script earlier on sys.path, or a half-removed install: no ``__version__``), as
    ``"torch: `import torch` loads /work/torch, not the installed torch 2.13.0 in /venv/…"``."""
    out = []
    for lf in ran(live):
        if lf.import_ok is not False or not lf.module_path:
            continue
        dist = pk.get(lf.name) if pk is not None else None
        installed = f", not the installed {dist.name} {dist.version} in {dist.location}" \
            if dist is not None and dist.version is not None and dist.location \
            and not lf.module_path.startswith(dist.location) else ""
        out.append(f"{lf.name}: `import {lf.name}` loads {lf.module_path}{installed}")
    return out


@reads(live="live")
def live_failed(*, live: dict[str, Any]) -> list[str]:
    """Workers that crashed, hung, printed garbage or exited non-zero."""
    return [f"{lf.name}: {lf.probe.reason}" for lf in ran(live)
            if lf.probe.status is Status.ERROR]


def smoke_cause(lf: LiveFramework) -> LiveDiagnosis | None:
    """The cause a framework's failed smoke run names: ``explain``'s first diagnosis of the
    failure text, when its signature is sure (high confidence) and blames the machine or how
    the framework is driven ("The TPU is already in use by process with pid 2745"). A failure
    whose text names a known state is that diagnosis, with that diagnosis' fix."""
    if not (lf.smoke and lf.smoke.failed and lf.diagnoses):
        return None
    first = lf.diagnoses[0]
    return first if first.confidence == "high" and first.category in ("environment",
                                                                      "usage") else None


@reads(live="live")
def smoke_failed(*, live: dict[str, Any]) -> list[str]:
    """Smoke steps that failed, per framework."""
    return [f"{lf.name} {s.name}: {s.detail}" for lf in answered(live) if lf.smoke
            for s in lf.smoke.failed]


@reads(live="live")
def smoke_failed_unexplained(*, live: dict[str, Any]) -> list[str]:
    """Smoke steps that failed, per framework, where the failure names no known cause (those
    are SMOKE003's: one cause, one finding)."""
    return [f"{lf.name} {s.name}: {s.detail}" for lf in answered(live) if lf.smoke
            and smoke_cause(lf) is None for s in lf.smoke.failed]


@reads(live="live")
def smoke_known_causes(*, live: dict[str, Any]) -> list[str]:
    """"<framework>: <code> <title>" for each failed smoke run whose error is a known cause."""
    return [f"{lf.name}: {cause.code} {cause.title}" for lf in answered(live)
            if (cause := smoke_cause(lf)) is not None]


@reads(live="live")
def smoke_known_fixes(*, live: dict[str, Any]) -> list[str]:
    """The fix of each known cause of a failed smoke run (the framework named when several)."""
    causes = [(lf.name, cause) for lf in answered(live) if (cause := smoke_cause(lf))]
    if len(causes) == 1:
        return [causes[0][1].fix]
    return [f"{name}: {cause.fix}" for name, cause in causes]


@reads(live="live")
def live_cudnn_mismatch(*, live: dict[str, Any]) -> list[str]:
    """A loaded cuDNN of another major, or older than the one the framework was built with."""
    out = []
    for lf in answered(live):
        if lf.cudnn is None or lf.built_cudnn is None:
            continue
        if lf.cudnn.major != lf.built_cudnn.major or lf.cudnn < lf.built_cudnn:
            where = next((lib.path for lib in lf.loaded if lib.name == "cudnn"), "")
            out.append(f"{named(lf.name, lf.version)} loaded cuDNN {lf.cudnn}"
                       + (f" from {where}" if where else "")
                       + f", built with cuDNN {lf.built_cudnn}")
    return out


@reads(live="live")
def live_shadowed(*, live: dict[str, Any]) -> list[str]:
    """System copies of libraries loaded although a wheel in site-packages ships its own."""
    return [f"{lf.name} loaded {text} (a wheel in site-packages ships its own copy)"
            for lf in answered(live) for text in lf.shadowed]


@reads(live="live")
def live_cudnn_majors(*, live: dict[str, Any]) -> list[str]:
    """One entry per framework with a known cuDNN major; >1 distinct majors conflict."""
    entries = [(lf.name, lf.cudnn_major) for lf in answered(live) if lf.cudnn_major is not None]
    if len({major for _, major in entries}) < 2:
        return []
    return [f"{name} needs cuDNN {major}" for name, major in entries]


def blind_reason(lf: LiveFramework, nv: NvidiaFacts, env_visible: str | None,
                 too_old: list[str] | None = None) -> str:
    """Why a framework sees no GPU on a machine whose driver sees some. ``too_old``: the
    frameworks the driver cannot run (``driver_below_floor()``, DRV001's judgement), so the
    reason is the one DRV001 gives, never "no reason" beside it."""
    visible = lf.visible_devices if lf.visible_devices is not None else env_visible
    if hides_every_gpu(visible):
        return f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU"
    if lf.name == "jax" and lf.build == "cpu":
        return "no JAX CUDA plugin is installed (pip install -U 'jax[cuda12]')"
    if lf.build == "cpu":
        return f"{named(lf.name, lf.version)} is a CPU-only build"
    gap = next((g for g in too_old or () if g.split(" ")[0].startswith(lf.name)), None)
    if gap is not None:
        driver = f"driver {nv.driver_version}" if nv.driver_version is not None else "driver"
        return f"the NVIDIA {driver} is too old for {gap} (DRV001)"
    if lf.built_cuda is not None and nv.cuda_driver_version is not None \
            and nv.cuda_driver_version.major < lf.built_cuda.major:
        return (f"the driver {nv.driver_version} supports CUDA up to "
                f"{nv.cuda_driver_version}, the build needs CUDA {lf.built_cuda}")
    return lf.gpu_error or "the framework gave no reason"


@reads(live="live", nv=some("nvidia"), vars=optional("env.vars", {}),
       too_old=result("driver_below_floor", None))
def live_gpu_blind(*, live: dict[str, Any], nv: NvidiaFacts, vars: dict[str, str],
                   too_old: list[str] | None) -> list[str]:
    """Frameworks that see no GPU on a machine whose driver sees some, each with the reason
    (the worker's own CUDA_VISIBLE_DEVICES first, else the environment's when known; a driver
    below the build's floor as DRV001 says it)."""
    if not nv.gpus:
        return []
    return [f"{lf.name}: {blind_reason(lf, nv, vars.get('CUDA_VISIBLE_DEVICES'), too_old)}"
            for lf in answered(live)
            if not (lf.gpu_count > 0 or lf.name == "keras" or lf.build in ("tpu", "metal", "mps")
                    or lf.build == "rocm")  # a ROCm build beside NVIDIA GPUs: TORCH005's
            and not _not_asked(lf)]


def _not_asked(lf: LiveFramework) -> bool:
    """A framework a pasted report names without saying whether it saw a GPU (a template's
    "PyTorch Version: 2.6.0" line): its empty device list was never observed, so it is not
    blind. A live worker always lists its devices; a report says so in words or not at all."""
    return lf.probe.source.startswith("report") and lf.cuda_available is None \
        and not lf.gpu_error


_SPEED = (("tflops_bf16", "bf16_tflops", "TFLOP/s bf16"),
          ("tflops_fp16", "fp16_tflops", "TFLOP/s fp16"),
          ("tflops_tf32", "tf32_tflops", "TFLOP/s TF32"),
          ("copy_gbs", "mem_bandwidth_gbs", "GB/s device copy"))


@reads(live="live")
def speed_shortfall(*, live: dict[str, Any]) -> list[str]:
    """Measured matmul TFLOP/s and copy GB/s under half the datasheet peak of that GPU."""
    out = []
    for lf in answered(live):
        step = next((s for s in (lf.smoke.steps if lf.smoke else ()) if s.name == "speed"
                     and s.status == "passed" and s.metrics), None)
        if step is None or not lf.gpus:
            continue
        gpu = lf.gpus[0].name
        row = lookup_datasheet(gpu)
        if row is None:
            continue
        for metric, column, unit in _SPEED:
            got, peak = step.metrics.get(metric), row.get(column) or 0.0
            if got is not None and peak > 0 and got < SLOW * peak:
                out.append(f"{lf.name} on {gpu}: {got:.0f} {unit} = {got / peak:.0%} of the "
                           f"{peak:g} datasheet peak ({row.get('source', '')}, unconfirmed)")
    return out


@reads(live="live")
def live_stderr(*, live: dict[str, Any]) -> dict[str, str]:
    """The stderr tails of failed workers, for evidence."""
    return {lf.name: lf.stderr_tail for lf in ran(live) if lf.stderr_tail}


@reads(live="live")
def live_diagnoses(*, live: dict[str, Any]) -> list[str]:
    """What ``explain`` recognised in the workers' error texts, for evidence."""
    return [f"{lf.name}: {lf.diagnosis_text}" for lf in ran(live) if lf.diagnoses]


@reads(live="live")
def live_warned_with(name: str, code: str, *, live: dict[str, Any]) -> bool:
    """Did that framework's worker answer (its import worked) but print text the signature
    ``code`` recognises? False when that framework's worker did not run."""
    lf = live.get(name)
    if not isinstance(lf, LiveFramework) or lf.probe.status is Status.SKIPPED:
        return False
    return any(d.code == code for d in lf.warnings)


@reads(live="live")
def live_warned(excluded: Any = (), *, live: dict[str, Any]) -> list[str]:
    """"<framework>: <code>: <title>" for each problem a worker that answered printed, leaving
    out the codes (or framework:code pairs) listed: those have their own check."""
    skip = set(excluded or ())
    return [f"{name} {lf.version or ''}".rstrip() + f": {d.code}: {d.title}"
            for name, lf in live.items() if isinstance(lf, LiveFramework)
            for d in lf.warnings if d.code not in skip and f"{name}:{d.code}" not in skip]


@reads(live="live", pk=optional("packages"))
def live_import_failed_except(explained: Any = (), *, live: dict[str, Any], pk: Any
                              ) -> list[str]:
    """The workers that ran but could not import their framework, without the failures a
    static check already names (one cause, one finding): each entry is
    ``<framework or *>:<signature code or error text>``;
    and, when NumPy is confirmed absent (NP002), the frameworks that import it, whatever their
    error says (jaxlib's is "Encountered an error while initializing the extension")."""
    from envdoctor.engine.knowledge.frameworks import NEEDS_NUMPY, import_says_otherwise
    rules = [tuple(e.split(":", 1)) for e in (explained or ()) if ":" in e]
    # packages seen in part (a pasted report) resolve to None here: NumPy not listed there is
    # not NumPy absent
    numpy_absent = pk is not None and pk.get("numpy") is None
    need_numpy = {name for name, _ in NEEDS_NUMPY} if numpy_absent else set()
    out = []
    for name, lf in live.items():
        if not isinstance(lf, LiveFramework) or lf.probe.status in (Status.ERROR, Status.SKIPPED) \
                or lf.import_ok is not False:
            continue
        codes = {d.code for d in lf.diagnoses}
        named = any(who in ("*", name) and (what in codes or what in lf.import_error)
                    for who, what in rules)
        if (name in need_numpy and not import_says_otherwise(lf)) or named:
            continue
        out.append(f"{name}: {lf.import_error}")
    return out
