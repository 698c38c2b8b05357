"""Policy: what a platform team requires of a machine before a training job may start.

A policy comes from ``[tool.envdoctor]`` in ./pyproject.toml, or ./envdoctor.toml, or
``--policy FILE``, plus repeatable ``--require`` on the command line::

    [tool.envdoctor]
    require = ["torch>=2.4", "cuda>=12.4", "driver>=550", "gpus>=8", "gpu_memory_gb>=80",
               "bf16", "nccl", "smoke=torch,jax", "shm_gb>=8"]
    expect = "gpu"            # the --expect intent (the command line wins)
    fail_on = "warning"       # the --fail-on threshold (the command line wins)
    ignore = { HOST001 = "our nodes mount /dev/shm elsewhere" }   # a reason is required

Each requirement becomes one evaluated check (family ``REQ``): a failed requirement is an error
finding like any rule's, and a requirement whose facts are unavailable is ``unknown`` and
reported as a warning, never silently passed. Unknown keys and malformed requirements raise
``BadInput`` (one line, exit 2) naming the key. Meanings of each requirement are in README.md,
"Policy"; the one that needs care is ``cuda``: see ``_cuda``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envdoctor.bounded import MAX_TOML
from envdoctor.engine.findings import FAIL_ON, CheckResult, Finding, Severity
from envdoctor.errors import BadInput
from envdoctor.facts import Facts, Status
from envdoctor.versions import canonical_name as canonicalize_name

KEYS = ("require", "expect", "fail_on", "ignore")
INTENTS = ("auto", "gpu", "cpu")
CODE_RE = re.compile(r"^[A-Z]{2,8}\d{3}$")
POLICY_DOC = "https://github.com/envdoctor/envdoctor#policy"
CUDNN_DOC = ("https://docs.nvidia.com/deeplearning/cudnn/backend/latest/reference/"
             "support-matrix.html")

# The kinds of requirement, their codes, value types, texts and sources are data:
# rules/requirements/REQ*.toml (``envdoctor.engine.requirements``), read only when a policy
# states a requirement.
SMOKE_FRAMEWORKS = ("torch", "tensorflow", "jax", "keras", "paddle", "mindspore", "mxnet")
# Frameworks whose version comes from the build facts (tensorflow may be tensorflow-cpu …).
FRAMEWORK_VERSIONS = ("torch", "tensorflow", "jax", "jaxlib", "keras")
# Names a platform team may mistype for one of ours; they are not taken as package names.
LOOKALIKES = {"gpu": "gpus", "gpu-count": "gpus", "gpu-memory": "gpu_memory_gb",
              "gpu-mem": "gpu_memory_gb", "memory-gb": "gpu_memory_gb", "shm": "shm_gb",
              "dev-shm": "shm_gb", "cuda-version": "cuda", "driver-version": "driver",
              "nvidia-driver": "driver", "bfloat16": "bf16", "cudnn-version": "cudnn"}
MAX_REQUIREMENT = 200   # characters of one requirement ("torch>=2.4,<3" is 13)
# how many requirements (the file's and --require together) and ignored checks one policy may
# state: a platform's policy states a dozen; each requirement costs ~2 ms to parse and judge, so
# the 200 000 a 2 MB file holds would run for minutes. Counted before any is parsed.
MAX_REQUIREMENTS = 256
MAX_IGNORES = 1024      # more than there are checks (~100) and fleet rules together
_NUMBER = re.compile(r"^\s*([a-z_]+)\s*(>=|<=|==|!=|>|<)\s*([0-9]+(?:\.[0-9]+)?)\s*$")


@dataclass(frozen=True)
class Need:
    """One parsed requirement: its text as written, its kind and what it compares against."""

    text: str
    kind: str                     # a requirement rule's kind (rules/requirements)
    name: str = ""                # the package name for kind "package"
    spec: SpecifierSet = SpecifierSet()  # empty: any version
    op: str = ""                  # number kinds
    number: float = 0.0
    items: tuple[str, ...] = ()   # smoke frameworks
    origin: str = "--require"     # the policy file it came from, or the command line

    @property
    def code(self) -> str:
        return rule_of(self.kind).code

    @property
    def id(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.text.lower()).strip("-")
        return f"require-{slug}"


@dataclass(frozen=True)
class Policy:
    """A parsed policy: requirements, settings and ignored codes, and where each came from."""

    requirements: tuple[Need, ...] = ()
    expect: str | None = None
    fail_on: str | None = None
    ignore: dict[str, str] = field(default_factory=dict)
    source: str = ""              # "pyproject.toml [tool.envdoctor]", a file, or ""

    @property
    def empty(self) -> bool:
        return not (self.requirements or self.expect or self.fail_on or self.ignore)

    def smoke_frameworks(self) -> tuple[str, ...]:
        """Frameworks a ``smoke=`` requirement needs smoke-tested (for the smoke runner)."""
        return tuple(dict.fromkeys(i for r in self.requirements if r.kind == "smoke"
                                   for i in r.items))

    def settings(self, intent: str | None, fail_on: str | None) -> tuple[str, str]:
        """The command line wins (None = not given there), then the policy, then defaults: a
        machine expected to train on a GPU (intent gpu) fails on a warning too, since every
        warning there is something that stops or degrades GPU training; else on an error."""
        chosen = intent or self.expect or "auto"
        return chosen, fail_on or self.fail_on or ("warning" if chosen == "gpu" else "error")

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "require": [r.text for r in self.requirements],
                "expect": self.expect, "fail_on": self.fail_on, "ignore": dict(self.ignore)}


# ---------------------------------------------------------------------------- parsing
def parse_requirement(text: Any, origin: str = "--require") -> Need:
    """Parse one requirement; BadInput names where it came from and what is expected."""
    where = origin if origin == "--require" else f"{origin}: 'require'"
    return replace(_parse(text, where), origin=origin)


def _parse(text: Any, where: str) -> Need:
    if not isinstance(text, str) or not text.strip():
        raise BadInput(f"{where}: requirement {text!r} must be a non-empty string")
    raw = text.strip()
    if len(raw) > MAX_REQUIREMENT:
        raise BadInput(f"{where}: a requirement of {len(raw)} characters is not one "
                       f"(at most {MAX_REQUIREMENT})")
    low = raw.lower()
    if low == "bf16":
        return Need(raw, "bf16")
    if low == "nccl":
        return Need(raw, "nccl", spec=SpecifierSet())
    if low.startswith("smoke"):
        name, sep, value = low.partition("=")
        items = tuple(i.strip() for i in value.split(",") if i.strip())
        if name.strip() != "smoke" or not sep or not items:
            raise BadInput(f"{where}: requirement {raw!r}: write smoke=torch,jax")
        bad = [i for i in items if i not in SMOKE_FRAMEWORKS]
        if bad:
            raise BadInput(f"{where}: requirement {raw!r}: unknown framework {bad[0]!r} "
                           f"(known: {', '.join(SMOKE_FRAMEWORKS)})")
        return Need(raw, "smoke", items=items)
    m = _NUMBER.match(low)
    head = re.match(r"[a-z_]+", low)
    if head and head.group(0) in ("gpus", "gpu_memory_gb", "shm_gb"):
        if not m or m.group(1) != head.group(0):
            raise BadInput(f"{where}: requirement {raw!r}: write {head.group(0)}>=N "
                           "(one of >= <= == != > < and a number)")
        if len(m.group(3)) > 15:  # more digits than a double holds: not a size anyone has
            raise BadInput(f"{where}: requirement {raw[:40]!r}…: the number has more than "
                           "15 digits")
        return Need(raw, m.group(1), op=m.group(2), number=float(m.group(3)))
    try:
        from packaging.requirements import InvalidRequirement, Requirement  # ~20 ms: lazy
        req = Requirement(raw)
    except InvalidRequirement:
        raise BadInput(f"{where}: requirement {raw!r} is malformed: write name>=version "
                       "(torch>=2.4, cuda>=12.4, driver>=550), gpus>=N, gpu_memory_gb>=N, "
                       "shm_gb>=N, bf16, nccl or smoke=torch,jax") from None
    if req.extras or req.marker or req.url:
        raise BadInput(f"{where}: requirement {raw!r}: extras, markers and URLs are not "
                       "supported")
    name = canonicalize_name(req.name)
    if name in LOOKALIKES:
        raise BadInput(f"{where}: requirement {raw!r}: unknown key {req.name!r}; "
                       f"did you mean {LOOKALIKES[name]}?")
    kind = name if name in ("python", "cuda", "driver", "cudnn", "nccl") else "package"
    if not str(req.specifier) and kind in ("python", "driver"):  # a bare package: installed
        raise BadInput(f"{where}: requirement {raw!r} needs a version, e.g. {name}>=3.10"
                       if kind == "python" else
                       f"{where}: requirement {raw!r} needs a version, e.g. {name}>=550")
    return Need(raw, kind, name=name, spec=req.specifier)


def parse_policy(data: Any, source: str) -> Policy:
    """Validate a policy table; every error names the source and the key."""
    if not isinstance(data, dict):
        raise BadInput(f"{source}: the policy must be a table")
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise BadInput(f"{source}: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    reqs = data.get("require", [])
    if isinstance(reqs, str):
        reqs = [reqs]
    if not isinstance(reqs, list):
        raise BadInput(f"{source}: 'require' must be a list of strings")
    _count(len(reqs), MAX_REQUIREMENTS, f"{source}: 'require'", "requirements")
    expect = data.get("expect")
    if expect is not None and expect not in INTENTS:
        raise BadInput(f"{source}: 'expect' = {expect!r} must be one of {', '.join(INTENTS)}")
    fail_on = data.get("fail_on")
    if fail_on is not None and fail_on not in FAIL_ON:
        raise BadInput(f"{source}: 'fail_on' = {fail_on!r} must be one of {', '.join(FAIL_ON)}")
    return Policy(requirements=tuple(parse_requirement(r, source) for r in reqs),
                  expect=expect, fail_on=fail_on, ignore=_ignore(data.get("ignore"), source),
                  source=source)


def _ignore(raw: Any, source: str) -> dict[str, str]:
    """``ignore`` as a table CODE = "reason" or a list of {code, reason}; reasons required."""
    if raw is None:
        return {}
    pairs: list[tuple[Any, Any]]
    if isinstance(raw, dict):
        pairs = list(raw.items())
    elif isinstance(raw, list) and all(isinstance(i, dict) for i in raw):
        for item in raw:
            extra = [k for k in item if k not in ("code", "reason")]
            if extra:
                raise BadInput(f"{source}: 'ignore': unknown key {extra[0]!r} "
                               "(known: code, reason)")
        pairs = [(i.get("code"), i.get("reason")) for i in raw]
    else:
        raise BadInput(f"{source}: 'ignore' must be a table CODE = \"reason\" "
                       "or a list of {code, reason}")
    _count(len(pairs), MAX_IGNORES, f"{source}: 'ignore'", "ignored checks")
    out = {}
    for code, reason in pairs:
        if not isinstance(code, str) or not CODE_RE.match(code):
            raise BadInput(f"{source}: 'ignore': {code!r} is not a check code like HOST001")
        if not isinstance(reason, str) or not reason.strip():
            raise BadInput(f"{source}: 'ignore': {code} needs a reason")
        out[code] = reason.strip()
    return out


def _count(n: int, most: int, where: str, what: str) -> None:
    if n > most:
        raise BadInput(f"{where}: {n} {what} (at most {most}), not a machine's policy")


MAX_POLICY = MAX_TOML  # a policy or a pyproject.toml is kilobytes


def _read_toml(path: Path, stream: bool = True, name: str = "") -> dict[str, Any]:
    """A policy file through the bounded reader (size, key depth, nesting, numbers); a file
    the user named may be a pipe (``--policy <(…)``), a discovered one only a regular file.
    Errors name the file as ``name`` (a discovered file by its name in ./) or as given."""
    from envdoctor.bounded import InputError, decode_toml, read_file
    try:
        return decode_toml(read_file(path, "a policy file", MAX_POLICY, stream=stream),
                           "a policy file")
    except InputError as exc:
        raise BadInput(f"{name or path}: {exc}") from None


def _table_of(data: dict[str, Any], name: str, require_tool: bool) -> tuple[Any, str] | None:
    tool = data.get("tool")
    if isinstance(tool, dict) and "envdoctor" in tool:
        return tool["envdoctor"], f"{name} [tool.envdoctor]"
    if require_tool:
        return None
    return data, name


def find_policy(policy_file: str | None, cwd: Path | None = None) -> Policy:
    """``--policy FILE``, else ./pyproject.toml's [tool.envdoctor], else ./envdoctor.toml.

    Discovery reads regular files only and never waits: a FIFO, device or socket in ./ under
    one of these names may be meant to carry the policy, so it is refused (one line, exit 2)
    rather than silently ignored; a folder of that name cannot carry one and is skipped.
    Nothing is found when the working folder is gone (deleted under a running shell)."""
    if policy_file:
        path = Path(policy_file)
        found = _table_of(_read_toml(path), policy_file, require_tool=False)
        assert found is not None
        return parse_policy(*found)
    if cwd is None:
        try:
            cwd = Path.cwd()
        except OSError:  # the working folder was removed: there is no ./pyproject.toml
            return Policy()
    pyproject = cwd / "pyproject.toml"
    for name in ("pyproject.toml", "envdoctor.toml"):
        if _special(cwd / name):
            _read_toml(cwd / name, False, name)  # raises BadInput naming what it is
    # A broken pyproject.toml only matters when it is meant to carry our policy.
    if _mentions_us(pyproject):
        found = _table_of(_read_toml(pyproject, False, "pyproject.toml"), "pyproject.toml",
                          require_tool=True)
        if found is not None:
            return parse_policy(*found)
    own = cwd / "envdoctor.toml"
    if _is_file(own):
        found = _table_of(_read_toml(own, False, "envdoctor.toml"), "envdoctor.toml",
                          require_tool=False)
        assert found is not None
        return parse_policy(*found)
    return Policy()


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _special(path: Path) -> bool:
    """Whether ``path`` exists (after symlinks) as neither a regular file nor a folder."""
    import stat
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _mentions_us(path: Path) -> bool:
    """Whether a regular ``path`` names ``tool.envdoctor`` in its first MAX_POLICY + 1 bytes
    (a bigger file that does is reported as too big by ``_read_toml``)."""
    from envdoctor.bounded import read_regular
    data = read_regular(path, MAX_POLICY + 1) if _is_file(path) else None
    return data is not None and b"tool.envdoctor" in data


def load(policy_file: str | None, require: tuple[str, ...] = (),
         cwd: Path | None = None) -> Policy:
    """The policy for this run: the file's, plus ``--require`` from the command line."""
    found = find_policy(policy_file, cwd)
    _count(len(found.requirements) + len(require), MAX_REQUIREMENTS,
           f"{found.source} and --require" if found.source else "--require", "requirements")
    extra = tuple(parse_requirement(r) for r in require)
    source = found.source or ("--require" if extra else "")
    return replace(found, requirements=found.requirements + extra, source=source)


# ---------------------------------------------------------------------------- evaluation
UNKNOWN = object()


def evaluate(policy: Policy, facts: Facts, extra: dict[str, Any] | None = None
             ) -> list[CheckResult]:
    """One CheckResult per requirement: fired (with an error finding), passed or unknown."""
    results = []
    for req in policy.requirements:
        verdict, actual = _JUDGES[req.kind](req, facts, extra or {})
        results.append(_result(req, verdict, actual, req.origin))
    return results


def rule_of(kind: str) -> Any:
    """The requirement rule (rules/requirements) of a kind; BadInput when the rules lack it."""
    from envdoctor.engine.requirements import by_kind
    from envdoctor.rulefiles import RuleFileError
    try:
        rules = by_kind()
    except RuleFileError as exc:
        raise BadInput(f"invalid rule file: {exc}") from None
    if kind not in rules:
        raise BadInput(f"no requirement rule for {kind!r} in {rules_folder()}/requirements")
    return rules[kind]


def rules_folder() -> str:
    from envdoctor.rulefiles import rules_dir
    return str(rules_dir())


def _result(req: Need, verdict: Any, actual: str, source: str) -> CheckResult:
    ref = rule_of(req.kind).reference
    evidence = {"requirement": req.text, "actual": actual, "policy": source}
    if verdict is True:
        return CheckResult(req.code, req.id, "passed", detail=f"{req.text}: {actual}")
    if verdict is UNKNOWN:
        finding = Finding(
            code=req.code, id=req.id, severity=Severity.WARNING,
            title=f"Requirement {req.text} could not be checked: {actual}",
            why=f"The policy ({source}) requires {req.text}, but the facts it needs are "
                "unavailable, so the requirement is neither met nor failed.",
            fix=_unknown_fix(req), references=_refs(source, ref), evidence=evidence,
            area="policy")
        return CheckResult(req.code, req.id, "unknown", finding, detail=actual)
    finding = Finding(
        code=req.code, id=req.id, severity=Severity.ERROR,
        title=f"Requirement {req.text} is not met: {actual}",
        why=f"The policy ({source}) requires {req.text}; found: {actual}.",
        fix=_failed_fix(req, source),
        references=_refs(source, ref), evidence=evidence, area="policy")
    return CheckResult(req.code, req.id, "fired", finding)


def _refs(source: str, ref: str) -> tuple[str, ...]:
    """The policy file that asked (when there is one) and the documentation of the fact."""
    return (ref,) if source == "--require" else (source.split(" [", 1)[0], ref)


# Requirements a package installer can meet; a framework's build depends on the machine, so
# its command comes from `envdoctor suggest` (the wheel for this GPU, driver and Python).
SUGGESTED = {"torch": "torch", "tensorflow": "tensorflow", "jax": "jax", "jaxlib": "jax",
             "xformers": "xformers", "bitsandbytes": "bitsandbytes", "flash-attn": "flash-attn"}


def _failed_fix(req: Need, source: str) -> str:
    import shlex  # the command as a shell reads it: `--require 'gpus>=8'`, never a redirection
    relax = (f"relax `--require {shlex.quote(req.text)}`" if source == "--require"
             else f"change the requirement in {source}")
    if req.kind == "package" and req.name in SUGGESTED:
        return (f"`envdoctor suggest {SUGGESTED[req.name]}` prints the install command that "
                f"fits this machine; or {relax}.")
    if req.kind == "package":
        return f"pip install '{req.text}' (or {relax})."
    return f"Run on a machine that meets {req.text}, or {relax}."


def _unknown_fix(req: Need) -> str:
    if req.kind == "smoke":
        return f"Run the check with the smoke suite enabled for {', '.join(req.items)}."
    return "Run `envdoctor check` on the machine itself (not --static or a partial snapshot)."


def _known(facts: Facts, section: str) -> bool:
    return getattr(facts, section).probe.status.known


def _version_check(spec: SpecifierSet, version: Version | None) -> bool:
    return version is not None and spec.contains(version, prereleases=True)


def _package(req: Need, facts: Facts, extra: dict[str, Any]) -> tuple[Any, str]:
    version: Version | None = None
    if req.name in FRAMEWORK_VERSIONS:
        if not _known(facts, "frameworks"):
            return UNKNOWN, "the frameworks probe did not answer"
        fw = facts.frameworks
        if req.name == "jaxlib":
            version = fw.jax.jaxlib if fw.jax is not None else None
        else:
            build = {"torch": fw.torch, "tensorflow": fw.tensorflow, "jax": fw.jax,
                     "keras": fw.keras}[req.name]
            version = build.version if build is not None else None
    if version is None:
        if not _known(facts, "packages"):
            return UNKNOWN, "the packages probe did not answer"
        dist = facts.packages.get(req.name)
        if dist is not None and not str(req.spec):  # a bare name asks only that it is there
            return True, f"{req.name} {dist.version or '(version unreadable)'}"
        version = dist.version if dist else None
    if version is None:
        return False, f"{req.name} is not installed"
    return _version_check(req.spec, version), f"{req.name} {version}"


def _python(req: Need, facts: Facts, extra: dict[str, Any]) -> tuple[Any, str]:
    version = facts.host.python_version if _known(facts, "host") else None
    if version is None:
        return UNKNOWN, "the Python version is unknown"
    return _version_check(req.spec, version), f"Python {version}"


def _driver(req: Need, facts: Facts, extra: dict[str, Any]) -> tuple[Any, str]:
    nv = facts.nvidia
    if nv.probe.status is Status.NOT_FOUND:
        return False, "no NVIDIA driver"
    if not nv.probe.status.known or nv.driver_version is None:
        return UNKNOWN, "the NVIDIA driver version is unknown"
    return _version_check(req.spec, nv.driver_version), f"driver {nv.driver_version}"


def _cuda(req: Need, facts: Facts, extra: dict[str, Any]) -> tuple[Any, str]:
    """``cuda OP X`` holds when the driver supports CUDA X and the frameworks were built with it.

    "CUDA" on a training box is two numbers: the newest CUDA the driver supports (nvidia-smi's
    "CUDA Version") and the CUDA each framework wheel was built with (torch.version.cuda,
    TensorFlow's build_info). Both must satisfy the requirement: a cu118 wheel on a 12.4
    driver does not run CUDA 12.4 code, and neither does a cu124 wheel on a 12.2 driver.
    CPU-only builds are not counted (``gpus>=1`` and ``expect = "gpu"`` say that). The
    installed toolkit (nvcc) is not counted: pip wheels bring their own CUDA runtime.
    """
    nv = facts.nvidia
    if nv.probe.status is Status.NOT_FOUND:
        return False, "no NVIDIA driver (no CUDA)"
    if not nv.probe.status.known or nv.cuda_driver_version is None:
        return UNKNOWN, "the CUDA version the driver supports is unknown"
    parts = [("driver supports CUDA", nv.cuda_driver_version)]
    if _known(facts, "frameworks"):
        fw = facts.frameworks
        if fw.torch is not None and fw.torch.cuda is not None:
            parts.append(("torch built with CUDA", fw.torch.cuda))
        if fw.tensorflow is not None and fw.tensorflow.cuda is not None:
            parts.append(("tensorflow built with CUDA", fw.tensorflow.cuda))
    failing = [(label, v) for label, v in parts if not _version_check(req.spec, v)]
    shown = failing or parts
    return not failing, "; ".join(f"{label} {v}" for label, v in shown)


def _library(req: Need, facts: Facts, extra: dict[str, Any]) -> tuple[Any, str]:
    """cuDNN / NCCL: a system library, a pip wheel (nvidia-cudnn-cu12 …) or one torch bundles."""
    name = req.kind
    versions: list[Version] = []
    known = False
    if _known(facts, "libraries"):
        known = True
        versions += [lib.version for lib in facts.libraries.named(name) if lib.version]
        present = bool(facts.libraries.named(name))
    else:
        present = False
    if _known(facts, "packages"):
        known = True
        for dist in facts.packages.distributions:
            if dist.name.startswith(f"nvidia-{name}-cu") and dist.version is not None:
                versions.append(dist.version)
                present = True
    if _known(facts, "frameworks") and facts.frameworks.torch is not None:
        known = True
        present = present or any(f"lib{name}" in b for b in facts.frameworks.torch.bundled)
    if not known:
        return UNKNOWN, "the library probes did not answer"
    if not present:
        return False, f"{name} is not installed"
    if not str(req.spec):
        return True, f"{name} {', '.join(map(str, versions)) or '(version unknown)'}"
    if not versions:
        return UNKNOWN, f"{name} is installed but its version is unknown"
    ok = any(_version_check(req.spec, v) for v in versions)
    return ok, f"{name} {', '.join(str(v) for v in sorted(set(versions)))}"


def _compare(op: str, a: float, b: float) -> bool:
    return {">=": a >= b, "<=": a <= b, "==": a == b, "!=": a != b, ">": a > b,
            "<": a < b}[op]


def _gpus(req: Need, facts: Facts, extra: dict[str, Any]) -> tuple[Any, str]:
    nv = facts.nvidia
    if not nv.probe.status.known:
        return UNKNOWN, "the NVIDIA probe did not answer"
    n = nv.gpu_count
    return _compare(req.op, n, req.number), f"{n} NVIDIA GPU(s)"


def _no_gpus(facts: Facts) -> tuple[Any, str] | None:
    """The verdict of a per-GPU requirement on a machine without GPUs (False) or without an
    answer from the NVIDIA probe (UNKNOWN); None when there are GPUs to judge."""
    nv = facts.nvidia
    if nv.probe.status is Status.NOT_FOUND:
        return False, "no NVIDIA GPU"
    if not nv.probe.status.known:
        return UNKNOWN, "the NVIDIA probe did not answer"
    if not nv.gpus:
        return False, "no NVIDIA GPU"
    return None


def _gpu_memory(req: Need, facts: Facts, extra: dict[str, Any]) -> tuple[Any, str]:
    """The smallest GPU's memory in GB of 10**9 bytes, the unit of datasheets ("80GB").

    nvidia-smi reports MiB: an "80GB" H100 shows 81559 MiB = 79.6 GiB but 85.5 GB, so a
    requirement written from the datasheet (``gpu_memory_gb>=80``) passes on the card it names.
    """
    nv = facts.nvidia
    if (missing := _no_gpus(facts)) is not None:
        return missing
    sizes = [g.memory_total_mb for g in nv.gpus if g.memory_total_mb is not None]
    if len(sizes) < len(nv.gpus):
        return UNKNOWN, "a GPU's memory size is unknown"
    gb = min(sizes) * 1024 * 1024 / 1e9
    return _compare(req.op, gb, req.number), f"smallest GPU has {gb:.1f} GB"


def _shm(req: Need, facts: Facts, extra: dict[str, Any]) -> tuple[Any, str]:
    """Size of /dev/shm in GiB, the unit of ``docker run --shm-size=8g``."""
    size = facts.host.shm_total_gb if _known(facts, "host") else None
    if size is None:
        return UNKNOWN, "the size of /dev/shm is unknown"
    return _compare(req.op, size, req.number), f"/dev/shm of {size:.2f} GiB"


def _bf16(req: Need, facts: Facts, extra: dict[str, Any]) -> tuple[Any, str]:
    """bfloat16 arithmetic needs the bf16 compute-capability floor (``[features]`` of
    rules/matrices/gpus.toml: 8.0, Ampere) or newer on every GPU."""
    from envdoctor.matrices.gpus import bf16_min_cc
    nv = facts.nvidia
    if (missing := _no_gpus(facts)) is not None:
        return missing
    if any(g.cc is None for g in nv.gpus):
        return UNKNOWN, "a GPU's compute capability is unknown"
    floor = bf16_min_cc()
    if floor is None:
        return UNKNOWN, "the bf16 floor is missing from rules/matrices/gpus.toml"
    old = [g for g in nv.gpus if g.cc is not None and g.cc < floor]
    if old:
        return False, f"{old[0].name} has compute capability {old[0].cc} (< {floor})"
    return True, "compute capability " + ", ".join(sorted({str(g.cc) for g in nv.gpus}))


def _smoke(req: Need, facts: Facts, extra: dict[str, Any]) -> tuple[Any, str]:
    """Smoke results: ``Report.extra["smoke"]`` ({"torch": {"status": "passed", …}}), else the
    live facts' ``facts.live[name].smoke``. A framework that was not smoke-tested is unknown."""
    smoke = extra.get("smoke")
    live = facts.live if isinstance(facts.live, dict) else {}
    if not isinstance(smoke, dict) and not any(
            getattr(v, "smoke", None) is not None for v in live.values()):
        return UNKNOWN, "no smoke results in this run"
    states = {}
    for name in req.items:
        entry = (smoke or {}).get(name)
        status = entry.get("status") if isinstance(entry, dict) else None
        live_smoke = getattr(live.get(name), "smoke", None)
        if status is None and live_smoke is not None:
            status = live_smoke.status
        states[name] = status or "not run"
    bad = {k: v for k, v in states.items() if v != "passed"}
    text = ", ".join(f"{k} {v}" for k, v in (bad or states).items())
    if any(v in ("failed", "error") for v in bad.values()):
        return False, "smoke " + text
    if bad:
        return UNKNOWN, "smoke " + text
    return True, "smoke " + text


_JUDGES = {"package": _package, "python": _python, "driver": _driver, "cuda": _cuda,
           "cudnn": _library, "nccl": _library, "gpus": _gpus, "gpu_memory_gb": _gpu_memory,
           "shm_gb": _shm, "bf16": _bf16, "smoke": _smoke}


def judge(policy: Policy, facts: Facts, results: list[CheckResult],
          extra: dict[str, Any] | None = None) -> tuple[list[CheckResult], dict[str, Any]]:
    """The checks' results plus one per requirement, with ignored codes set aside, and the
    ``policy`` block of the JSON contract. Pure: the pipeline builds the report from it.

    Ignored findings leave the findings list (so they neither fail the gate nor print) and
    their results become state ``ignored`` with the policy's reason.
    """
    if policy.empty:
        return list(results), {}
    ignored = []
    kept = []
    for r in list(results) + evaluate(policy, facts, extra):
        if r.code in policy.ignore and r.state in ("fired", "unknown"):
            ignored.append({"code": r.code, "id": r.id, "reason": policy.ignore[r.code]})
            r = CheckResult(r.code, r.id, "ignored", None,
                            detail=f"ignored by policy: {policy.ignore[r.code]}")
        kept.append(r)
    return kept, {**policy.to_dict(), "ignored": ignored}


def apply(report: Any, policy: Policy) -> Any:
    """A new report: ``report``'s results judged by ``policy`` (see ``judge``), the summary
    made again from the findings that remain, other summary lines and blocks kept."""
    from envdoctor.engine import findings_of
    from envdoctor.outputs.report import Report

    if policy.empty:
        return report
    from envdoctor.outputs.summary import summarize

    kept, block = judge(policy, report.facts, list(report.results), dict(report.extra))
    standard = {a.area for a in summarize(report.facts, [])}
    return Report.build(report.facts, kept, findings_of(kept), report.intent, report.fail_on,
                        extra={**report.extra, "policy": block},
                        more_areas=[a for a in report.areas if a.area not in standard])
