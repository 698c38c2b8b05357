"""torch (+ torchvision, torchaudio): the newest release and wheel variant that run here.

For each release (newest first) and each variant its index carries for this platform, the
constraints are: Python inside the release's range; on an NVIDIA machine, the driver at or above
the minor-version-compatibility floor of the variant's CUDA major, and every GPU's architecture
in the wheel's arch list (SASS of the same major and a lower or equal minor, or PTX to JIT).
Among the variants that pass, the release's stable variant (the PyPI default) wins, else the
newest CUDA. What failed on newer releases and better variants becomes the alternatives, with
their price.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envdoctor.matrices import confirmed, matrix
from envdoctor.matrices.cuda import FIRST_MINOR_COMPAT_MAJOR, lookup_min_driver
from envdoctor.matrices.gpus import arch_cc, code_for, cuda_dropped, cuda_predates, lookup_arch
from envdoctor.suggest import data, rocm_plan, xpu_plan
from envdoctor.suggest.archs import derived_archs
from envdoctor.suggest.install import CONDA_NOTE, command, quote
from envdoctor.suggest.machine import PLATFORM_NAMES, GpuInfo, Machine
from envdoctor.suggest.model import Alternative, Reason, Suggestion, unique
from envdoctor.suggest.plan import Request, assumed_platform
from envdoctor.versions import ver

GET_STARTED = "https://pytorch.org/get-started/locally/"
RELEASE_MATRIX = "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix"
# Table 3: the driver bundled with each CUDA release
RELEASE_NOTES = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"


@dataclass
class Check:
    """The verdict on one (release, variant) for this machine."""

    release: dict[str, Any]
    variant: str
    failures: list[Reason] = field(default_factory=list)   # blocking constraints
    notes: list[Reason] = field(default_factory=list)      # what held, and caveats
    driver_needed: Version | None = None

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def version(self) -> str:
        return str(self.release["torch"])

    def kinds(self) -> set[str]:
        return {f.constraint for f in self.failures}


def _python_reason(release: dict[str, Any], m: Machine) -> Reason | None:
    """A failure when the machine's Python is outside the release's range; None otherwise."""
    spec = release.get("python", "")
    if m.python is None or not spec:
        return None
    if SpecifierSet(spec).contains(m.python):
        return None
    return Reason("python", f"torch {release['torch']} has wheels for Python {spec}, this is "
                  f"Python {m.python}", release.get("source", ""), confirmed(release))


def _driver(check: Check, cuda: Version, m: Machine) -> None:
    os_name = data.driver_os(m)
    floor = data.driver_floor(cuda, os_name)
    if floor is None:
        check.notes.append(Reason("driver", f"no driver floor for CUDA {cuda} on {os_name} in "
                                  "the data; not checked", data.COMPAT_URL, False))
        return
    need, source, ok_cell = floor
    check.driver_needed = need
    have, need_s = data.driver_str(m.driver) if m.driver else "", data.driver_str(need)
    if m.driver is None:
        check.notes.append(Reason("driver", f"{check.variant} needs an NVIDIA driver >= {need_s}; "
                                  "the snapshot does not state the driver", source, False))
        return
    compat = cuda.major >= FIRST_MINOR_COMPAT_MAJOR
    floor_of = (f"minor-version compatibility floor of CUDA {cuda.major}.x" if compat else
                f"the driver CUDA {cuda} itself needs: before CUDA 11 there is no minor-version "
                "compatibility")
    if not compat:
        source = RELEASE_NOTES
    if m.driver < need:
        check.failures.append(Reason(
            "driver", f"{check.variant} (CUDA {cuda}) needs driver >= {need_s} ({floor_of}); "
            f"this driver is {have}", source, ok_cell))
        return
    text = (f"driver {have} >= {need_s}, the CUDA {cuda.major}.x floor for {check.variant}"
            if compat else f"driver {have} >= {need_s}, {floor_of}")
    bundled = lookup_min_driver(cuda, os_name)
    if bundled and m.driver < bundled[0]:
        text += (f" (through minor-version compatibility: PTX JIT and CUDA {cuda} features that "
                 f"need a newer driver want >= {data.driver_str(bundled[0])})")
    check.notes.append(Reason("driver", text, source, ok_cell))


def _driver_drives_gpus(check: Check, m: Machine) -> None:
    """A failure for each GPU the driver branch predates: a branch older than the one bundled
    with the first CUDA that knew the architecture cannot drive the GPU at all, whatever the
    wheel (470 and an L40S, sm_89 from CUDA 11.8 / 520). Compared by branch (major) only."""
    if m.driver is None:
        return
    os_name = data.driver_os(m)
    for gpu in dict.fromkeys(m.gpus):
        row = lookup_arch(gpu.cc) if gpu.cc is not None else None
        first = ver(row.get("first_cuda")) if row else None
        floor = lookup_min_driver(first, os_name) if first is not None else None
        if floor is None or m.driver.major >= floor[0].major:
            continue
        ok_row = confirmed(row)
        caveat = "" if ok_row else " (the GPU table's first_cuda row is not confirmed)"
        check.failures.append(Reason(
            "driver", f"driver {data.driver_str(m.driver)} predates {gpu.name} ({gpu.sm}): its "
            f"architecture arrived with CUDA {first}, whose driver is "
            f"{data.driver_str(floor[0])}{caveat}; no wheel runs until the driver is upgraded",
            RELEASE_NOTES, ok_row and floor[1]))
        if check.driver_needed is None or check.driver_needed < floor[0]:
            check.driver_needed = floor[0]


def _arch(check: Check, cuda: Version, m: Machine, platform: str) -> None:
    torch = Version(check.version)
    got = data.torch_archs(torch, check.variant, platform)
    for gpu in dict.fromkeys(m.gpus):
        if gpu.cc is None or gpu.sm is None:
            check.notes.append(Reason("arch", f"compute capability of {gpu.name!r} unknown; "
                                      "architecture not checked", "", False))
            continue
        if got is not None:
            archs, source, ok_cell = got
            code = code_for(archs, gpu.sm)
            if code is not None:
                check.notes.append(Reason("arch", _runs_text(gpu.name, gpu.sm, code,
                                                             f"the {check.variant} build of "
                                                             f"torch {torch}"),
                                          source, ok_cell))
            else:
                check.failures.append(Reason(
                    "arch", f"the {check.variant} build of torch {torch} has no code for "
                    f"{gpu.name} ({gpu.sm}); its arch list is {', '.join(archs)}",
                    source, ok_cell))
            continue
        derived = derived_archs(torch, check.variant, platform)
        code = code_for(list(derived.archs), gpu.sm) if derived is not None else None
        if derived is not None and code is not None:
            check.notes.append(Reason("arch", _runs_text(
                gpu.name, gpu.sm, code, f"the {check.variant} build of torch {torch}")
                + f", {derived.basis(torch)}", derived.source, False))
            continue
        # No arch list in the data: only what the toolkit itself cannot do decides.
        dropped, first = cuda_dropped(cuda, gpu.cc), cuda_predates(cuda, gpu.cc)
        if dropped is not None:
            check.failures.append(Reason(
                "arch", f"CUDA {cuda} cannot build code for {gpu.name} ({gpu.sm}): the last "
                f"CUDA for {dropped.get('name', gpu.sm)} was {dropped['last_cuda']}",
                dropped.get("source", RELEASE_NOTES), confirmed(dropped)))
        elif first is not None:
            check.failures.append(Reason(
                "arch", f"CUDA {cuda} predates {gpu.name} ({gpu.sm}); it needs a CUDA {first}+ "
                "build", RELEASE_NOTES))
        else:  # never "ok" on a build whose code for this GPU nobody has checked
            check.failures.append(Reason("arch", f"the arch list of the {check.variant} build "
                                         f"of torch {torch} on {PLATFORM_NAMES.get(platform)} is "
                                         f"not in the data: whether it runs {gpu.sm} is unknown",
                                         "", False))


def _runs_text(name: str, sm: str, code: tuple[str, str], build: str) -> str:
    """What code of ``build`` a GPU runs, said as it is: its own SASS, the same major's
    lower-minor SASS (binary-compatible), or PTX the driver JIT-compiles."""
    kind, arch = code
    if kind == "exact":
        return f"{build} has {arch} code for {name} ({sm})"
    if kind == "sass":
        major = sm[3:-1]
        return (f"{name} ({sm}) runs {build}'s {arch} code (binary-compatible within major "
                f"{major})")
    return (f"{name} ({sm}) runs {build}'s {arch} PTX, JIT-compiled by the driver (slow first "
            "start)")


def _check(release: dict[str, Any], variant: str, m: Machine, platform: str) -> Check:
    check = Check(release, variant)
    cuda = data.variant_cuda(variant)
    if m.has_amd:
        if (want := data.variant_rocm(variant)) is not None:
            rocm_plan.check(check.failures, check.notes, variant, want, m)
        elif cuda is not None:
            check.failures.append(Reason("gpu", f"{variant} is a CUDA build: it cannot use this "
                                         "machine's AMD GPUs", GET_STARTED))
        return check
    if xpu_plan.is_target(m):
        if variant == xpu_plan.VARIANT:
            xpu_plan.check(check.notes, release, m)
        else:
            check.failures.append(xpu_plan.not_xpu(variant))
        return check
    if cuda is not None:
        _driver(check, cuda, m)
        _driver_drives_gpus(check, m)
        _arch(check, cuda, m, platform)
    elif (want := data.variant_rocm(variant)) is not None:
        have = data.variant_rocm(m.torch_variant or "")
        if have is not None and want.release[:2] != have.release[:2]:
            check.failures.append(Reason(
                "gpu", f"{variant} is another ROCm release than the installed torch's "
                f"({m.torch_variant}); whether this machine's ROCm stack runs it is not in the "
                "facts", release.get("source", ""), False))
        else:
            check.notes.append(Reason("gpu", f"{variant} matches the ROCm of the installed torch"
                                      if have is not None else
                                      f"the ROCm release of this machine is not in the facts; "
                                      f"{variant} is the newest ROCm index for torch "
                                      f"{release['torch']}", release.get("source", ""),
                                      have is not None))
    return check


def _wanted_variants(release: dict[str, Any], m: Machine, platform: str) -> list[str]:
    """The variants worth trying on this machine, best first."""
    carried = list(release.get(platform, []))
    if platform.startswith("macos"):
        return ["cpu"] if "cpu" in carried else []
    if m.has_nvidia:
        cuda_of = {v: c for v in carried if (c := data.variant_cuda(v)) is not None}
        pypi = release.get("pypi") or {}
        # The release's stable CUDA (STABLE_CUDA_VERSIONS, what PyPI serves on Linux x86_64)
        # is preferred on every platform; Windows' PyPI wheel is the CPU one.
        default = pypi.get(platform) if data.variant_cuda(pypi.get(platform, "")) else \
            pypi.get("linux_x86_64")
        cudas = sorted(cuda_of, key=cuda_of.__getitem__, reverse=True)
        if default in cudas:
            cudas.remove(default)
            cudas.insert(0, default)
        return cudas
    if xpu_plan.is_target(m):
        return [xpu_plan.VARIANT] if xpu_plan.VARIANT in carried else []
    if m.torch_hip or m.has_amd:
        rocm_of = {v: r for v in carried if (r := data.variant_rocm(v)) is not None}
        return sorted(rocm_of, key=rocm_of.__getitem__, reverse=True)
    return ["cpu"] if "cpu" in carried else []


def _requirements(release: dict[str, Any], audio: bool, variant: str | None = None
                  ) -> tuple[list[str], list[Reason]]:
    """The pins of one install; ``variant`` given for a release whose own instructions pin
    the build's local version (``torch==1.12.1+cu116``, ``local_pins``)."""
    tag = f"+{variant}" if variant and release.get("local_pins") else ""
    reqs = [f"torch=={release['torch']}{tag}"]
    notes: list[Reason] = []
    if release.get("torchvision"):
        reqs.append(f"torchvision=={release['torchvision']}{tag}")
    else:
        notes.append(Reason("data", f"no torchvision pairing for torch {release['torch']} in "
                            "the data; torch only", release.get("source", ""), False))
    for extra in release.get("requires", []):
        reqs.append(str(extra))
        notes.append(Reason("data", f"torch {release['torch']} was built against NumPy 1.x: "
                            f"{extra} is pinned with it (NumPy 2 breaks that ABI)",
                            release.get("requires_source", ""), confirmed(release)))
    if audio:
        if release.get("torchaudio"):
            reqs.append(f"torchaudio=={release['torchaudio']}")
        else:
            notes.append(Reason("data", f"no torchaudio wheel paired with torch "
                                f"{release['torch']} in the data (torchaudio's last release is "
                                "2.11.0)", release.get("source", ""), False))
    return reqs, notes


def _command(check: Check, platform: str, installer: str, audio: bool
             ) -> tuple[str, list[str], str | None, list[Reason]]:
    release, variant = check.release, check.variant
    conda = data.conda_row("torch")
    last_conda = ver(conda["last_channel_release"]) if conda else None
    torch_v = ver(release["torch"])
    on_channel = data.variant_rocm(variant) is None  # PyTorch's channel had no ROCm builds
    use_conda = bool(installer == "conda" and last_conda and torch_v is not None
                     and torch_v <= last_conda and on_channel)
    plain = use_conda or platform.startswith("macos") or _from_pypi(release, platform)
    reqs, notes = _requirements(release, audio, None if plain else variant)
    if use_conda:
        names = ["pytorch" + r[len("torch"):] if r.startswith("torch==") else r for r in reqs]
        cuda = data.variant_cuda(variant)
        # a release row may state its own conda arguments (1.12: cudatoolkit=, before the
        # pytorch-cuda package)
        extra = list(release.get("conda_args", {}).get(variant, [])) or (
            [f"pytorch-cuda={cuda}", "-c", "pytorch", "-c", "nvidia"] if cuda else
            ["cpuonly", "-c", "pytorch"])
        return "conda install " + " ".join(quote(t) for t in names + extra), reqs, None, notes
    if installer == "conda" and not on_channel:
        notes.append(Reason("installer", "PyTorch's conda channel has no ROCm builds; "
                            + CONDA_NOTE, GET_STARTED))
    elif installer == "conda":
        notes.append(Reason("installer", "PyTorch's conda channel stopped at "
                            f"{conda['last_channel_release'] if conda else '2.5'}; " + CONDA_NOTE,
                            conda.get("source", "") if conda else ""))
    url = None if platform.startswith("macos") or _from_pypi(release, platform) \
        else str(release.get("find_links") or data.index_url(variant))
    return command(reqs, url, installer, index_option=_index_option(release)), reqs, url, notes


def _from_pypi(release: dict[str, Any], platform: str) -> bool:
    """Whether this release's wheels for ``platform`` are recorded from PyPI's files only
    (``pypi_only``: the older releases' Linux aarch64 CPU wheels): installed from PyPI."""
    return platform in release.get("pypi_only", ())


def _index_option(release: dict[str, Any]) -> str:
    return str(release.get("index_option", "--index-url"))


def _installed_release_first(m: Machine) -> list[dict[str, Any]]:
    """The releases to try, newest first, with the installed release's row moved to the front
    (same major.minor, never a lower patch than installed): keep-installed mode."""
    rows = list(data.torch_rows())
    have = m.installed.get("torch")
    if have is None:
        return rows
    base = Version(have.public)
    same = next((r for r in rows if Version(str(r["torch"])).release[:2] == base.release[:2]
                 and Version(str(r["torch"])) >= base and confirmed(r)), None)
    if same is None:
        return rows
    return [same] + [r for r in rows if r is not same]


def _macos_reason(release: dict[str, Any], m: Machine, platform: str) -> Reason | None:
    """A failure when the release's macOS wheels need a newer macOS than the machine's
    (``<platform>_min``: torch 2.12+ ships only ``macosx_14_0_arm64`` wheels); None when they
    fit or either side is not known."""
    need = release.get(f"{platform}_min")
    if not platform.startswith("macos") or not need or m.macos is None:
        return None
    if m.macos >= Version(str(need)):
        return None
    return Reason("platform", f"torch {release['torch']}'s {PLATFORM_NAMES.get(platform)} "
                  f"wheels need macOS >= {need} (their platform tag); this Mac runs macOS "
                  f"{m.macos}", str(release.get(f"{platform}_min_source")
                                    or release.get("source", "")), confirmed(release))


def _installed_unlisted(release: dict[str, Any], m: Machine, platform: str) -> bool:
    """The installed torch is exactly this release, in a CUDA variant the data does not list
    for it on this platform (2.15.0+cu126), or in a ROCm variant the data lists for another
    release here (2.15.0+rocm7.2 on an AMD machine): the facts show the build exists, and the
    GPU and driver checks of its variant decide whether it runs."""
    have = m.installed.get("torch")
    variant = m.torch_variant or ""
    if have is None or Version(have.public) != Version(str(release["torch"])) \
            or variant in release.get(platform, []):
        return False
    if data.variant_cuda(variant) is not None:
        return m.has_nvidia
    return data.variant_rocm(variant) is not None and m.has_amd and any(
        variant in r.get(platform, []) for r in data.torch_rows())


def plan(m: Machine, request: Request) -> Suggestion:
    """The torch suggestion for machine ``m`` (the ``Planner`` shape); see ``_plan``."""
    return _plan(m, request.installer, request.audio, request.keep_installed)


def _plan(m: Machine, installer: str = "pip", audio: bool = False,
          keep_installed: bool = False) -> Suggestion:
    """The torch suggestion for machine ``m``.

    ``keep_installed`` (what `check` fixes use): when a variant of the installed release runs
    here, that release is the answer, so a fix never upgrades torch needlessly; otherwise, as
    without it, the newest release that runs (never a downgrade of a newer-than-data install).
    """
    platform, notes = assumed_platform(m)
    if m.has_amd:
        gate = rocm_plan.gate(m, platform)
        if gate is not None:
            return _amd_undecided(m, platform, installer, audio, notes, gate)
        notes = notes + rocm_plan.gpus(m)[1]
    elif m.has_intel and not platform.startswith("macos"):
        xgate = xpu_plan.gate(m, platform)
        if xgate is not None:
            return _intel_gated(m, installer, audio, notes, xgate, keep_installed)
    elif m.nvidia == "unknown" and not m.torch_hip and not platform.startswith("macos"):
        return _undecided(m, platform, installer, audio, notes)
    if (jetson := data.jetson_gpu(m)) is not None:
        return _jetson(m, jetson, platform, installer, audio, notes, keep_installed)
    libc = data.glibc_cap("torch", platform, m, "")   # "": an index's tags do not settle it
    if libc is not None and not libc.before_confirmed and not (
            keep_installed and m.installed.get("torch") is not None):
        return _glibc_undecided(m, platform, installer, audio, notes, libc)
    libc = data.glibc_cap("torch", platform, m, "torch")
    if m.has_nvidia and m.driver is None and not platform.startswith("macos"):
        return _no_driver(m, platform, installer, audio, notes)
    if m.has_nvidia and any(g.cc is None for g in m.gpus) and not platform.startswith("macos"):
        return _no_arch(m, platform, installer, audio, notes)
    checks: list[Check] = []
    pick: Check | None = None
    rows = _installed_release_first(m) if keep_installed else data.torch_rows()
    for release in rows:
        bad_python = _python_reason(release, m)
        variants = _wanted_variants(release, m, platform)
        if keep_installed and release is rows[0] and m.torch_variant and (
                m.torch_variant in variants or _installed_unlisted(release, m, platform)):
            # the installed build itself comes first when it runs here: nothing to change
            # (a build the data does not list for its release exists: it is installed; its
            # arch list is then its variant's nearest earlier one, said so, unconfirmed)
            if m.torch_variant in variants:
                variants.remove(m.torch_variant)
            variants.insert(0, m.torch_variant)
        if not variants:
            checks.append(Check(release, "-", [Reason(
                "platform", f"torch {release['torch']} has no {PLATFORM_NAMES.get(platform)} "
                "wheel for this machine in the data", release.get("source", ""),
                confirmed(release))] if not xpu_plan.is_target(m) else [Reason(
                "platform", f"the data lists no xpu (Intel GPU) build of torch "
                f"{release['torch']} for {PLATFORM_NAMES.get(platform)}",
                release.get("source", ""), False)]))
            continue
        bad_macos = _macos_reason(release, m, platform)
        bad_libc = None if libc is None or libc.allows(str(release["torch"])) else \
            Reason("platform", libc.text(release["torch"]), libc.source)
        for variant in variants:
            check = _check(release, variant, m, platform)
            if bad_python:
                check.failures.insert(0, bad_python)
            if bad_libc:
                check.failures.insert(0, bad_libc)
            if bad_macos:
                check.failures.insert(0, bad_macos)
            checks.append(check)
            if check.ok and pick is None and confirmed(release):
                pick = check
        if pick is not None:
            break
    if pick is None and xpu_plan.is_target(m):
        return _xpu_none(m, platform, checks, installer, audio, notes, keep_installed)
    if pick is None:
        return _none(m, platform, checks, installer, audio, notes)
    return _suggestion(m, platform, pick, checks, installer, audio, notes, keep_installed)


def _unpaired_companions(release: dict[str, Any], m: Machine, audio: bool) -> list[Reason]:
    """Failures for the installed companions (torchvision, torchaudio) the data pairs with no
    release of this torch: each pins its torch, so moving torch alone would break it."""
    out = []
    have = m.installed.get("torch")
    for name in ("torchvision", "torchaudio"):
        if name not in m.installed or release.get(name) or (name == "torchaudio" and not audio):
            continue
        if have is not None and Version(have.public) == Version(str(release["torch"])):
            continue   # the installed torch itself: nothing moves
        out.append(Reason("installed", f"{name} {m.installed[name]} is installed and pins its "
                          f"torch; the data pairs no {name} release with torch "
                          f"{release['torch']}: install the matching {name} with it, or it "
                          "breaks", release.get("source", ""), False))
    return out


def _python_note(release: dict[str, Any], m: Machine) -> Reason:
    spec = release.get("python", "")
    if m.python is None:
        return Reason("python", f"the snapshot does not state Python; torch {release['torch']} "
                      f"has wheels for Python {spec}", release.get("source", ""), False)
    return Reason("python", f"Python {m.python} is inside torch {release['torch']}'s range "
                  f"{spec}", release.get("source", ""), confirmed(release))


def _index_reason(check: Check, platform: str) -> Reason:
    where = PLATFORM_NAMES.get(platform, platform)
    if platform.startswith("macos"):
        text = f"torch {check.version} for {where} is the CPU/MPS wheel on PyPI"
    elif _from_pypi(check.release, platform):
        text = (f"PyPI carries torch {check.version}'s CPU wheel for {where} and Python "
                f"{check.release.get('python')}")
        return Reason("index", text, check.release.get("python_source", ""),
                      confirmed(check.release))
    elif check.variant not in check.release.get(platform, []):
        # only in keep-installed mode: the installed build is the evidence it exists
        return Reason("index", f"the data does not list a {check.variant} build of torch "
                      f"{check.version} for {where}; the installed one shows it exists",
                      check.release.get("source", ""), False)
    else:
        text = (f"{data.index_url(check.variant)} carries torch {check.version} for {where} "
                f"and Python {check.release.get('python')}")
        if check.variant == xpu_plan.VARIANT and check.release.get("xpu_source"):
            return Reason("index", text, str(check.release["xpu_source"]),
                          confirmed(check.release))
    return Reason("index", text, check.release.get("source", ""), confirmed(check.release))


def _suggestion(m: Machine, platform: str, pick: Check, checks: list[Check], installer: str,
                audio: bool, notes: list[Reason], keep_installed: bool = False) -> Suggestion:
    cmd: str | None
    cmd, reqs, url, cmd_notes = _command(pick, platform, installer, audio)
    reasons = [*notes, _python_note(pick.release, m), _index_reason(pick, platform),
               *pick.notes, *cmd_notes]
    newer = [c for c in checks if c is not pick and not c.ok]
    reasons += _why_not_better(pick, newer, m)
    installed = m.installed.get("torch")
    status = "ok"
    if installed is not None:
        newest = data.torch_rows()[0]
        if installed.release > Version(str(newest["torch"])).release:
            status = "keep"
            reasons.insert(0, Reason("installed", f"installed torch {installed} is newer than "
                                     f"every release in the data ({data.data_as_of()}); keep it "
                                     "unless it fails", newest.get("source", ""), False))
        elif Version(installed.public) == Version(pick.version) and m.torch_variant == pick.variant:
            missing = _missing(reqs, m, pick.variant)
            if not missing:
                status, cmd = "installed", None
                absent = [r.partition("==")[0] for r in reqs[1:] if "==" in r
                          and r.partition("==")[0] not in m.installed]
                text = f"torch {installed} ({pick.variant}) is already installed and runs here"
                text += (f"; {', '.join(absent)} is not installed (add "
                         f"{', '.join(r for r in reqs if r.partition('==')[0] in absent)} if you "
                         "use it)" if absent else ", with its companions: nothing to change")
                reqs = []
                reasons.insert(0, Reason("installed", text, ""))
            else:
                reqs = missing
                cmd = command(missing, url, installer, index_option=_index_option(pick.release)) \
                    if installer != "conda" or url else cmd
                reasons.insert(0, Reason("installed", f"torch {installed} ({pick.variant}) is "
                                         f"already installed; only {', '.join(missing)} is "
                                         "missing or from another build", ""))
        elif Version(installed.public) == Version(pick.version) and cmd is not None \
                and url is not None:
            # pip takes "torch==2.13.0" as met by an installed 2.13.0+cpu: force the other build
            cmd = command(reqs, url, installer, ("--force-reinstall",),
                          _index_option(pick.release))
            reasons.insert(0, Reason("installed", f"torch {installed} is installed as "
                                     f"{m.torch_variant or 'another build'}; the same release "
                                     f"as {pick.variant} replaces it", ""))
    alternatives = _alternatives(m, platform, pick, checks, installer, audio)
    if keep_installed and status == "ok" and installed is not None \
            and m.torch_variant == pick.variant \
            and Version(installed.public).release[:2] == Version(pick.version).release[:2] \
            and Version(installed.public) < Version(pick.version):
        # --keep: the data holds the newest patch of the installed release line; the same build
        # of it runs here, and a patch release has that line's Pythons and builds: keep it
        reasons.insert(0, Reason("installed", f"torch {installed} ({m.torch_variant}) is "
                                 f"installed; the data holds {pick.version}, the newest patch of "
                                 f"its release line, whose {pick.variant} build runs here, so the "
                                 "installed one does too: nothing to change", "", False))
        alternatives.insert(0, Alternative(f"the newest patch of the line: torch {pick.version} "
                                           f"{pick.variant}", version=pick.version,
                                           variant=pick.variant, command=cmd))
        return Suggestion("torch", "installed", version=str(Version(installed.public)),
                          variant=m.torch_variant, reasons=tuple(reasons),
                          alternatives=tuple(alternatives), references=_refs(reasons))
    if status == "ok":
        reasons[:0] = _unpaired_companions(pick.release, m, audio)
    works = _installed_check(m, platform) if status == "ok" and installed is not None \
        and Version(installed.public) != Version(pick.version) else None
    if works is not None and works.ok and installed is not None \
            and Version(installed.public) > Version(pick.version):
        works = None  # an unconfirmed newer release row: nothing true to say about "upgrades"
    if works is not None and not works.ok:
        first = works.failures[0]
        # outside AMD's driver window is unsupported, not proven broken: said as such
        # a GPU build whose GPU side fails still imports and runs on the CPU: said as such
        verdict = "is outside what AMD supports here" if m.has_amd and first.constraint == "gpu" \
            and data.variant_rocm(m.torch_variant or "") is not None else \
            "does not run here on the GPU" if first.constraint in ("driver", "arch", "gpu") \
            else "does not run here"
        reasons.insert(0, Reason("installed", f"the installed torch {installed} "
                                 f"({m.torch_variant}) {verdict}: {first.text}", first.source,
                                 first.confirmed))
    elif works is not None:
        reasons.insert(0, Reason("installed", f"the installed torch {installed} "
                                 f"({m.torch_variant}) already runs here; this upgrades it to "
                                 f"{pick.version} (`envdoctor suggest --keep` keeps it)",
                                 works.release.get("source", ""), confirmed(works.release)))
        alternatives.insert(0, Alternative(f"keep the installed torch {installed} "
                                           f"({m.torch_variant}): it runs here",
                                           version=str(installed), variant=m.torch_variant,
                                           price="not the newest release"))
    if status == "keep":
        alternatives.insert(0, Alternative(f"the newest torch in the data: {pick.version} "
                                           f"{pick.variant}", version=pick.version,
                                           variant=pick.variant, command=cmd))
        return Suggestion("torch", "keep", version=str(installed), variant=m.torch_variant,
                          reasons=tuple(reasons), alternatives=tuple(alternatives),
                          references=_refs(reasons))
    return Suggestion("torch", status, version=pick.version, variant=pick.variant, command=cmd,
                      packages=tuple(reqs), index_url=url, reasons=tuple(reasons),
                      alternatives=tuple(alternatives), references=_refs(reasons))


def _installed_check(m: Machine, platform: str) -> Check | None:
    """The check of the installed torch build (its release row, its variant) on this machine,
    or None when the data has no row for it or the installed build is not on that index."""
    have = m.installed.get("torch")
    if have is None or m.torch_variant is None:
        return None
    base = Version(have.public)
    row = next((r for r in data.torch_rows() if Version(str(r["torch"])).release[:2]
                == base.release[:2]), None)
    if row is None or m.torch_variant not in row.get(platform, []) \
            or _python_reason(row, m) is not None:
        return None
    return _check(row, m.torch_variant, m, platform)


def _missing(reqs: list[str], m: Machine, variant: str) -> list[str]:
    """The pins of ``reqs`` installed as another version or build (local label); a companion
    that is not installed at all is not pushed onto a working torch."""
    out = []
    for req in reqs:
        name, _, want = req.partition("==")
        have = m.installed.get(name)
        if have is None and name != "torch":
            continue
        local = have.local if have is not None else None
        if have is None or Version(have.public) != Version(Version(want).public) \
                or (local is not None and local != variant):
            out.append(req)
    return out


def _refs(reasons: list[Reason]) -> tuple[str, ...]:
    return unique([GET_STARTED, RELEASE_MATRIX, *(r.source for r in reasons)])


def _why_not_better(pick: Check, rejected: list[Check], m: Machine) -> list[Reason]:
    """Why the newer releases and the preferred variants of the pick's release lost."""
    out: list[Reason] = []
    seen: set[str] = set()
    for check in rejected:
        if not confirmed(check.release):
            continue
        for failure in check.failures:
            key = "python" if failure.constraint == "python" else \
                f"{failure.constraint}:{check.variant}"
            if key in seen:
                continue
            seen.add(key)
            out.append(failure)
    return out[:8]


def _needed(check: Check) -> Version:
    """The driver a check failed on: a "driver" failure always records it (``_driver``,
    ``_driver_drives_gpus``), so a missing one is a bug here, not a fact about the machine."""
    if check.driver_needed is None:
        raise ValueError(f"torch {check.version} {check.variant}: driver failure without a floor")
    return check.driver_needed


def _alternatives(m: Machine, platform: str, pick: Check, checks: list[Check], installer: str,
                  audio: bool) -> list[Alternative]:
    out: list[Alternative] = []
    pick_v = Version(pick.version)
    better = [c for c in checks if not c.ok and c.variant != "-"
              and (Version(c.version) > pick_v or c.variant != pick.variant)
              and confirmed(c.release)]
    driver_only = [c for c in better if c.kinds() == {"driver"} and c.driver_needed is not None]
    if driver_only:
        top = [c for c in driver_only if c.version == driver_only[0].version]
        cheapest = min(top, key=_needed)
        for best in [cheapest] + ([top[0]] if top[0] is not cheapest else []):  # smallest, stable
            cmd, *_ = _command(best, platform, installer, audio)
            out.append(Alternative(
                f"upgrade the NVIDIA driver to >= {data.driver_str(_needed(best))} to get "
                f"torch {best.version} {best.variant}", version=best.version, variant=best.variant,
                command=cmd, price=f"driver >= {data.driver_str(_needed(best))}",
                source=best.failures[0].source))
    # a wheel's own ROCm release is always inside the window of that release's kernel driver;
    # "+/- 2 releases of it" only where the data orders that release among the others
    rocm_only = [c for c in better if c.kinds() == {"gpu"}]
    if rocm_only:
        known = [c for c in rocm_only if rocm_plan.known_distance(c.variant, m)]
        best = known[0] if known and Version(known[0].version) >= Version(
            rocm_only[0].version) else rocm_only[0]
        cmd, *_ = _command(best, platform, installer, audio)
        wheel_rocm = data.variant_rocm(best.variant)
        near = " (or within AMD's +/- 2 releases of it)" \
            if rocm_plan.known_distance(best.variant, m) else ""
        out.append(Alternative(
            f"upgrade ROCm and the amdgpu driver to ROCm {wheel_rocm}{near} to get torch "
            f"{best.version} {best.variant}" if m.has_amd else
            f"if this machine's ROCm stack runs {best.variant}: torch {best.version} "
            f"{best.variant}",
            version=best.version, variant=best.variant, command=cmd,
            price=f"ROCm {data.variant_rocm(best.variant)}",
            source=best.release.get("source", "")))
    python_only = [c for c in better if c.kinds() == {"python"}]
    if python_only:
        best = python_only[0]
        cmd, *_ = _command(best, platform, installer, audio)
        out.append(Alternative(
            f"use Python {best.release.get('python')} to get torch {best.version} {best.variant}",
            version=best.version, variant=best.variant, command=cmd,
            price=f"Python {best.release.get('python')}",
            source=best.release.get("source", "")))
    arch_blocked = [c for c in checks if "arch" in c.kinds() and Version(c.version) >= pick_v]
    newest = next((c for c in checks if confirmed(c.release)), None)
    newest_all = [c for c in checks if newest is not None and c.version == newest.version]
    if arch_blocked and newest is not None and Version(newest.version) > pick_v \
            and all("arch" in c.kinds() for c in newest_all):
        sms = ", ".join(sorted({g.sm for g in m.gpus if g.sm}
                               | {g.gfx for g in rocm_plan.gpus(m)[0] if m.has_amd}))
        out.append(Alternative(
            f"this GPU ({sms}) is not supported by any build of the newest torch in the data "
            f"({newest.version}): the last release that runs it is torch {pick.version} "
            f"{pick.variant}", version=pick.version, variant=pick.variant, price="a newer GPU",
            source=arch_blocked[0].failures[-1].source))
    for check in checks:
        if not confirmed(check.release) and check.ok:
            cmd, *_ = _command(check, platform, installer, audio)
            out.append(Alternative(
                f"torch {check.version} {check.variant} would run here but is not confirmed in "
                f"the data (a release candidate as of {data.data_as_of()})", version=check.version,
                variant=check.variant, command=cmd, price="an unconfirmed release",
                source=check.release.get("source", "")))
            break
    return out


def _none(m: Machine, platform: str, checks: list[Check], installer: str, audio: bool,
          notes: list[Reason]) -> Suggestion:
    """No release in the data runs here: the reasons of the newest, and the ways out."""
    if (too_old := _older_than_every_build(m, platform)) is not None:
        return _cpu_for_old_gpu(m, platform, installer, audio, notes, *too_old)
    newest = next((c for c in checks if confirmed(c.release)), None)
    reasons = list(notes)
    if newest is not None:
        for check in checks:
            if check.version == newest.version:
                reasons += check.failures
    oldest = data.torch_rows()[-1]
    reasons = list({(r.constraint, r.text): r for r in reasons}.values())
    reasons.append(Reason("data", f"no torch release in the data (torch {oldest['torch']} to "
                          f"{newest.version if newest else '?'}) runs on this machine",
                          oldest.get("source", "")))
    alternatives = []
    fixable = [c for c in checks if c.failures and c.kinds() <= {"driver", "python"}
               and confirmed(c.release) and c.variant != "-"]
    # a driver upgrade alone (this Python kept) is the cheaper way out when one exists
    fixable.sort(key=lambda c: "python" in c.kinds())
    if fixable:
        best = fixable[0]
        cmd, *_ = _command(best, platform, installer, audio)
        price = " and ".join(
            f"driver >= {data.driver_str(_needed(best))}" if k == "driver" else
            f"Python {best.release.get('python')}" for k in sorted(best.kinds()))
        alternatives.append(Alternative(f"with {price}: torch {best.version} {best.variant}",
                                        version=best.version, variant=best.variant, command=cmd,
                                        price=price, source=best.failures[0].source))
    return Suggestion("torch", "none", reasons=tuple(reasons),
                      alternatives=tuple(alternatives), references=_refs(reasons))


# PyTorch's binaries stopped carrying sm_35 (K40) code with 1.3 ("I switched builds and
# nightlies from 3.5 to only 3.7", pytorch/builder 2aac90bd; K40 failures on 1.3.x: #30532,
# #31319), before the first cp38 release (1.4.0): no build of the data has code for it
OLD_GPU_SOURCE = "https://github.com/pytorch/pytorch/issues/24205"


def _older_than_every_build(m: Machine, platform: str) -> tuple[GpuInfo, str] | None:
    """A GPU older than every torch CUDA build of the data for this platform: no build has
    code it runs (its SASS and PTX are all of a newer architecture), whatever the driver or
    Python. (The GPU and the oldest architecture any build carries), else None."""
    if not m.has_nvidia or platform.startswith("macos"):
        return None
    family = data.matrix_platform(platform)
    lists = [list(r.get("archs", [])) for r in matrix("torch").get("variant", [])
             if r.get("platform", "default") == family and r.get("archs")]
    if not lists:
        return None
    oldest = min((got[1], a) for archs in lists for a in archs if (got := arch_cc(a)))
    for gpu in m.gpus:
        if gpu.cc is None or gpu.sm is None or gpu.cc >= oldest[0]:
            continue
        if all(code_for(archs, gpu.sm) is None for archs in lists):
            return gpu, oldest[1]
    return None


def _cpu_for_old_gpu(m: Machine, platform: str, installer: str, audio: bool,
                     notes: list[Reason], gpu: GpuInfo, oldest: str) -> Suggestion:
    """No torch CUDA build runs this GPU, whatever the driver: the CPU build is the answer."""
    cpu = _plan(replace(m, nvidia="none", gpus=(), driver=None), installer, audio)
    why = Reason("arch", f"no torch CUDA build in the data has code for {gpu.name} "
                 f"({gpu.sm}): the oldest architecture any of them carries is {oldest}, and "
                 "PyTorch's binaries dropped sm_35 with 1.3; no driver upgrade changes that, so "
                 "torch runs on the CPU here", OLD_GPU_SOURCE)
    return replace(cpu, reasons=(*notes, why, *cpu.reasons),
                   references=unique([*cpu.references, OLD_GPU_SOURCE]))


def _undecided(m: Machine, platform: str, installer: str, audio: bool,
               notes: list[Reason]) -> Suggestion:
    """The NVIDIA probe did not answer: the GPU variant cannot be chosen."""
    reasons = [*notes, Reason("gpu", "the snapshot does not say whether this machine has an "
                              "NVIDIA GPU (or which driver): the wheel variant cannot be chosen",
                              "")]
    cpu_machine = Machine(platform, m.python, "none", (), None, m.installed, m.torch_variant,
                          False)
    cpu = _plan(cpu_machine, installer, audio)
    alternatives = []
    if cpu.command:
        alternatives.append(Alternative(f"without a GPU: torch {cpu.version} cpu",
                                        version=cpu.version, variant="cpu", command=cpu.command,
                                        price="no GPU use"))
    alternatives.append(Alternative("rerun `envdoctor suggest torch` where nvidia-smi works, or "
                                    "paste its output with the report", price="more facts"))
    return Suggestion("torch", "undecided", reasons=tuple(reasons),
                      alternatives=tuple(alternatives), references=_refs(reasons))


def _glibc_undecided(m: Machine, platform: str, installer: str, audio: bool,
                     notes: list[Reason], libc: data.GlibcCap) -> Suggestion:
    """This glibc is older than the newer releases' manylinux floor, and whether the older
    releases (tagged for an older glibc, built on a newer one) load here is not stated."""
    row = libc.row
    reasons = [*notes,
               Reason("platform", f"torch {libc.first} and newer: Linux wheels "
                      f"{row['tag']}, which glibc {libc.glibc} cannot load", libc.source),
               Reason("platform", f"torch {libc.last_before} and older are tagged "
                      f"{row['before_tag']}, but PyTorch moved its wheel builds to a newer "
                      f"build image around {libc.last_before}: the tag alone does not say "
                      f"whether they load on glibc {libc.glibc}",
                      str(row.get("before_source", libc.source)), False)]
    alternatives = []
    newer = _plan(replace(m, glibc=None), installer, audio)
    if newer.command:
        alternatives.append(Alternative(
            f"on glibc >= {row['glibc']} (a newer OS, or a container of one): torch "
            f"{newer.version} {newer.variant or ''}".rstrip(), version=newer.version,
            variant=newer.variant, command=newer.command, price=f"glibc >= {row['glibc']}",
            source=libc.source))
    return Suggestion("torch", "undecided", reasons=tuple(reasons),
                      alternatives=tuple(alternatives), references=_refs(reasons))


def _amd_undecided(m: Machine, platform: str, installer: str, audio: bool,
                   notes: list[Reason], gate: rocm_plan.Gate) -> Suggestion:
    """AMD GPUs where the facts or the data cannot choose a ROCm wheel: the reasons, AMD's
    other ways (never a command), and the CPU wheel."""
    # the CPU wheel: without the AMD GPUs and without the installed ROCm torch's pull towards
    # rocm* variants (a HIP build installed would otherwise make this a ROCm answer)
    cpu = _plan(replace(m, amd="none", amd_gpus=(), torch_hip=False), installer, audio)
    if gate.cpu and cpu.status in ("ok", "installed"):
        # no ROCm release supports the GPU(s): the CPU build is the answer, not undecided
        reasons = [*notes, *gate.reasons, *cpu.reasons]
        # the CPU view would call an installed ROCm torch "runs here": not on this GPU
        cpu_alts = tuple(a for a in cpu.alternatives
                         if data.variant_rocm(a.variant or "") is None)
        return replace(cpu, reasons=tuple(reasons),
                       alternatives=(*gate.alternatives, *cpu_alts),
                       references=_refs(reasons))
    alternatives = list(gate.alternatives)
    if cpu.command:
        alternatives.append(Alternative(f"without the GPU: torch {cpu.version} cpu",
                                        version=cpu.version, variant="cpu", command=cpu.command,
                                        price="no GPU use"))
    reasons = [*notes, *gate.reasons]
    return Suggestion("torch", "undecided", reasons=tuple(reasons),
                      alternatives=tuple(alternatives), references=_refs(reasons))


def _jetson(m: Machine, gpu: GpuInfo, platform: str, installer: str, audio: bool,
            notes: list[Reason], keep_installed: bool = False) -> Suggestion:
    """A Jetson module: the aarch64 CUDA wheels are SBSA server builds, NVIDIA's JetPack wheels
    are the GPU install, and the JetPack release that picks one is not in the facts (where
    the board's files say it, envdoctor.suggest.jetson_plan answers)."""
    from envdoctor.suggest import jetson_plan
    if (sbsa := jetson_plan.sbsa_wheel(m)) is not None:
        server = _plan(jetson_plan.sbsa_machine(m, gpu, sbsa), installer, audio,
                       keep_installed)
        return replace(server, reasons=(jetson_plan.sbsa_reason(m, gpu, sbsa),
                                        *server.reasons))
    if m.jetson is not None:
        answer = jetson_plan.torch(m, m.jetson, gpu, notes)
        if answer is not None:
            return answer
    row = data.jetson_row("torch")
    docs = row.get("docs", "")
    reasons = [*notes, Reason(
        "platform", f"{gpu.name}{f' ({gpu.sm})' if gpu.sm else ''} is a Jetson (Tegra integrated) "
        "GPU: the "
        "download.pytorch.org and PyPI aarch64 CUDA wheels are SBSA server builds that do not "
        "run on it; NVIDIA builds PyTorch for each JetPack release", row.get("source", docs)),
        jetson_plan.gpu_reason(m, docs)]
    if (have := m.installed.get("torch")) is not None and m.jetson is None:
        # what is installed cannot be judged without the board's files: say what was not seen
        nvidia = "nv" in (have.local or "")
        kind = "NVIDIA's JetPack build (its +…nv tag)" if nvidia else "installed"
        reasons.append(Reason("installed", f"torch {have} is {kind}; whether it runs here "
                              "depends on the board's JetPack (L4T) release, which the facts do "
                              "not show (cat /etc/nv_tegra_release): "
                              + ("not kept, not judged" if keep_installed else "not judged"),
                              docs, False))
    cpu_machine = replace(m, nvidia="none", gpus=(), driver=None, jetson=None)
    cpu = _plan(cpu_machine, installer, audio)
    alternatives = [Alternative(f"NVIDIA's PyTorch wheel for this JetPack release: {docs}",
                                price="the JetPack release", source=docs)]
    if cpu.command:
        alternatives.append(Alternative(f"without the GPU: torch {cpu.version} cpu",
                                        version=cpu.version, variant="cpu",
                                        command=cpu.command, price="no GPU use"))
    return Suggestion("torch", "undecided", reasons=tuple(reasons),
                      alternatives=tuple(alternatives), references=_refs(reasons))


def _no_driver(m: Machine, platform: str, installer: str, audio: bool,
               notes: list[Reason]) -> Suggestion:
    """An NVIDIA GPU whose driver the snapshot does not state: which CUDA variant runs is
    the driver's to decide, so the answer is undecided, with the install for each floor."""
    reasons = [*notes, Reason("driver", "the snapshot does not state the NVIDIA driver "
                              "(nvidia-smi's header): the CUDA variant cannot be chosen",
                              data.COMPAT_URL, False)]
    alternatives = []
    seen: set[tuple[str | None, str | None]] = set()
    for major in (13, 12, 11):
        floor = data.driver_floor(Version(f"{major}.0"), data.driver_os(m))
        if floor is None:
            continue
        got = _plan(replace(m, driver=floor[0]), installer, audio)
        if got.status != "ok" or (got.version, got.variant) in seen:
            continue
        seen.add((got.version, got.variant))
        need = data.driver_str(floor[0])
        alternatives.append(Alternative(f"with driver >= {need}: torch {got.version} "
                                        f"{got.variant}", version=got.version,
                                        variant=got.variant, command=got.command,
                                        price=f"driver >= {need}", source=floor[1]))
    alternatives.append(Alternative("rerun `envdoctor suggest torch` where nvidia-smi works, or "
                                    "paste its header with the report", price="more facts"))
    return Suggestion("torch", "undecided", reasons=tuple(reasons),
                      alternatives=tuple(alternatives), references=_refs(reasons))


# what the two sides of the CUDA 13 architecture cut run, to price an unknown GPU model
_ARCH_CASES = (("Turing (sm_75) or newer", "7.5"), ("Maxwell, Pascal or Volta", "5.0"))


def _no_arch(m: Machine, platform: str, installer: str, audio: bool,
             notes: list[Reason]) -> Suggestion:
    """An NVIDIA GPU whose model the snapshot does not show: the builds differ in the
    architectures they carry, so the answer is undecided, with the install for each case."""
    names = ", ".join(sorted({g.name for g in m.gpus if g.cc is None}))
    reasons = [*notes, Reason("gpu", f"the compute capability of {names} is not in the "
                              "snapshot (nvidia-smi's GPU rows): the build cannot be chosen",
                              "", False)]
    alternatives = []
    for label, cc in _ARCH_CASES:
        gpus = tuple(g if g.cc is not None else GpuInfo(g.name, Version(cc)) for g in m.gpus)
        got = _plan(replace(m, gpus=gpus), installer, audio)
        if got.status == "ok":
            alternatives.append(Alternative(f"if it is {label}: torch {got.version} "
                                            f"{got.variant}", version=got.version,
                                            variant=got.variant, command=got.command,
                                            price="the GPU model"))
    alternatives.append(Alternative("paste nvidia-smi's GPU rows (or nvidia-smi -L) with the "
                                    "report", price="more facts"))
    return Suggestion("torch", "undecided", reasons=tuple(reasons),
                      alternatives=tuple(alternatives), references=_refs(reasons))


def _intel_gated(m: Machine, installer: str, audio: bool, notes: list[Reason],
                 gate: rocm_plan.Gate, keep_installed: bool) -> Suggestion:
    """Intel GPUs no XPU wheel is the answer for (``gate.cpu``: older integrated graphics, a
    family PyTorch's XPU notes do not list, another platform), or whose model the data cannot
    place: the CPU install with the reasons, or undecided with it as an alternative."""
    cpu = _plan(replace(m, intel_gpus=()), installer, audio, keep_installed)
    if gate.cpu and cpu.status in ("ok", "installed", "keep"):
        reasons = [*notes, *gate.reasons, *cpu.reasons]
        return replace(cpu, reasons=tuple(reasons),
                       alternatives=(*gate.alternatives, *cpu.alternatives),
                       references=_refs(reasons))
    alternatives = list(gate.alternatives)
    if cpu.command:
        alternatives.append(Alternative(f"without the GPU: torch {cpu.version} cpu",
                                        version=cpu.version, variant="cpu", command=cpu.command,
                                        price="no GPU use"))
    reasons = [*notes, *gate.reasons]
    return Suggestion("torch", "undecided", reasons=tuple(reasons),
                      alternatives=tuple(alternatives), references=_refs(reasons))


def _xpu_none(m: Machine, platform: str, checks: list[Check], installer: str, audio: bool,
              notes: list[Reason], keep_installed: bool) -> Suggestion:
    """An XPU target, and no release in the data has an XPU wheel for this Python: the CPU
    install, saying why, with the XPU wheel a change (another Python) would get."""
    out = _none(m, platform, checks, installer, audio, notes)
    cpu = _plan(replace(m, intel_gpus=()), installer, audio, keep_installed)
    py = f"Python {m.python}" if m.python is not None else "this Python (not stated)"
    why = Reason("gpu", "no torch release in the data has an XPU wheel "
                 f"(download.pytorch.org/whl/xpu) for {py} on {PLATFORM_NAMES.get(platform)}: "
                 "the CPU build runs here, the Intel GPU goes unused", xpu_plan.NOTES, False)
    if cpu.status not in ("ok", "installed", "keep"):
        return out
    reasons = [*notes, why, *cpu.reasons]
    return replace(cpu, reasons=tuple(reasons),
                   alternatives=(*out.alternatives, *cpu.alternatives),
                   references=_refs(reasons))
