"""What every worker shares: the stdout protocol, the step runner, numeric references, maps.

Runs in the CHILD only. Kept free of framework imports and of heavy envdoctor modules so that a
worker's start-up cost is its framework's import and nothing else.

Protocol: ``python -m envdoctor.workers.<fw> [--suite quick|full] [--no-smoke]`` writes one JSON
object (the fields of ``envdoctor.facts.LiveFramework`` plus ``protocol``) on its real stdout.
File descriptor 1 is pointed at stderr first, so whatever a framework prints cannot corrupt it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any, Protocol

from envdoctor.bounded import env, matching

PROTOCOL = 1

# Tolerances, as the largest |got - ref| divided by max |ref| (ref: float64, in Python).
# fp32 allows TF32 tensor cores (10-bit mantissa), which TF and JAX use by default on Ampere+.
TOLERANCE = {"fp32": 5e-3, "bf16": 5e-2, "fp16": 1e-2}
MATMUL_N = 64
MLP_STEPS = 10

# /proc/self/maps: the CUDA libraries whose version and origin matter.
_LIB = re.compile(r"^lib(cudart|cudnn|cublas|nccl)\.so(?:\.(\d+(?:\.\d+)*))?$")
_WHEEL_DIR = {"cudart": "cuda_runtime", "cudnn": "cudnn", "cublas": "cublas", "nccl": "nccl"}


class StepFailed(Exception):
    """A smoke step ran but its result is wrong (the message says how)."""


# ---------------------------------------------------------------------------- protocol
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--suite", choices=("quick", "full"), default="quick")
    parser.add_argument("--no-smoke", action="store_true")
    return parser.parse_args(argv)


def reserve_stdout() -> Any:
    """Keep the real stdout for our JSON; send fd 1 (and sys.stdout) to stderr."""
    real = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return real


VERSION_FIELDS = ("version", "built_cuda", "built_cudnn", "cudnn", "nccl")
_VERSION = re.compile(r"^v?\d+(?:\.\d+)*[-+._a-z0-9]*$", re.IGNORECASE)


def version_text(value: Any) -> str | None:
    """A version string, or None for the non-answers frameworks give: Paddle's CPU build says
    ``paddle.version.cuda() == 'False'``, others 'None', '0', 'OFF' or ''."""
    if value is None or isinstance(value, bool):
        return None
    text = dotted(value) if isinstance(value, (tuple, list)) else str(value).strip()
    if not text or text.lower() in ("false", "none", "0", "off", "unknown") \
            or not _VERSION.match(text):
        return None
    return text


def finish(out: Any, result: dict[str, Any]) -> None:
    """Write the one JSON answer and leave at once: skipping framework teardown (atexit hooks,
    thread pools) saves time and avoids the crashes some frameworks have at interpreter exit.

    Version fields that are not versions are dropped here, once for every worker: one odd value
    must not make the parent reject the whole answer."""
    for key in VERSION_FIELDS:
        if key in result:
            result[key] = version_text(result[key])
    result = {"protocol": PROTOCOL, **result}
    out.write(json.dumps(result, default=str) + "\n")
    out.flush()
    sys.stderr.flush()
    os._exit(0)


def timed_import(name: str) -> tuple[Any, dict[str, Any]]:
    """Import a framework; returns (module or None, import facts). Prints the traceback to
    stderr on failure so the parent can match it against the error signatures."""
    start = time.perf_counter()
    try:
        module = __import__(name)
        for part in name.split(".")[1:]:
            module = getattr(module, part)
    except BaseException as exc:  # noqa: BLE001 - ImportError, OSError from dlopen, SystemExit …
        traceback.print_exc()
        return None, {"import_ok": False, "import_error": f"{type(exc).__name__}: {exc}",
                      "import_seconds": round(time.perf_counter() - start, 3)}
    seconds = round(time.perf_counter() - start, 3)
    top = sys.modules.get(name.split(".")[0], module)
    where = module_location(top)
    if not hasattr(top, "__version__"):
        # A folder or script of the same name earlier on sys.path (or a half-removed install)
        # imports fine but is not the framework: every later call would fail obscurely.
        return None, {"import_ok": False, "module_path": where, "import_seconds": seconds,
                      "import_error": f"`import {name}` loaded {where or 'a module'}, which has "
                                      f"no {name.split('.')[0]}.__version__: not the installed "
                                      "package"}
    return module, {"import_ok": True, "module_path": where, "import_seconds": seconds}


def module_location(module: Any) -> str:
    """Where a module came from: its file, else the first folder of a namespace package."""
    path = getattr(module, "__file__", None)
    if path:
        return str(path)
    folders = list(getattr(module, "__path__", []) or [])
    return str(folders[0]) if folders else ""


def guarded(facts: dict[str, Any], fn: Callable[[], dict[str, Any]]) -> None:
    """Merge ``fn()``'s facts; a failure is noted, never fatal (one broken API hides nothing)."""
    try:
        facts.update({k: v for k, v in fn().items() if v is not None})
    except Exception as exc:  # noqa: BLE001
        note = f"{getattr(fn, '__name__', 'facts')}: {type(exc).__name__}: {exc}"
        print(f"envdoctor worker: {note}", file=sys.stderr)


# ---------------------------------------------------------------------------- the plan
# The smoke plan every framework runs, declared once, in order. A worker maps each name to its
# own implementation; a name it leaves out is reported "not supported by this framework", so a
# thin suite is visible in the report instead of silently shorter.
PLAN: tuple[tuple[str, str], ...] = (
    ("tensor", "a tensor created on the device and summed"),
    ("matmul_fp32", f"{MATMUL_N}x{MATMUL_N} fp32 matmul against a float64 reference"),
    ("matmul_bf16", "the same matmul in bfloat16, where the device has it"),
    ("matmul_fp16", "the same matmul in float16, where the device has it"),
    ("gradient", "d/dx (x² + 2x) at x = 3 is 8"),
    ("mlp_train", f"a two-layer MLP trained {MLP_STEPS} steps; the loss must fall"),
    ("compile", "the framework's compile path gives what eager mode gives"),
    ("save_load", "a save/load round trip in the framework's own safe format"),
    ("self_check", "the framework's own installation check, judged by its result"),
)
PLAN_STEPS = tuple(name for name, _ in PLAN)
UNSUPPORTED = "not supported by this framework"


class Skip(str):
    """A plan step this framework has but does not run here; the text says why."""


def unsupported(why: str = "") -> Skip:
    """A plan step this framework does not have at all (why: what it has instead, if any)."""
    return Skip(UNSUPPORTED + (f": {why}" if why else ""))


# ---------------------------------------------------------------------------- smoke steps
class Suite:
    """Runs steps in order; each reports status passed|failed|skipped, seconds and detail."""

    def __init__(self, suite: str):
        self.suite = suite
        self.steps: list[dict[str, Any]] = []

    @property
    def full(self) -> bool:
        return self.suite == "full"

    def skip(self, name: str, reason: str) -> None:
        self.steps.append({"name": name, "status": "skipped", "seconds": 0.0, "detail": reason})

    def plan(self, impls: dict[str, Callable[[], Any] | Skip]) -> None:
        """Run every step of ``PLAN`` with this framework's implementation of it.

        A callable runs; a ``Skip`` is recorded as skipped with its reason; a name that is not in
        ``impls`` is recorded as not supported. Names outside the plan are a worker bug.
        """
        extra = set(impls) - set(PLAN_STEPS)
        if extra:
            raise ValueError(f"steps outside the plan: {sorted(extra)}")
        for name in PLAN_STEPS:
            impl = impls.get(name)
            if impl is None:
                self.skip(name, UNSUPPORTED)
            elif isinstance(impl, Skip):
                self.skip(name, str(impl))
            else:
                self.run(name, impl)

    def run(self, name: str, fn: Callable[[], Any]) -> bool:
        """``fn`` returns a detail string, or (detail, metrics); raising fails the step."""
        start = time.perf_counter()
        metrics: dict[str, float] = {}
        try:
            out = fn()
            detail, metrics = out if isinstance(out, tuple) else (out, {})
            status = "passed"
        except StepFailed as exc:
            status, detail = "failed", str(exc)
        except Exception as exc:  # noqa: BLE001 - the error is the step's result
            status, detail = "failed", f"{type(exc).__name__}: {exc}".strip()
            traceback.print_exc()
        step = {"name": name, "status": status,
                "seconds": round(time.perf_counter() - start, 4), "detail": str(detail or "")}
        if metrics:
            step["metrics"] = {k: float(v) for k, v in metrics.items()}
        self.steps.append(step)
        return status == "passed"

    def result(self, device: str) -> dict[str, Any]:
        ran = [s for s in self.steps if s["status"] != "skipped"]
        if any(s["status"] == "failed" for s in ran):
            status = "failed"
        elif ran:
            status = "passed"
        else:
            status = "skipped"
        return {"status": status, "suite": self.suite, "device": device, "steps": self.steps}


def skipped_smoke(suite: str, device: str, reason: str) -> dict[str, Any]:
    return {"status": "skipped", "suite": suite, "device": device,
            "steps": [{"name": "smoke", "status": "skipped", "seconds": 0.0, "detail": reason}]}


def printed_by(fn: Callable[[], Any]) -> tuple[Any, str]:
    """(fn's return value, what it printed through sys.stdout), the text echoed to stderr.

    Self-checks such as ``mindspore.run_check()`` report failure only in what they print (they
    catch their own exceptions), so the step must read that text. Echoing it keeps it in the
    worker's stderr, where the parent's signature engine reads it."""
    import contextlib
    import io
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            value = fn()
    finally:
        sys.stderr.write(buffer.getvalue())
    return value, buffer.getvalue()


# ---------------------------------------------------------------------------- references
# Pure Python: a framework that does not need NumPy (a CPU torch) must pass without it, and at
# these sizes (64×64) a float64 reference in Python takes a few tens of milliseconds.
def _matrix(rows: int, cols: int, rng: Any) -> list[list[float]]:
    return [[rng.uniform(-1.0, 1.0) for _ in range(cols)] for _ in range(rows)]


def operands(n: int = MATMUL_N) -> tuple[list[list[float]], list[list[float]]]:
    """Two fixed n×n matrices in [-1, 1] (the same for every framework), as lists of floats."""
    import random
    rng = random.Random(20240607)
    return _matrix(n, n, rng), _matrix(n, n, rng)


def matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    """The float64 product, in Python."""
    columns = list(zip(*b, strict=True))
    return [[math.fsum(x * y for x, y in zip(row, col, strict=True)) for col in columns]
            for row in a]


def transpose(m: list[list[float]]) -> list[list[float]]:
    return [list(col) for col in zip(*m, strict=True)]


def rows_of(value: Any) -> Any:
    """Nested Python lists from a framework tensor, a NumPy array or lists."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _flat(value: Any) -> tuple[list[float], tuple[int, ...]]:
    """(values, shape) of a nested list or a scalar."""
    value = rows_of(value)
    if not isinstance(value, (list, tuple)):
        return [float(value)], ()
    if not value:
        return [], (0,)
    parts = [_flat(v) for v in value]
    shape = parts[0][1]
    if any(p[1] != shape for p in parts):
        raise StepFailed("ragged result")
    return [x for p in parts for x in p[0]], (len(value), *shape)


def compare(got: Any, ref: Any, dtype: str) -> str:
    """Normalised max error against the float64 reference; StepFailed when above tolerance."""
    values, shape = _flat(got)
    want, want_shape = _flat(ref)
    if shape != want_shape:
        raise StepFailed(f"shape {shape}, expected {want_shape}")
    if not all(math.isfinite(v) for v in values):
        raise StepFailed("result contains NaN or Inf")
    scale = max((abs(v) for v in want), default=0.0)
    worst = max((abs(g - w) for g, w in zip(values, want, strict=True)), default=0.0)
    err = worst / max(scale, 1e-30)
    tol = TOLERANCE[dtype]
    text = f"{dtype} {'×'.join(map(str, want_shape))} max rel err {err:.2e} (tolerance {tol:g})"
    if not err <= tol:
        raise StepFailed(text + ": wrong results")
    return text


def check_gradient(value: float) -> str:
    """d/dx (x² + 2x) at x = 3 is 2·3 + 2 = 8."""
    if abs(float(value) - 8.0) > 1e-5:
        raise StepFailed(f"d/dx (x²+2x) at x=3 = {float(value)!r}, expected 8")
    return f"d/dx (x²+2x) at x=3 = {float(value):g} (expected 8)"


def mlp_data() -> dict[str, Any]:
    """A fixed regression problem and initial weights for the two-layer MLP (8 -> 16 -> 1), as
    lists: x 64×8, y = tanh(x·v) 64×1, w1 8×16, b1 16, w2 16×1, b2 1; lr for plain SGD."""
    import random
    rng = random.Random(7)
    x = [[rng.gauss(0.0, 1.0) for _ in range(8)] for _ in range(64)]
    v = [rng.gauss(0.0, 1.0) for _ in range(8)]
    y = [[math.tanh(sum(a * b for a, b in zip(row, v, strict=True)))] for row in x]
    return {"x": x, "y": y, "lr": 0.1,
            "w1": [[rng.gauss(0.0, 1.0) * 0.3 for _ in range(16)] for _ in range(8)],
            "b1": [0.0] * 16,
            "w2": [[rng.gauss(0.0, 1.0) * 0.3] for _ in range(16)],
            "b2": [0.0]}


def check_losses(losses: list[float]) -> str:
    if len(losses) < 2 or not all(math.isfinite(v) for v in losses):
        raise StepFailed(f"losses {losses!r}")
    text = f"loss {losses[0]:.4f} -> {losses[-1]:.4f} in {len(losses) - 1} steps"
    if not losses[-1] < losses[0]:
        raise StepFailed(text + ": the loss did not fall")
    return text


def check_same(a: Any, b: Any, what: str, tol: float = 1e-5) -> str:
    (va, sa), (vb, sb) = _flat(a), _flat(b)
    err = float("inf")
    if sa == sb:
        err = max((abs(x - y) for x, y in zip(va, vb, strict=True)), default=0.0)
    if not err <= tol:
        raise StepFailed(f"{what}: max abs difference {err:.3g} > {tol:g}")
    return f"{what}: max abs difference {err:.1e}"


# ---------------------------------------------------------------------------- libraries
def origin_of(path: str) -> str:
    conda = env("CONDA_PREFIX")
    if "site-packages" in path or "dist-packages" in path:
        return "wheel"
    if (conda and path.startswith(conda)) or "/conda" in path:
        return "conda"
    return "system"


def _wheel_version(path: str, name: str) -> str | None:
    """``…/site-packages/nvidia/cudnn/lib/libcudnn.so.9`` -> the nvidia-cudnn-cu* dist version."""
    parts = path.split(os.sep)
    if "nvidia" not in parts:
        return None
    site = os.sep.join(parts[:parts.index("nvidia")])
    for info in matching(site, f"nvidia_{_WHEEL_DIR[name]}*.dist-info"):
        m = re.search(r"-(\d+(?:\.\d+)*)\.dist-info$", info)
        if m:
            return m.group(1)
    return None


def library_entry(path: str) -> dict[str, Any] | None:
    m = _LIB.match(os.path.basename(path))
    if not m:
        return None
    name = m.group(1)
    real = _LIB.match(os.path.basename(os.path.realpath(path)))
    version = (real.group(2) if real and real.group(2) and "." in real.group(2) else None) \
        or _wheel_version(path, name) or m.group(2)
    return {"name": name, "path": path, "version": version, "origin": origin_of(path)}


def parse_maps(text: str) -> list[dict[str, Any]]:
    """The CUDA libraries mapped into a process, from the text of /proc/<pid>/maps."""
    seen: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        fields = line.split(None, 5)
        if len(fields) < 6 or not fields[5].startswith("/"):
            continue
        path = fields[5].strip()
        if path in seen:
            continue
        entry = library_entry(path)
        if entry:
            seen[path] = entry
    return list(seen.values())


def loaded_libraries() -> list[dict[str, Any]]:
    from envdoctor.bounded import read_proc
    text = read_proc("/proc/self/maps")
    return [] if text is None else parse_maps(text)  # None: not Linux, nothing to read


def shipped_libraries() -> list[dict[str, Any]]:
    """Copies of the CUDA libraries that wheels put into site-packages."""
    out = []
    sites = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    for site in dict.fromkeys(sites):
        for pattern in ("nvidia/*/lib/lib*.so*", "torch/lib/lib*.so*"):
            for path in matching(site, pattern):
                entry = library_entry(path)
                if entry:
                    out.append(entry)
    return out


def library_version(libs: list[dict[str, Any]], name: str) -> str | None:
    return next((lib["version"] for lib in libs if lib["name"] == name and lib["version"]), None)


def cudnn_from_int(value: int | None) -> str | None:
    """cuDNN's integer version: 8902 -> 8.9.2 (cuDNN 8), 91002 -> 9.10.2 (cuDNN 9+)."""
    if not value:
        return None
    value = int(value)
    if value >= 90000:
        return f"{value // 10000}.{value % 10000 // 100}.{value % 100}"
    return f"{value // 1000}.{value % 1000 // 100}.{value % 100}"


def dotted(version: Any) -> str | None:
    if version is None or version == "":
        return None
    if isinstance(version, (tuple, list)):
        return ".".join(str(int(v)) for v in version)
    return str(version)


def base_facts(name: str) -> dict[str, Any]:
    return {"name": name, "visible_devices": env("CUDA_VISIBLE_DEVICES")}


class Collect(Protocol):
    """A worker's ``collect(fw, facts)``: fills ``facts`` from the imported framework and
    returns the device for the smoke suite ("" or "cpu" when it has none)."""

    def __call__(self, fw: Any, facts: dict[str, Any], /) -> str: ...


class Smoke(Protocol):
    """A worker's ``smoke(fw, suite, device, facts)``: runs its steps through ``suite``."""

    def __call__(self, fw: Any, suite: Suite, device: str, facts: dict[str, Any], /) -> None: ...


def common_main(name: str, module: str, collect: Collect, smoke: Smoke,
                argv: list[str] | None = None) -> None:
    """The shape of every worker: import, facts, smoke, maps, one JSON answer.

    ``collect(fw, facts)`` fills ``facts`` and returns the device for the smoke suite;
    ``smoke(fw, suite, device, facts)`` runs the steps.
    """
    args = parse_args(argv)
    out = reserve_stdout()
    facts = base_facts(name)
    fw, imported = timed_import(module)
    facts.update(imported)
    if fw is None:
        facts["smoke"] = {"status": "error", "suite": args.suite, "device": "", "steps": [
            {"name": "import", "status": "failed", "seconds": facts["import_seconds"],
             "detail": facts["import_error"]}]}
        finish(out, facts)
    device = "cpu"
    try:
        device = collect(fw, facts) or "cpu"
    except Exception as exc:  # noqa: BLE001
        traceback.print_exc()
        facts["gpu_error"] = facts.get("gpu_error") or f"{type(exc).__name__}: {exc}"
    if args.no_smoke:
        facts["smoke"] = skipped_smoke(args.suite, device, "--no-smoke")
    else:
        suite = Suite(args.suite)
        try:
            smoke(fw, suite, device, facts)
        except Exception as exc:  # noqa: BLE001 - a bug in a step list still answers
            traceback.print_exc()
            suite.steps.append({"name": "suite", "status": "failed", "seconds": 0.0,
                                "detail": f"{type(exc).__name__}: {exc}"})
        facts["smoke"] = suite.result(facts.get("device_label") or device)
    facts.pop("device_label", None)
    facts["loaded"] = loaded_libraries()
    facts["shipped"] = shipped_libraries()
    if not facts.get("cudnn"):
        facts["cudnn"] = library_version(facts["loaded"], "cudnn")
    if not facts.get("nccl"):
        facts["nccl"] = library_version(facts["loaded"], "nccl")
    finish(out, facts)
