"""Findings from the causes a pasted text's error lines state, beside the checks' findings.

``check --from`` judges a paste twice with one knowledge base: the checks on the facts the
paste shows, and the signature engine on its error lines (``Facts.diagnoses``). Both can name
the same cause (torch's "no kernel image" line and GPU001 on the GPU and build the paste
states): then the check's finding stays, because it rests on the facts themselves (which GPU,
which build, what to install), and the text's lines join its evidence. One cause, one finding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from envdoctor.engine.findings import Finding, Severity
from envdoctor.facts import Facts, TextDiagnosis
from envdoctor.matrices.jax import jaxlib_floor

# signature code -> the check codes that express the same cause from the facts
SAME_CAUSE: dict[str, tuple[str, ...]] = {
    "ECUDA003": ("GPU001", "GPU009", "DRV001"),
    "ECUDA004": ("GPU001",),
    "ECUDA005": ("DRV001",),
    "ECUDA006": ("DRV001", "MS001", "PADDLE001"),
    "ECUDA013": ("DRV001",),
    "ECUDA009": ("TORCH006", "DRV005", "INTENT001"),
    "ECUDA015": ("ENV001", "ENV002"),
    "ECUDNN011": ("GPU002",),
    "EPIP001": ("TF003", "TORCH002", "JAX003"),
    "ESYS002": ("DRV003",),
    "ESYS003": ("DRV003", "DRV005", "PROBE001"),
    "ETORCH006": ("TORCH001", "INTENT002"),
    "ETORCH008": ("TORCH003",),
    "EJAX005": ("JAX001",),
    "EJAX008": ("JAX002",),
    "ENUMPY001": ("NP001", "MS002"),
    "ENUMPY004": ("MX001",),
    "ETF005": ("TF004", "TF006", "LIVE001"),
    "ECUDA017": ("LIVE002", "PKG002", "CUDNN001"),
    "EBUILD002": ("CUDA005",),
    "EROCM011": ("TORCH005",),
    "EROCM001": ("ROCM001", "ROCM002"),
    "EROCM025": ("ROCM002",),
    "ECTR005": ("CTR001",),
    "EWSL003": ("WSL002", "WSL001"),
    "EWSL004": ("WSL002",),
    "EWSL006": ("WSL001", "WSL002"),
}
# signature code -> the checks whose warning the text's cause bears out without being that cause:
# a compiled extension whose ops are missing (EBUILD008: mmcv without `_ext`, detectron2 without
# `_C`) is a build that failed or was skipped, so CUDA005's "nvcc is another CUDA major than
# torch's: extensions will not build" (info while nothing is being built) is no longer a
# side remark. The cause keeps its own finding (it may be mmcv-lite, a CPU-only build...); the
# check rises to a warning beside it.
BORNE_OUT_BY: dict[str, tuple[str, ...]] = {
    "EBUILD008": ("CUDA005",),
    # "no kernel image" while nvcc is an older CUDA major than torch's: the ops that nvcc
    # compiled lack code for GPUs torch's own build covers (detectron2's INSTALL.md: "you build
    # detectron2 with one version of CUDA but run it with a different version"); only where
    # torch's build is not itself the one without the GPU's code (_bears_out)
    "ECUDA003": ("CUDA005",),
}
# the checks whose finding says torch's own build has no code for the GPU: then "no kernel
# image" is torch's, not an extension's
_TORCH_LACKS_ARCH = ("GPU001", "GPU009", "DRV001")
# signature code -> the checks whose *passing* on the paste's own facts contradicts it (the
# torchvision build matches torch, the GPU's architecture is in the build): the observed
# facts outrank the signature's reading of the message, and the cause is dropped
CONTRADICTED_BY: dict[str, tuple[str, ...]] = {
    "ETORCH008": ("TORCH003",),
    "ECUDA004": ("GPU001",),
    "EJAX008": ("JAX002",),
}
# the letters of a signature code -> the finding area (rules/areas.toml names)
_AREAS = {"CUDA": "cuda", "CUDNN": "cudnn", "NCCL": "nccl", "TORCH": "torch",
          "TF": "tensorflow", "JAX": "jax", "KERAS": "keras", "PIP": "python",
          "NUMPY": "python", "SYS": "host", "BUILD": "cuda", "PADDLE": "paddle",
          "MS": "mindspore", "MX": "mxnet", "TPU": "jax", "ROCM": "driver", "BNB": "cuda",
          "DIST": "nccl", "WIN": "host"}


def merge(facts: Facts, findings: Sequence[Finding],
          passed: frozenset[str] | set[str] = frozenset()) -> list[Finding]:
    """The checks' findings with the text's causes added: each cause a fired check already
    expresses (``SAME_CAUSE``, or a framework's own message that a check read) joins that
    finding's evidence; one a passed check contradicts (``CONTRADICTED_BY``, ``passed`` are
    the codes of the checks that passed) is dropped; any other becomes a finding of its own."""
    out = list(findings)
    codes = {f.code for f in out}
    consumed = {d.code for lf in facts.live.values() for d in (*lf.diagnoses, *lf.warnings)}
    for cause in facts.diagnoses:
        for i, f in enumerate(out):
            if f.code in BORNE_OUT_BY.get(cause.code, ()) and f.severity.rank < Severity.WARNING.rank \
                    and _bears_out(cause.code, facts, codes):
                out[i] = replace(f, severity=Severity.WARNING,
                                 evidence={**f.evidence, "the text says": list(cause.evidence)})
        contradicted = set(CONTRADICTED_BY.get(cause.code, ())) & set(passed) \
            and not _pass_leaves_open(cause.code, facts) and not _stated_by_pip(cause) \
            and not _cpu_only_companion(cause)
        if cause.code in codes or contradicted:
            continue
        same = [i for i, f in enumerate(out) if f.code in SAME_CAUSE.get(cause.code, ())]
        if not same and cause.code in consumed:
            same = [i for i, f in enumerate(out) if f.code.startswith(("LIVE", "DRV"))]
        if same:
            i = same[0]
            out[i] = replace(out[i], severity=_confirmed(out[i].severity, cause),
                             evidence={**out[i].evidence, "the text says": list(cause.evidence)})
            continue
        out.append((python_no_wheel(facts, cause) if cause.code == "EPIP001" else None)
                   or finding_of(cause))
        codes.add(cause.code)
    return out


def _bears_out(code: str, facts: Facts, codes: set[str]) -> bool:
    """Whether the text's cause bears out the check beside it on these facts."""
    if code != "ECUDA003":
        return True
    torch = facts.frameworks.torch
    nvcc = facts.cuda.nvcc_version
    return not codes & set(_TORCH_LACKS_ARCH) and torch is not None and torch.cuda is not None \
        and nvcc is not None and nvcc.major < torch.cuda.major


def extension_build(facts: Facts, findings: Sequence[Finding]) -> list[Finding]:
    """CUDA005 ("nvcc is another CUDA major than torch's: extensions will not build") is a
    remark while nothing is built. An installed extension's own environment report saying its
    ops were compiled by that nvcc (detectron2's "Detectron2 CUDA Compiler", mmcv's "MMCV CUDA
    Compiler") shows they were built against another CUDA than the torch they run with: the
    finding rises to a warning, with that line as evidence."""
    from envdoctor.facts import EXTENSION_BUILD
    built = [t for t in facts.cuda.toolkits if t.source == EXTENSION_BUILD]
    if not built:
        return list(findings)
    return [replace(f, severity=Severity.WARNING, evidence={**f.evidence,
                                                            "compiled with": built[0].how})
            if f.code == "CUDA005" and f.severity.rank < Severity.WARNING.rank else f
            for f in findings]


# pip's resolver naming the pair it refuses: "torchvision 0.6.1 has requirement torch==1.5.1, but
# you'll have torch 1.5.0 which is incompatible" (legacy), "torchvision 0.23.0 requires
# torch==2.8.0, but you have torch 2.6.0 which is incompatible". pip read the companion's exact
# pin from its metadata: a pass of TORCH003 (release series, or no row for that torch) does not
# outrank it.
_PIP_PAIR_CONFLICT = re.compile(r"(?i)\btorch(?:vision|audio) \d[\w.+!]{0,30} (?:has requirement|"
                                r"requires) torch\b[^\n]{0,60}?, but you(?:'ll| will)? have torch "
                                r"\d[\w.+!]{0,30} which is incompatible")


# The dispatcher's own account of a companion's operator that has no CUDA kernel: the backends
# it lists ("'torchvision::nms' is only available for these backends: [CPU, Meta, QuantizedCPU,
# ..., AutogradCUDA, ...]") name no CUDA of its own, or its kernel lines register CPU code only
# ("CPU: registered at ...torchvision\csrc\ops\cpu\nms_kernel.cpp"): the companion that loaded
# is a build without CUDA ops, whatever release pair the text states.
_ONLY_BACKENDS = re.compile(r"'(torchvision|torchaudio)::\w{1,40}' is only available for these "
                            r"backends: \[([^\]\n]{0,1200})\]")
_OWN_CUDA = re.compile(r"(?<![A-Za-z])CUDA(?![A-Za-z])")
_CPU_KERNEL = re.compile(r"(?m)^[ \t]{0,8}CPU: registered at [^\n]{0,300}?(torchvision|torchaudio)[\\/]csrc[\\/]")
_CUDA_KERNEL = re.compile(r"(?m)^[ \t]{0,8}CUDA: registered at [^\n]{0,300}?(?:torchvision|torchaudio)[\\/]csrc[\\/]")


def companion_without_cuda_ops(companion: str, text: str) -> bool:
    """The text's dispatcher output shows ``companion``'s operators with no CUDA kernel: the
    backend list of one of its operators names no CUDA, or a CPU kernel line registered from
    its sources and no CUDA one."""
    head = text[:1 << 20]
    if any(m.group(1) == companion and _OWN_CUDA.search(m.group(2)) is None
           for m in _ONLY_BACKENDS.finditer(head)):
        return True
    return (any(m.group(1) == companion for m in _CPU_KERNEL.finditer(head))
            and _CUDA_KERNEL.search(head) is None)


def _cpu_only_companion(cause: TextDiagnosis) -> bool:
    """Whether the text's torchvision cause rests on the dispatcher's own list of an operator's
    backends with no CUDA in it: the torchvision that loaded has no CUDA ops, so a release pair
    that TORCH003 finds matching (it compares versions, not builds) does not contradict it."""
    return cause.code == "ETORCH008" and any(companion_without_cuda_ops("torchvision", str(line))
                                             for line in cause.evidence)


def _stated_by_pip(cause: TextDiagnosis) -> bool:
    """Whether the text's cause rests on pip's own refusal of the torch/companion pair."""
    return cause.code == "ETORCH008" and any(_PIP_PAIR_CONFLICT.search(str(line))
                                             for line in cause.evidence)


def _pass_leaves_open(code: str, facts: Facts) -> bool:
    """Whether a passed check still leaves the text's cause possible. JAX002 knows that jaxlib
    and the plugins may not be newer than jax, and the oldest jaxlib each jax release accepts
    only as far as jax.toml ``[[jaxlib_floor]]`` goes: a jaxlib older than a jax past that table
    (or a dev build) passes it without showing the pair fits ("jaxlib is version 0.1.69, but
    this version of jax requires version 0.1.74"). TORCH003 compares the torch and
    torchvision versions the paste shows: a conda command or a list that names the packages
    without versions passes it on nothing."""
    if code == "ETORCH008":
        torch, vision = facts.packages.get("torch"), facts.packages.get("torchvision")
        framework = facts.frameworks.torch
        torch_shown = (torch is not None and torch.version is not None) or \
            (framework is not None and framework.version is not None)
        return not torch_shown or vision is None or vision.version is None
    if code != "EJAX008":
        return False
    jax, jaxlib = facts.packages.get("jax"), facts.packages.get("jaxlib")
    versions = [d.version for d in (jax, jaxlib) if d is not None and d.version is not None]
    if len(versions) < 2:
        return True  # one of the pair not shown: the pass rests on nothing
    return versions[1].release[:3] < versions[0].release[:3] and jaxlib_floor(versions[0]) is None


def _confirmed(severity: Severity, cause: TextDiagnosis) -> Severity:
    """A check's finding that the text's own error confirms: the failure it warns of (at info:
    "extensions will not build") happened, so it is at least as loud as the text's cause
    would be on its own. A louder finding stays as loud."""
    stated = finding_of(cause).severity
    return stated if stated.rank > severity.rank else severity


def finding_of(cause: TextDiagnosis) -> Finding:
    """A cause the text states, as a finding: an error when the signature is sure (high
    confidence), a warning otherwise; its evidence is the text's own lines."""
    m = re.match(r"E([A-Z]+?)\d", cause.code)
    area = _AREAS.get(m.group(1), "host") if m else "host"
    # what the text's own facts say (the GPU and release it states, the answer they give) leads
    # the why: it is the specific part of a general signature
    why = " ".join([*cause.notes, cause.why]) if cause.notes else cause.why
    evidence: dict[str, list[str]] = {"stated in the text": list(cause.evidence)}
    if cause.notes:
        evidence["read from the text"] = list(cause.notes)
    return Finding(code=cause.code, id=cause.id,
                   severity=Severity.ERROR if cause.confidence == "high" else Severity.WARNING,
                   title=cause.title, why=why, fix=cause.fix,
                   references=cause.references, evidence=evidence, area=area)


def stated_facts(facts: Facts) -> list[tuple[str, str, str]]:
    """(path, value, where) for every field a pasted text stated in words, not a tool."""
    from envdoctor.facts import SECTIONS
    from envdoctor.facts.states import STATED_PREFIX
    from envdoctor.facts.states import value_at as walk
    out = []
    for name in SECTIONS:
        sec = getattr(facts, name)
        for path, source in sec.probe.sources.items():
            if not source.startswith(STATED_PREFIX):
                continue
            value = walk(sec, path)
            if path == "gpus":
                value = ", ".join(g.name for g in sec.gpus)
            elif path == "toolkits":
                value = ", ".join(str(t.version) for t in sec.toolkits)
            if value not in (None, "", ()):
                out.append((f"{name}.{path}", str(value), source[len(STATED_PREFIX):].strip()
                            .strip("()")))
    return out


def annotate_stated(facts: Facts, findings: Sequence[Finding]) -> list[Finding]:
    """Each finding whose title or evidence shows a fact the text only stated (a version in
    an issue form, a GPU named in prose) says so in its evidence: ``stated in text``."""
    stated = stated_facts(facts)
    if not stated:
        return list(findings)
    out = []
    for f in findings:
        shown = " ".join([f.title, *(str(v) for v in f.evidence.values())])
        used = [f"{path} = {value} ({where})" for path, value, where in stated
                if len(value) >= 3 and (value in shown or _os_word(path, value, shown))]
        out.append(replace(f, evidence={**f.evidence, "stated in text": used}) if used else f)
    return out


def _os_word(path: str, value: str, shown: str) -> bool:
    """``host.os`` is stated as "Windows", "Linux", "Darwin" and shown as "native Windows",
    "macOS"."""
    words = {"Darwin": ("macOS", "Darwin")}.get(value, (value,))
    return path == "host.os" and any(w in shown for w in words)


# "No matching distribution found for tensorflow", "... satisfies the requirement torch==1.13.1"
_WANTED = re.compile(r"(?:No matching distribution found for|satisfies the requirement)\s+"
                     r"([A-Za-z][\w.-]{0,40}?)(?:\[[\w,]{0,40}\])?(?:==(\d[\w.]{0,20}))?"
                     r"(?=[\s(<>=!~;,]|$)")
_RELEASES = {"tensorflow": ("tensorflow", "tensorflow"), "tensorflow-gpu": ("tensorflow",
             "tensorflow"), "tensorflow-cpu": ("tensorflow", "tensorflow"),
             "torch": ("torch", "torch")}


def python_no_wheel(facts: Facts, cause: TextDiagnosis) -> Finding | None:
    """pip found no wheel, and the paste states the Python: the specific answer, from the
    release matrices' Python ranges (which release has wheels for that Python, if any)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version

    from envdoctor.facts.states import State, state_of
    from envdoctor.matrices import matrix
    from envdoctor.versions import series
    py = facts.host.python_version
    if py is None or state_of(facts, "host.python_version")[0] not in (State.OBSERVED,
                                                                     State.STATED):
        return None
    m = next((m for line in cause.evidence for m in [_WANTED.search(line)] if m), None)
    if m is None or m.group(1).lower() not in _RELEASES:
        return None
    name, key = _RELEASES[m.group(1).lower()]
    pin = series(m.group(2)) if m.group(2) else None
    rows: list[tuple[Version, SpecifierSet]] = []
    for row in matrix(name).get("release", []):
        try:
            version, spec = series(row[key]), SpecifierSet(row["python"])
        except (KeyError, InvalidSpecifier, TypeError):
            continue
        if version is not None:
            rows.append((version, spec))
    if not rows:
        return None
    plain = f"{py.major}.{py.minor}"
    fits = sorted(v for v, spec in rows if spec.contains(plain))
    newest, newest_spec = max(rows, key=lambda r: r[0])
    if pin is not None:
        pinned = next((s for v, s in rows if v == pin), None)
        if pinned is None or pinned.contains(plain):
            return None
        title = f"{name} {pin} has no wheel for Python {plain} (it supports Python {pinned})"
    elif not fits:
        title = (f"No {name} release has a wheel for Python {plain} (the newest, {name} "
                 f"{newest}, supports Python {newest_spec})")
    else:
        title = (f"pip found no {name} wheel for Python {plain}: only {name} {fits[0]} or "
                 f"newer has Python {plain} wheels")
    other = "3.11" if plain == "3.12" else "3.12"
    fix = (f"Use a Python that {name} has wheels for (a venv or conda env: `python{other} -m "
           f"venv .venv`), or a {name} release that supports Python {plain}"
           + (f" ({name} {fits[0]} or newer)" if fits else "") + ".")
    return Finding(code=cause.code, id="pip-no-wheel-for-python", severity=Severity.ERROR,
                   title=title, why=cause.why, fix=fix, references=cause.references,
                   evidence={"python": plain, "package": name,
                             "stated in the text": list(cause.evidence)}, area="python")
