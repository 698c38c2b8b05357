"""Environment diff: "it works on machine A and not on B", ranked by what likely matters.

Each snapshot is reduced to named *aspects* (driver, CUDA the driver supports, each framework
and its CUDA build, cuDNN/NCCL, NumPy, Python, GPU model and count, the environment variables
frameworks read …), each with a weight per kind of change: a new driver branch or CUDA major
outweighs a patch release. Then the rules run on both snapshots; a finding present on one
side only is attached to the difference that explains it (its evidence names a value that
changed, else it concerns the same area), and such a difference ranks above every difference
without one, errors first. Weights are judgement, kept as data in rules/diff.toml; findings
are knowledge, from rules/.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from packaging.version import InvalidVersion, Version

from envdoctor.engine.findings import Finding
from envdoctor.facts import Facts, Status
from envdoctor.facts.aspects import BY_KEY
from envdoctor.matrices.tensorflow import distributions as tf_distributions
from envdoctor.versions import DisplayVersion

# How much each difference matters is judgement kept as data: rules/diff.toml.
FRAMEWORK_KEYS = ("torch", "tensorflow", "jax", "jaxlib")


@lru_cache(maxsize=1)
def weights() -> dict[str, Any]:
    """rules/diff.toml, parsed (through the rules cache)."""
    from envdoctor.rulefiles import load_file_cached
    return load_file_cached("diff")


def weight_of(key: str) -> tuple[int, int, int]:
    """[major, minor, patch] weights of the difference ``key`` (``nvidia.driver``,
    ``pkg.numpy``, ``env.XLA_FLAGS``, ``probe.nvidia``)."""
    w = weights()
    if key in FRAMEWORK_KEYS:
        return tuple(w["framework"])
    if key in w.get("aspect", {}):
        return tuple(w["aspect"][key])
    kind, _, name = key.partition(".")
    if kind == "pkg":
        return tuple(w.get("packages", {}).get(name, w["package"]))
    if kind == "env":
        by_name = w.get("env_vars", {})
        value = by_name[name] if name in by_name else next(
            (v for prefix, v in w.get("env_prefixes", {}).items() if name.startswith(prefix)),
            w["env"])
        return (value, 0, 0)
    if kind == "probe":
        return tuple(w["probe"])
    return (20, 0, 0)


# finding area -> difference areas it can explain
AREA_ALIASES = {"gpu": ("driver", "gpu"), "driver": ("driver", "gpu"), "env": ("env",),
                "python": ("python",), "host": ("host",)}


@dataclass
class Difference:
    key: str
    label: str
    area: str
    a: str | None
    b: str | None
    change: str                     # major | minor | patch | added | removed | changed
    weight: int
    findings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def score(self) -> int:
        rank = max((_RANK[f["severity"]] for f in self.findings), default=0)
        return self.weight + 1000 * rank

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "area": self.area, "a": self.a,
                "b": self.b, "change": self.change, "weight": self.weight,
                "score": self.score, "findings": self.findings}


_RANK = {"error": 3, "warning": 2, "info": 1}


# ---------------------------------------------------------------------------- aspects
def _v(value: Any) -> Version | None:
    if value is None or isinstance(value, Version):
        return value
    try:
        return DisplayVersion(str(value))  # drivers print as written: 470.256.02
    except InvalidVersion:
        return None


def _level(a: Any, b: Any, python: bool = False) -> str:
    """How big a version change is: major | minor | patch (added/removed for None)."""
    if a is None:
        return "added"
    if b is None:
        return "removed"
    va, vb = _v(a), _v(b)
    if va is None or vb is None:
        return "major"
    ra, rb = (va.release + (0, 0))[:3], (vb.release + (0, 0))[:3]
    if python:
        return "major" if ra[:2] != rb[:2] else "patch"
    if ra[0] != rb[0]:
        return "major"
    if ra[1] != rb[1]:
        return "minor"
    return "patch"


def aspects(facts: Facts) -> dict[str, tuple[str, str, Any, tuple[int, int, int], str]]:
    """key -> (label, area, value, weights, kind) where kind is "version" or "value"."""
    out: dict[str, tuple[str, str, Any, tuple[int, int, int], str]] = {}

    def put(key: str, label: str, area: str, value: Any, kind: str = "version") -> None:
        out[key] = (label, area, value, weight_of(key), kind)

    def shared(key: str, kind: str = "version") -> None:
        """An aspect of the vocabulary `fleet` shares (facts/aspects.py): its label, area
        and value are read there."""
        aspect = BY_KEY[key]
        if aspect.known(facts):
            value = aspect.read(facts)
            put(key, aspect.label, aspect.area,
                str(value) if kind == "value" and value is not None else value, kind)

    nv = facts.nvidia
    shared("nvidia.driver")
    shared("nvidia.cuda")
    shared("gpu.model", "value")
    shared("gpu.count", "value")
    if nv.probe.status.known:
        ccs = sorted({str(g.cc) for g in nv.gpus if g.cc is not None})
        put("gpu.cc", "GPU compute capability", "gpu", ", ".join(ccs) or None,
            "value")
        mig = sorted({str(g.mig_mode) for g in nv.gpus if g.mig_mode is not None})
        put("gpu.mig", "MIG mode", "gpu", ", ".join(mig) or None, "value")
    fw = facts.frameworks
    if fw.probe.status.known:
        t = fw.torch
        shared("torch")
        put("torch.cuda", "PyTorch CUDA build", "torch",
            (t.cuda or (f"ROCm {t.hip}" if t.hip else "cpu")) if t else None,
            "value" if t and not t.cuda else "version")
        tf = fw.tensorflow
        put("tensorflow", "TensorFlow", "tensorflow", tf.version if tf else None)
        put("tensorflow.dist", "TensorFlow distribution", "tensorflow",
            tf.distribution if tf else None, "value")
        put("tensorflow.cuda", "TensorFlow CUDA build", "tensorflow",
            tf.cuda if tf and tf.is_cuda_build else ("cpu" if tf else None),
            "version" if tf and tf.is_cuda_build else "value")
        put("tensorflow.cudnn", "TensorFlow cuDNN build", "tensorflow",
            tf.cudnn if tf else None)
        j = fw.jax
        put("jax", "JAX", "jax", j.version if j else None)
        put("jaxlib", "jaxlib", "jax", j.jaxlib if j else None)
        put("jax.plugins", "JAX GPU plugins", "jax",
            ", ".join(f"{p.name} {p.version}" for p in j.plugins) or "none" if j else None, "value")
        k = fw.keras
        put("keras", "Keras", "keras", k.version if k else None)
        put("keras.backend", "Keras backend", "keras", k.backend if k else None,
            "value")
    libs = facts.libraries
    pk = facts.packages
    shared("lib.cudnn")
    shared("lib.nccl")
    if libs.probe.status.known:
        versions = sorted({lib.version for lib in libs.named("cublas") if lib.version})
        put("lib.cublas", "cuBLAS library", "cuda", versions[-1] if versions else None)
    cu = facts.cuda
    shared("cuda.nvcc")
    if cu.probe.status.known:
        put("cuda.toolkits", "CUDA toolkits installed", "cuda",
            ", ".join(str(v) for v in cu.versions) or None, "value")
    h = facts.host
    shared("python")
    if h.probe.status.known:
        put("host.arch", "CPU architecture", "host", h.arch or None, "value")
        put("host.os", "Operating system", "host", h.os or None, "value")
        put("host.glibc", "glibc", "host", h.glibc.partition("-")[2] or h.glibc or None)
        put("host.distro", "Distribution", "host", h.distro or None, "value")
        put("host.kernel", "Kernel", "host", h.kernel or None, "value")
        put("host.container", "Container", "host", h.container or "none", "value")
        put("host.wsl", "WSL", "host", str(h.wsl) if h.wsl else None, "value")
        missing_simd = [f for f in ("avx", "avx2", "fma") if f not in h.cpu_flags]
        put("host.simd", "CPU SIMD flags missing", "host", ", ".join(missing_simd) or "none",
            "value")
        if h.shm_total_gb is not None:
            put("host.shm", "/dev/shm size (GiB, rounded)", "host",
                str(round(h.shm_total_gb)), "value")
    if pk.probe.status.known:
        framework_dists = {"torch", "jax", "jaxlib", "keras", *tf_distributions()}
        for d in pk.distributions:
            if d.name in framework_dists:
                continue  # covered by the framework aspects
            put(f"pkg.{d.name}", f"package {d.name}", "python", d.version)
    if facts.env.probe.status.known:
        for name, value in facts.env.vars.items():
            put(f"env.{name}", f"${name}", "env", value, "value")
    for section in ("host", "nvidia", "cuda", "libraries", "packages", "frameworks", "env"):
        status = getattr(facts, section).probe.status
        put(f"probe.{section}", f"{section} probe status", "probe",
            status.value if status is not Status.OK else None, "value")
    return out


def differences(a: Facts, b: Facts) -> list[Difference]:
    """Every aspect whose value differs. An aspect only one side has (a package, a variable)
    counts as added/removed only when the other side's probe answered."""
    aa, bb = aspects(a), aspects(b)
    out = []
    for key in list(dict.fromkeys([*aa, *bb])):
        label, area, _, weights, kind = aa.get(key) or bb[key]
        if key not in aa and not _section_known(a, key):
            continue  # A's probe did not answer: "unknown" is not "different"
        if key not in bb and not _section_known(b, key):
            continue
        va = aa[key][2] if key in aa else None
        vb = bb[key][2] if key in bb else None
        sa, sb = _s(va), _s(vb)
        if sa == sb:
            continue
        if kind == "version":
            change = _level(va, vb, python=key == "python")
            if change in ("added", "removed"):
                weight = weights[0]
            else:
                weight = {"major": weights[0], "minor": weights[1] or weights[0],
                          "patch": weights[2] or 1}[change]
                if change == "patch" and _local(va) != _local(vb):
                    change, weight = "build", max(weight, weights[1])
        else:
            change = "added" if sa is None else "removed" if sb is None else "changed"
            weight = weights[0]
        out.append(Difference(key, label, area, sa, sb, change, weight))
    return out


def _section_known(facts: Facts, key: str) -> bool:
    prefix = key.split(".")[0]
    section = {"pkg": "packages", "env": "env", "lib": "libraries", "gpu": "nvidia",
               "nvidia": "nvidia", "host": "host", "python": "host", "cuda": "cuda",
               "probe": "host"}.get(prefix, "frameworks")
    return getattr(facts, section).probe.status.known


def _s(value: Any) -> str | None:
    return None if value is None else str(value)


def _local(value: Any) -> str:
    v = _v(value)
    return (v.local or "") if v else ""


# ---------------------------------------------------------------------------- findings
def _evidence_strings(f: Finding) -> list[str]:
    out: list[str] = [f.title]
    stack: list[Any] = [f.evidence]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif item is not None:
            out.append(str(item))
    return out


def _explains(f: Finding, d: Difference) -> int:
    """How strongly a finding explains a difference: 2 its evidence names a changed value,
    1 same area, 0 unrelated."""
    values = [v for v in (d.a, d.b) if v and len(v) >= 2 and v not in ("none", "cpu")]
    texts = _evidence_strings(f)
    if any(v == t or (len(v) >= 4 and v in t) for v in values for t in texts):
        return 2
    if d.area in AREA_ALIASES.get(f.area, (f.area,)):
        return 1
    return 0


def compare(a: Facts, b: Facts, findings_a: Sequence[Finding], findings_b: Sequence[Finding]
            ) -> dict[str, Any]:
    """The diff: ranked differences with their explaining findings, and the findings that
    are on one side only."""
    diffs = differences(a, b)
    codes_a = {(f.code, f.title) for f in findings_a}
    codes_b = {(f.code, f.title) for f in findings_b}
    only = {"a": [f for f in findings_a if (f.code, f.title) not in codes_b],
            "b": [f for f in findings_b if (f.code, f.title) not in codes_a]}
    explained: dict[str, list[dict[str, Any]]] = {"a": [], "b": []}
    for side, found in only.items():
        for f in found:
            entry = {"side": side, "code": f.code, "severity": f.severity.value,
                     "title": f.title, "fix": f.fix, "references": list(f.references)}
            scored = sorted(((_explains(f, d), d.weight, i) for i, d in enumerate(diffs)),
                            reverse=True)
            if scored and scored[0][0] > 0:
                target = diffs[scored[0][2]]
                target.findings.append(entry)
                entry = {**entry, "explains": target.key}
            explained[side].append(entry)
    ranked = sorted(diffs, key=lambda d: (-d.score, d.key))
    return {"differences": [{"rank": i + 1, **d.to_dict()} for i, d in enumerate(ranked)],
            "only_in_a": explained["a"], "only_in_b": explained["b"]}


# ---------------------------------------------------------------------------- text
def render_text(result: dict[str, Any], name_a: str, name_b: str) -> str:
    diffs = result["differences"]
    from envdoctor.outputs.sanitise import flat
    name_a, name_b = flat(name_a), flat(name_b)
    lines = [(f"envdoctor diff: A = {name_a}, B = {name_b}: {len(diffs)} difference(s), "
              "most likely to matter first"), ""]
    for d in diffs:
        a, b = (("(absent)" if v is None else flat(v) or '""') for v in (d["a"], d["b"]))
        lines.append(f"{d['rank']:>3}. {flat(d['label'])}: {a} → {b}  [{d['change']}]")
        for f in d["findings"]:
            lines.append(f"       {f['severity'].upper()} {f['code']} only in "
                         f"{f['side'].upper()}: {flat(f['title'])}")
            if f["fix"]:
                lines.append(f"       fix: {' '.join(f['fix'].split())}")
    if not diffs:
        lines.append("  no differences in the facts that matter")
    for side in ("a", "b"):
        rest = [f for f in result[f"only_in_{side}"] if "explains" not in f]
        if rest:
            lines += ["", f"Findings only in {side.upper()} (not tied to one difference):"]
            lines += [f"  {f['severity'].upper()} {f['code']} {flat(f['title'])}" for f in rest]
    return "\n".join(lines) + "\n"


def render_document(doc: dict[str, Any], color: bool = False) -> str:
    """The renderer registry's ("diff", "text"): ``doc`` is ``{"a": name, "b": name, **result}``."""
    return render_text(doc, doc["a"], doc["b"])


def render_json(doc: dict[str, Any], color: bool = False) -> str:
    import json
    return json.dumps(doc, indent=2) + "\n"
