"""Partial facts from one parser, and the merge of several into one ``Facts`` snapshot.

A pasted report rarely says everything: a ``collect_env`` has torch and the driver but no pip
list, an ``nvidia-smi`` table has only the driver and the GPUs. Each parser fills a ``Partial``
with what its text states, keyed ``section.field``. ``merge`` keeps, for each key, the value
from the most specific source (highest ``rank``; a tie keeps the first seen), and marks a
section ``ok`` only when some parser stated something in it. Sections nobody stated stay
``unknown`` so the rules that need them are *unknown*, never findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from packaging.version import Version

from envdoctor.facts import (
    AmdGpu,
    AppleFacts,
    CudaFacts,
    EXTENSION_BUILD,
    CudaToolkit,
    Distribution,
    EnvFacts,
    Facts,
    FrameworkFacts,
    Gpu,
    HostFacts,
    JaxBuild,
    JetsonFacts,
    KerasInfo,
    Library,
    LibraryFacts,
    NvidiaFacts,
    PackageFacts,
    ProbeInfo,
    RocmFacts,
    Status,
    TensorflowBuild,
    TorchBuild,
)
from envdoctor.facts.states import only_stated, unobserved_field
from envdoctor.matrices.tensorflow import distributions as tf_distributions
from envdoctor.parsers import gpus as gpu_table
from envdoctor.versions import canonical_name as canonicalize_name
from envdoctor.versions import ver

ORIGIN = "report"
JAX_PLUGIN_PREFIXES = ("jax-cuda", "jax-rocm", "jax-metal", "libtpu")
NVIDIA_STATED = ("driver_version", "cuda_driver_version", "kernel_module_version")
FRAMEWORK_RECORDS = ("torch", "tensorflow", "jax", "keras", "paddle", "mindspore", "mxnet")


@dataclass
class Partial:
    """What one parser read from one report."""

    source: str
    rank: int = 50
    values: dict[str, Any] = field(default_factory=dict)
    gpus: list[Gpu] = field(default_factory=list)
    packages: dict[str, Version | None] = field(default_factory=dict)
    libraries: list[Library] = field(default_factory=list)
    absent: dict[str, str] = field(default_factory=dict)   # section -> why it is "not_found"
    live: dict[str, dict[str, Any]] = field(default_factory=dict)
    # what a person wrote (prose, an issue form), not what a tool printed: its facts are
    # *stated in text* (envdoctor.facts.states.State.STATED)
    stated: bool = False

    def set(self, key: str, value: Any) -> None:
        """State ``section.field = value``; empty values and second statements are ignored."""
        if value is None or value == "" or value == ():
            return
        if key == "host.python_version" and not _plausible_python(value):
            return  # "Python version: 3.68" (3.6.8 typed without its dot): not read
        self.values.setdefault(key, value)

    def package(self, name: str, version: Version | None) -> None:
        if not name:
            return
        key = canonicalize_name(name)
        if key not in self.packages or (self.packages[key] is None and version is not None):
            self.packages[key] = version

    def observe(self, framework: str, key: str, value: Any) -> None:
        """A runtime observation the report states (``Is CUDA available: False``)."""
        if value is None or value == "":
            return
        self.live.setdefault(framework, {}).setdefault(key, value)

    def __bool__(self) -> bool:
        return bool(self.values or self.gpus or self.packages or self.libraries or self.absent
                    or self.live)


def _plausible_python(value: Any) -> bool:
    """A Python release that exists or may soon: 2.0-2.7, 3.0-3.29. A typed "3.68" or "3.610"
    names no release, so a check would judge a Python nobody has."""
    release = getattr(value, "release", None)
    if not release or len(release) < 2:
        return True
    major, minor = release[0], release[1]
    return (major == 2 and minor <= 7) or (major == 3 and minor < 30) or major not in (2, 3)


# ---------------------------------------------------------------------------- merging
def merge(parts: list[Partial]) -> Facts | None:
    """One snapshot from the partial facts of every parser that recognised something."""
    parts = [p for p in parts if p]
    if not parts:
        return None
    order = sorted(range(len(parts)), key=lambda i: (-parts[i].rank, i))
    ranked = [parts[i] for i in order]
    values: dict[str, Any] = {}
    who: dict[str, str] = {}
    for part in ranked:
        for key, value in part.values.items():
            if key not in values:
                values[key] = value
                who[key] = part.source
    packages: dict[str, Version | None] = {}
    for part in ranked:
        for name, version in part.packages.items():
            if name not in packages or (packages[name] is None and version is not None):
                packages[name] = version
    gpu_part = next((p for p in ranked if p.gpus), None)
    # a capability another source observed for a GPU of that name (torch's "Found GPU0 Tesla
    # K20m which is of cuda capability 3.5") fills the table's blank, before any name lookup
    seen_cc = {g.name: g.cc for part in ranked for g in part.gpus if g.cc is not None}
    if gpu_part is not None and any(g.cc is None and g.name in seen_cc for g in gpu_part.gpus):
        gpu_part = replace(gpu_part, gpus=[g if g.cc is not None else
                                           replace(g, cc=seen_cc.get(g.name)) for g in
                                           gpu_part.gpus])
    live: dict[str, dict[str, Any]] = {}
    for part in ranked:
        for fw, obs in part.live.items():
            for key, value in obs.items():
                live.setdefault(fw, {}).setdefault(key, value)

    sources = _Sources(who, ranked)
    if gpu_part is not None:
        sources.add("nvidia", gpu_part.source)
    for part in ranked:
        if part.packages:
            sources.add("packages", part.source)
        if part.libraries:
            sources.add("libraries", part.source)

    facts = Facts(origin=ORIGIN, live=_live(live, ranked, values,
                                            len(gpu_part.gpus) if gpu_part else 0))
    facts = replace(
        facts,
        host=_host(values, sources),
        apple=_apple(values, sources),
        nvidia=_nvidia(values, gpu_part.gpus if gpu_part else [], sources),
        cuda=_cuda(values, sources),
        libraries=_libraries(ranked, sources),
        packages=_packages(packages, sources),
        frameworks=_frameworks(values, packages, sources, _lists_jax_packages(ranked),
                               torch_saw_cuda=live.get("torch", {}).get("cuda_available") is True),
        env=_env(values, sources),
        jetson=_jetson(values, sources),
        rocm=_rocm(values, sources),
    )
    wrote = {p.source for p in ranked if p.stated}
    return _mark_stated(facts, {k: v for k, v in who.items() if v in wrote},
                        gpu_part.source if gpu_part is not None and gpu_part.stated else "")


# how a stated fact's parser is named in the report
STATED_SOURCES = {"informal": "prose", "system_info": "an issue form"}
# a key's field -> the facts path it fills, where the two differ
_FILLS = {"cuda.toolkit_version": "cuda.toolkits", "cuda.nvcc_version": "cuda.nvcc_version"}


def _mark_stated(facts: Facts, who: dict[str, str], gpu_source: str) -> Facts:
    """Each field a person's text stated is marked *stated* (``ProbeInfo.sources``), so rules
    read it like an observed one and the report can say where it came from."""
    from envdoctor.facts.states import STATED_PREFIX
    marks: dict[str, dict[str, str]] = {}
    for key, source in who.items():
        section, _, rest = _FILLS.get(key, key).partition(".")
        marks.setdefault(section, {})[rest] = \
            f"{STATED_PREFIX} ({STATED_SOURCES.get(source, source)})"
    if gpu_source:
        marks.setdefault("nvidia", {})["gpus"] = \
            f"{STATED_PREFIX} ({STATED_SOURCES.get(gpu_source, gpu_source)})"
    for section, paths in marks.items():
        if section not in ("host", "nvidia", "cuda", "frameworks", "env"):
            continue
        sec = getattr(facts, section)
        if sec.probe.status is not Status.OK:
            continue
        probe = replace(sec.probe, sources={**sec.probe.sources, **paths})
        facts = replace(facts, **{section: replace(sec, probe=probe)})
    return facts


def _only(section: Any, stated: set[str]) -> Any:
    """``section`` with every field the report did not state marked as not observed.

    A pasted report says what it shows, nothing more: a ``collect_env`` names torch but not
    TensorFlow, so ``frameworks.tensorflow`` is *not observed* (a rule asking whether
    TensorFlow is installed gets unknown), never ``None`` = "confirmed not installed". Only a
    section that answered carries marks; one nobody stated is ``unknown`` as a whole.
    """
    if section.probe.status is not Status.OK:
        return section
    return only_stated(section, stated)


def _stated(got: dict[str, Any]) -> set[str]:
    return set(got)


class _Sources:
    """Which parsers stated something in each section, and which said it is absent."""

    def __init__(self, who: dict[str, str], ranked: list[Partial]):
        self.by_section: dict[str, list[str]] = {}
        for key, source in who.items():
            self.add(key.split(".", 1)[0], source)
        self.absent: dict[str, tuple[str, str]] = {}
        for part in ranked:
            for section, reason in part.absent.items():
                self.absent.setdefault(section, (part.source, reason))

    def add(self, section: str, source: str) -> None:
        lst = self.by_section.setdefault(section, [])
        if source not in lst:
            lst.append(source)

    def info(self, section: str, stated: bool) -> ProbeInfo:
        """ok when stated; not_found when a report said so; unknown when nobody looked."""
        if stated:
            names = self.by_section.get(section) or [self.absent.get(section, ("report",))[0]]
            return ProbeInfo(status=Status.OK, reason="from a pasted report",
                             source=ORIGIN + ":" + "+".join(names))
        if section in self.absent:
            source, reason = self.absent[section]
            return ProbeInfo(status=Status.NOT_FOUND, reason=f"pasted report: {reason}",
                             source=f"{ORIGIN}:{source}")
        return ProbeInfo(status=Status.UNKNOWN, reason="not in the pasted report",
                         source=ORIGIN)


def _pick(values: dict[str, Any], prefix: str) -> dict[str, Any]:
    n = len(prefix) + 1
    return {k[n:]: v for k, v in values.items() if k.startswith(prefix + ".")}


HOST_FIELDS = ("os", "distro", "kernel", "arch", "glibc", "python_version",
               "python_executable", "python_implementation", "python_env", "cpu_count",
               "ram_total_gb", "container", "wsl", "cpu_model", "gcc_version", "shm_total_gb")


def _host(values: dict[str, Any], sources: _Sources) -> HostFacts:
    got = {k: v for k, v in _pick(values, "host").items() if k in HOST_FIELDS}
    if got.get("wsl") and got.get("os") == "Windows":
        # "OS: Windows 11" next to "WSL2: Ubuntu 22.04": which one ran the code is not said
        del got["os"]
    return _only(HostFacts(probe=sources.info("host", bool(got)), **got), _stated(got))


def _apple(values: dict[str, Any], sources: _Sources) -> AppleFacts:
    """A Mac's facts from what a report says of its host: the macOS release ("OS: macOS 13.2.1
    (x86_64)", sw_vers), the CPU (collect_env's "CPU: Apple M2 Pro", read from sysctl) and the
    Python's own machine (the arch in collect_env's OS and "Python platform" lines is
    platform.machine() of the Python that ran it: x86_64 on an Apple CPU is Rosetta 2).
    Not a Mac, or nothing said: unknown as a whole."""
    if values.get("host.os") != "Darwin":
        return AppleFacts(probe=sources.info("apple", False))
    got: dict[str, Any] = {}
    m = re.match(r"macOS (\d+(?:\.\d+){0,2})$", str(values.get("host.distro") or ""))
    if m:
        got["macos_version"] = ver(m.group(1))
    cpu = str(values.get("host.cpu_model") or "")
    if cpu:
        got["cpu_brand"] = cpu
        if cpu.startswith("Apple M"):
            got["apple_silicon"] = True
        elif cpu.startswith("Intel"):
            got["apple_silicon"] = False
    arch = str(values.get("apple.python_machine") or values.get("host.arch") or "")
    if arch:
        got["python_machine"] = "x86_64" if arch in ("x86_64", "amd64") else arch
        if got["python_machine"] == "arm64" and "apple_silicon" not in got:
            got["apple_silicon"] = True  # arm64 code runs on Apple silicon only
    if values.get("apple.apple_silicon") is True and "apple_silicon" not in got:
        got["apple_silicon"] = True  # "Apple silicon" / an M-series chip named in the text
    if isinstance(values.get("apple.translated"), bool):
        got["translated"] = values["apple.translated"]  # `sysctl sysctl.proc_translated`
    return _only(AppleFacts(probe=sources.info("apple", bool(got)), **got), _stated(got))


def _rocm(values: dict[str, Any], sources: _Sources) -> RocmFacts:
    """The AMD GPU and the ROCm release a report names (prose or collect_env's GPU line): the
    GPU's gfx target is the one the report prints, else the one AMD's table lists for that
    name; everything else of the ROCm stack (driver, /dev/kfd, groups) is not observed."""
    name = str(values.get("rocm.gpu_name") or "")
    version = values.get("rocm.version")
    listed = values.get("rocm.gpus") or ()  # (name, gfx) per GPU agent, from rocminfo
    module = values.get("rocm.kernel_module")
    kfd = values.get("rocm.kfd")  # `ls -l /dev/kfd /dev/dri` (and `id`/`groups`)
    smi_error = str(values.get("rocm.smi_error") or "")  # an AMD tool saying it sees no GPU
    zluda = values.get("rocm.zluda")  # "[ZLUDA]" after the device's name, ZLUDA's banner
    if not name and version is None and not listed and module is None and kfd is None \
            and not smi_error and zluda is None:
        return RocmFacts(probe=sources.info("rocm", False))
    got: dict[str, Any] = {}
    if listed:
        got["gpus"] = tuple(AmdGpu(index=i, name=n, gfx=g) for i, (n, g) in enumerate(listed))
    elif name:
        gfx = str(values.get("rocm.gpu_gfx") or "")
        if not gfx:
            from envdoctor.matrices.rocm import gfx_rows
            gfx = next((str(r.get("target", "")) for r in gfx_rows()
                        if name.lower() in (g.lower() for g in r.get("gpus", []))), "")
        if not gfx:  # a product the support table does not list (RX 580: gfx803)
            from envdoctor.matrices.rocm import target_of_name
            gfx = target_of_name(name) or ""
        got["gpus"] = (AmdGpu(index=0, name=name, gfx=gfx),)
    if version is not None:
        got["version"] = version
    if module is not None:
        got["kernel_module"] = bool(module)
    if values.get("rocm.driver_version"):
        got["driver_version"] = str(values["rocm.driver_version"])
    if smi_error:
        got["smi_error"] = smi_error
    if zluda is not None:
        got["zluda"] = bool(zluda)
    if kfd is not None:
        got["kfd"] = kfd
        got["render_nodes"] = tuple(values.get("rocm.render_nodes") or ())
        for key in ("user", "user_groups"):
            if values.get(f"rocm.{key}") is not None:
                got[key] = values[f"rocm.{key}"]
    return only_stated(RocmFacts(probe=sources.info("rocm", True), **got), set(got))


def _jetson(values: dict[str, Any], sources: _Sources) -> JetsonFacts:
    """A Jetson where the report shows L4T's kernel ("Python platform: Linux-5.15.148-tegra-
    aarch64-…") or names the module, its JetPack or L4T ("jetson TX2", "JetPack 5.1.5"): those
    are observed, everything else of the board is not; unknown when the report shows none of
    them (a report never says "not a Jetson")."""
    kernel = str(values.get("host.kernel", ""))
    said = {k: values[f"jetson.{k}"] for k in ("model", "soc", "jetpack", "l4t", "board")
            if values.get(f"jetson.{k}")}
    if "l4t" in said and values.get("jetson.board"):
        said["l4t_source"] = "nv_tegra_release"
    if kernel.endswith("-tegra"):
        said["kernel"] = kernel
    elif str(values.get("host.arch", "")).lower() in ("x86_64", "amd64") or \
            values.get("host.os") in ("Windows", "Darwin"):
        return JetsonFacts()  # a Jetson named in prose, but the report ran elsewhere
    if not said:
        return JetsonFacts()
    return only_stated(JetsonFacts(probe=sources.info("host", True), **said), set(said))


def _nvidia(values: dict[str, Any], gpus: list[Gpu], sources: _Sources) -> NvidiaFacts:
    got = _pick(values, "nvidia")
    fields = {k: got[k] for k in ("driver_version", "cuda_driver_version",
                                  "kernel_module_version", "nvml_error", "pci_devices")
              if k in got}
    gpus = [g if g.cc is not None else replace(g, cc=gpu_table.cc_of(g.name)) for g in gpus]
    stated = bool(gpus) or any(k in fields for k in ("driver_version", "cuda_driver_version",
                                                     "kernel_module_version"))
    if not stated and "nvml_error" in fields:
        return NvidiaFacts(probe=ProbeInfo(Status.NOT_FOUND,
                                           "pasted report: " + fields["nvml_error"],
                                           source=ORIGIN), **fields)
    if gpus and "pci_devices" not in fields:
        # A GPU the report names is on the bus; saying so keeps "toolkit but no GPU" (CUDA001)
        # from firing when a template names the GPU but not the driver.
        fields["pci_devices"] = len(gpus)
    facts = NvidiaFacts(probe=sources.info("nvidia", stated), gpus=tuple(gpus), **fields)
    if not stated:
        return facts
    # the GPU list and the driver are what absence rules read ("no GPU", "no driver"): a
    # report that does not state them has not observed them
    unseen = [f for f in NVIDIA_STATED if f not in fields] + ([] if gpus else ["gpus"])
    return unobserved_field(facts, *unseen) if unseen else facts


def _cuda(values: dict[str, Any], sources: _Sources) -> CudaFacts:
    got = _pick(values, "cuda")
    nvcc = got.get("nvcc_version")
    toolkits = []
    if nvcc is not None:
        toolkits.append(CudaToolkit(version=nvcc, path=got.get("nvcc_path", ""),
                                    source="nvcc", how="nvcc --version (pasted)"))
    stated_tk = got.get("toolkit_version")
    if stated_tk is not None and (nvcc is None or stated_tk.release[:2] != nvcc.release[:2]):
        toolkits.append(CudaToolkit(version=stated_tk, source="report",
                                    how="stated in the report"))
    built = got.get("extension_cuda")
    if built is not None and nvcc is not None and nvcc.release[:2] == built.release[:2]:
        # the nvcc the report shows is the one an installed extension's ops were compiled with
        toolkits[0] = replace(toolkits[0], source=EXTENSION_BUILD,
                              how=_built_how(got.get("extension_build", "")))
    stated = bool(toolkits)
    return CudaFacts(probe=sources.info("cuda", stated), nvcc_version=nvcc,
                     nvcc_path=got.get("nvcc_path", "") if stated else "",
                     toolkits=tuple(toolkits))



def _built_how(name: str) -> str:
    if name == "source":
        return "the text builds a CUDA extension from source with this nvcc"
    who = {"mmdet": "mmdet", "mmdetection": "mmdet", "mmcv": "mmcv"}.get(name, name or "the extension")
    return f"{who}'s environment report: its CUDA ops were compiled with this CUDA"


def _libraries(ranked: list[Partial], sources: _Sources) -> LibraryFacts:
    libs: list[Library] = []
    seen = set()
    for part in ranked:
        for lib in part.libraries:
            key = (lib.name, lib.version, lib.path)
            if key not in seen:
                seen.add(key)
                libs.append(lib)
    # the libraries a report names are some of those installed, never all of them
    return _only(LibraryFacts(probe=sources.info("libraries", bool(libs)),
                              libraries=tuple(libs)), set())


def _packages(packages: dict[str, Version | None], sources: _Sources) -> PackageFacts:
    from envdoctor.probes.packages import find_conflicts
    dists = tuple(Distribution(name=n, version=v) for n, v in sorted(packages.items()))
    facts = PackageFacts(probe=sources.info("packages", bool(dists)), distributions=dists,
                         conflicts=find_conflicts(dists))
    # what a report lists is some of the installed distributions (collect_env keeps a few
    # names, a pasted `pip list` is often grepped or cut): `has('torch')` is True when
    # listed, `has('tqdm')` is unknown, never "not installed"
    return unobserved_field(facts, "distributions") if dists else facts


def _local_cuda(version: Version | None) -> Version | None:
    """``2.4.1+cu121`` -> 12.1, ``+cu92`` -> 9.2; None for +cpu, +rocm, no label."""
    if version is None or not version.local:
        return None
    m = re.match(r"^cu(\d{2,3})$", version.local)
    if not m:
        return None
    digits = m.group(1)
    return Version(f"{digits[:-1]}.{digits[-1]}")


def _pypi_cpu_wheel(version: Version | None, values: dict[str, Any]) -> bool:
    """A bare torch version where the report shows Windows, macOS or aarch64: PyPI serves CPU
    wheels there, so the build is known. Anywhere else a bare version says nothing of it, and
    neither does it on a Jetson: NVIDIA's JetPack 4 wheels (1.10.0) and the Jetson AI Lab's
    (2.8.0) are CUDA builds with bare versions."""
    if version is None or version.local or version.is_devrelease:
        return False
    if any(values.get(f"jetson.{k}") for k in ("model", "jetpack", "l4t")) or \
            str(values.get("host.kernel", "")).endswith("-tegra"):
        return False
    return values.get("host.os") in ("Windows", "Darwin") or \
        str(values.get("host.arch", "")).lower() in ("aarch64", "arm64")


def _pypi_default_cuda(version: Version | None, values: dict[str, Any]) -> Version | None:
    """A bare ``torch 2.3.1`` (pip list, freeze, banners) on Linux x86_64 is PyPI's default
    wheel, a CUDA build (cu121 for 2.3): the torch matrix's ``pypi_default``. Without this a
    pip list next to an nvidia-smi table reads as a CPU build (TORCH001 false alarm).

    None when the OS is Windows or macOS (PyPI wheels there are CPU builds), on aarch64, for
    a version with any local label (+cpu, +git…), or when the matrix has no row.
    """
    if version is None or version.local or version.is_devrelease:
        return None
    if values.get("host.os") in ("Windows", "Darwin") or \
            str(values.get("host.arch", "")).lower() in ("aarch64", "arm64"):
        return None
    from envdoctor.matrices.torch import lookup_torch_pypi_legacy, lookup_torch_release
    row = lookup_torch_release(version) or lookup_torch_pypi_legacy(version)
    m = re.match(r"^cu(\d{2,3})$", str((row or {}).get("pypi_default", "")))
    return Version(f"{m.group(1)[:-1]}.{m.group(1)[-1]}") if m else None


def _local_rocm(version: Version | None) -> Version | None:
    if version is None or not version.local:
        return None
    m = re.match(r"^rocm(\d+(?:\.\d+)*)$", version.local)
    return Version(m.group(1)) if m else None


def _lists_jax_packages(ranked: list[Partial]) -> bool:
    """Whether a package listing (pip list/freeze, conda list) names jax or jaxlib: only then
    does a missing jax-cuda plugin in it mean the plugin is not installed."""
    return any(p.source == "packages" and ("jax" in p.packages or "jaxlib" in p.packages)
               for p in ranked)


def _frameworks(values: dict[str, Any], packages: dict[str, Version | None],
                sources: _Sources, jax_listed: bool = False,
                torch_saw_cuda: bool = False) -> FrameworkFacts:
    """Framework builds the report states. What decides a verdict and was not stated is marked
    not observed: a bare ``torch 2.5.1`` says nothing of the CUDA build (``torch.cuda``
    not observed, not "CPU-only"), a ``jax.print_environment_info()`` block lists no plugins
    (``jax.plugins`` not observed, not "none"), and a framework it does not name at all is
    not observed either, unless the report says it is not installed."""
    t = _pick(values, "frameworks.torch")
    tf = _pick(values, "frameworks.tensorflow")
    jx = _pick(values, "frameworks.jax")
    ks = _pick(values, "frameworks.keras")
    said: set[str] = {name for name in FRAMEWORK_RECORDS
                      if values.get(f"frameworks.{name}") is False}  # "not installed"
    unseen: list[str] = []
    torch = None
    version = t.get("version") or packages.get("torch")
    if version is not None or t:
        cuda = t.get("cuda") or _local_cuda(version)
        hip = t.get("hip") or _local_rocm(version)
        cpu = bool(t.get("cpu_only") or (version is not None and version.local
                                         and version.local.startswith("cpu")))
        if not cpu and cuda is None and hip is None and t.get("said_no_cuda"):
            cpu = True  # "Torch not compiled with CUDA enabled", and no build stated otherwise
        if cpu:
            cuda = None
        elif cuda is None and hip is None:
            cuda = _pypi_default_cuda(version, values)
        # a bare version on Windows/macOS is PyPI's CPU wheel, unless torch itself said CUDA is
        # available (an ultralytics banner's "torch-1.13.0 CUDA:0" drops the +cu117 label)
        known = cpu or cuda is not None or hip is not None or \
            (not torch_saw_cuda and _pypi_cpu_wheel(version, values))
        torch = TorchBuild(version=version, cuda=cuda, hip=hip)
        unseen += [] if known else ["torch.cuda", "torch.hip"]
        unseen += [] if version is not None else ["torch.version"]  # it only printed
    tensorflow = None
    dist = tf.get("distribution") or next((n for n in tf_distributions() if n in packages), "")
    tf_version = tf.get("version") or (packages.get(dist) if dist else None)
    if tf_version is not None or tf:  # tf "ran": TensorFlow printed
        tensorflow = TensorflowBuild(
            version=tf_version, distribution=dist or "tensorflow",
            is_cuda_build=tf.get("is_cuda_build"), is_rocm_build=tf.get("is_rocm_build"),
            cuda=tf.get("cuda"), cudnn=tf.get("cudnn"),
            compute_capabilities=tuple(tf.get("compute_capabilities", ())))
        unseen += [] if tf_version is not None else ["tensorflow.version"]  # it only printed
    jax = None
    jax_v = jx.get("version") or packages.get("jax")
    jaxlib_v = jx.get("jaxlib") or packages.get("jaxlib")
    listed = packages.get("jaxlib")
    if jaxlib_v is not None and listed is not None and listed.local and not jaxlib_v.local \
            and listed.public == jaxlib_v.public:
        jaxlib_v = listed  # "jaxlib==0.1.61+cuda111" in a pip command: the build tag too
    if jax_v is not None or jaxlib_v is not None or jx.get("ran"):  # ran: JAX printed
        plugins = tuple(Distribution(name=n, version=v) for n, v in sorted(packages.items())
                        if n.startswith(JAX_PLUGIN_PREFIXES))
        conda = jx.get("conda_build")  # conda-forge's jaxlib says its variant itself
        if conda == "cpu" and not plugins:
            jax_listed = True  # a CPU jaxlib and no plugin: no CUDA backend, observed
        elif conda == "cuda" and jaxlib_v is not None and not jaxlib_v.local:
            jaxlib_v = Version(f"{jaxlib_v.public}+cuda")
        jax = JaxBuild(version=jax_v, jaxlib=jaxlib_v, plugins=plugins)
        unseen += [] if jax_v is not None else ["jax.version"]
        unseen += [] if jaxlib_v is not None else ["jax.jaxlib"]
        unseen += [] if jax_listed or plugins else ["jax.plugins"]
    keras = None
    keras_v = ks.get("version") or packages.get("keras") or packages.get("keras-nightly")
    if keras_v is not None:
        keras = KerasInfo(version=keras_v, backend=ks.get("backend", ""),
                          backend_source="report" if ks.get("backend") else "")
    stated = any(x is not None for x in (torch, tensorflow, jax, keras)) or bool(said)
    names = []
    for src in (sources.by_section.get("frameworks", []) + sources.by_section.get("packages", [])):
        if src not in names:
            names.append(src)
    info = sources.info("frameworks", stated)
    if stated:
        info = replace(info, source=ORIGIN + ":" + "+".join(names or ["report"]))
    facts = FrameworkFacts(probe=info, torch=torch, tensorflow=tensorflow, jax=jax,
                           keras=keras)
    if not stated:
        return facts
    # a framework the report does not name is not observed (unless it says "not installed")
    unseen += [name for name in FRAMEWORK_RECORDS
               if getattr(facts, name) is None and name not in said]
    return unobserved_field(facts, *unseen) if unseen else facts


def _env(values: dict[str, Any], sources: _Sources) -> EnvFacts:
    got = {k: str(v) for k, v in _pick(values, "env").items()}
    # the variables a report shows are some of the environment, never all of it
    return _only(EnvFacts(probe=sources.info("env", bool(got)), vars=got), set())


def _diagnoses(text: str) -> tuple[Any, ...]:
    """What ``explain`` recognises in a framework's message, as a live worker records it."""
    from envdoctor.live.parse import diagnoses_for
    return diagnoses_for(text)


def _live(observed: dict[str, dict[str, Any]], ranked: list[Partial],
          values: dict[str, Any], gpu_count: int) -> dict[str, Any]:
    """What the report says a framework did at run time, as ``LiveFramework`` entries.

    Only frameworks (torch, tensorflow, jax) become entries; ``cuda_available`` is the
    framework's own answer ("Is CUDA available: False", "(GPU?): … (False)").
    """
    from envdoctor.facts import LiveDevice, LiveFramework
    out: dict[str, Any] = {}
    for name, obs in observed.items():
        if name not in ("torch", "tensorflow", "jax"):
            continue
        sources = [p.source for p in ranked if name in p.live]
        fields: dict[str, Any] = {"name": name}
        imp = obs.get("import")
        if imp == "ok":
            fields["import_ok"] = True
        elif imp == "failed":
            fields["import_ok"] = False
            fields["import_error"] = "the report says it could not be imported"
        if isinstance(obs.get("cuda_available"), bool):
            fields["cuda_available"] = obs["cuda_available"]
        if isinstance(obs.get("gpu_available"), bool):
            fields["cuda_available"] = obs["gpu_available"]
        hip = values.get(f"frameworks.{name}.hip")
        if fields.get("cuda_available") is True and "backend" not in obs:
            # "Is CUDA available: True": the framework saw the GPUs the report lists (or one)
            kind = "rocm" if hip is not None else "cuda"
            fields["devices"] = tuple(LiveDevice(kind=kind, index=i)
                                      for i in range(max(1, min(gpu_count, 64))))
        if name == "torch":
            cuda = values.get("frameworks.torch.cuda")
            version = values.get("frameworks.torch.version")
            local = getattr(version, "local", None) or ""
            if cuda is not None:
                fields["build"], fields["built_cuda"] = "cuda", cuda
            elif hip is not None:
                fields["build"] = "rocm"
            elif values.get("frameworks.torch.cpu_only") or local.startswith("cpu"):
                fields["build"] = "cpu"
        if obs.get("built_cudnn"):
            fields["built_cudnn"] = Version(obs["built_cudnn"])
        if obs.get("cudnn"):
            fields["cudnn"] = Version(obs["cudnn"])
        if obs.get("numpy_abi"):  # printed while it was imported, as a worker's stderr
            fields["warnings"] = tuple(d for d in _diagnoses(str(obs["numpy_abi"]))
                                       if d.code == "ENUMPY001")
        if obs.get("gpu_error"):  # the framework's own words for why it has no GPU
            fields["gpu_error"] = str(obs["gpu_error"])
            fields["diagnoses"] = _diagnoses(str(obs["gpu_error"]))
        if obs.get("arch_list"):
            fields["arch_list"] = tuple(obs["arch_list"])
        if obs.get("cc_range"):
            fields["cc_range"] = tuple(obs["cc_range"])
        backend = obs.get("backend")
        if backend:
            kind = {"gpu": "cuda"}.get(backend, backend)
            count = obs.get("device_count") or 1
            fields["devices"] = tuple(LiveDevice(kind=kind, index=i)
                                      for i in range(min(int(count), 64)))
            if name == "jax":
                fields["cuda_available"] = kind == "cuda"
        if len(fields) == 1:
            continue
        if fields.get("import_ok") is not False:
            fields["version"] = values.get(f"frameworks.{name}.version")
        fields["probe"] = ProbeInfo(status=Status.OK, reason="stated in a pasted report",
                                    source=ORIGIN + ":" + "+".join(sources))
        out[name] = LiveFramework(**fields)
    return out
