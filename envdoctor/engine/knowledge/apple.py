"""Apple silicon: whether this Python and the installed frameworks can reach the Mac's GPU
(MPS for torch, the Metal plugins for JAX and TensorFlow), from the apple facts and
rules/matrices/apple.toml (through envdoctor.matrices.apple)."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.engine.knowledge._reads import Read, optional, reads
from envdoctor.engine.knowledge.live import framework_found_no_gpu
from envdoctor.facts import AppleFacts, FrameworkFacts, PackageFacts, TorchBuild
from envdoctor.matrices import apple as table

# frameworks whose wheels are compiled for one CPU: an x86_64 one cannot use the GPU here
COMPILED = ("torch", "jaxlib", "tensorflow", "tensorflow-macos")
# named in a package list or an install command: Apple's packages for the GPU path exist for
# arm64 alone (tensorflow-deps is on the apple channel's osx-arm64 subdir only, tensorflow-metal
# has no x86_64 wheel), so an x86_64 Python asking for them is the harm itself
REQUESTED = COMPILED + ("tensorflow-deps", "tensorflow-metal")


# The apple facts a function reads, field by field: under --root the interpreter's fields are
# not observed (it is not that Mac's Python), which must not make the whole section unknown.
# ``apple.apple_silicon`` is required: nothing is judged where the CPU is not known.
MAC: dict[str, str | Read] = dict(apple_silicon="apple.apple_silicon",
           cpu_brand=optional("apple.cpu_brand", ""),
           translated=optional("apple.translated"),
           python_machine=optional("apple.python_machine", ""),
           python_platform=optional("apple.python_platform", ""),
           wheels=optional("apple.wheels", ()),
           macos_version=optional("apple.macos_version"),
           torch_mps_linked=optional("apple.torch_mps_linked"),
           torch_lib_arch=optional("apple.torch_lib_arch", ""))


def _mac(facts: dict[str, Any]) -> AppleFacts:
    """The fields read (``MAC``) as one record; the rest of the call's keywords are dropped."""
    return AppleFacts(**{k: v for k, v in facts.items() if k in MAC})


def _silicon(a: AppleFacts | None) -> bool:
    return a is not None and bool(a.apple_silicon or a.cpu_brand.startswith("Apple M"))


@reads(silicon=optional("apple.apple_silicon"), brand=optional("apple.cpu_brand", ""))
def apple_machine(*, silicon: bool | None, brand: str) -> bool:
    """``apple_machine()``: the apple facts show an Apple silicon Mac (hw.optional.arm64 = 1
    or an "Apple M…" CPU), where the GPU is reached through MPS / Metal, never CUDA; False
    when the probe did not answer or the Mac is an Intel one."""
    return bool(silicon or (brand or "").startswith("Apple M"))


@reads(t=optional("frameworks.torch"), jax=optional("frameworks.jax"),
       tf=optional("frameworks.tensorflow"),
       dists=Read("packages.distributions", (), partial_ok=True),  # the names a paste shows
       **MAC)
def apple_x86_python(*, t: Any, jax: Any, tf: Any, dists: Any = (),
                     **facts: Any) -> dict[str, str] | None:
    """``apple_x86_python()``: on Apple silicon, this Python runs as x86_64 code (Rosetta 2) and
    frameworks are installed for it -> {how, affected}; None otherwise. Evidence, strongest
    first: sysctl.proc_translated = 1, the interpreter's own machine, x86_64 framework wheels
    or an x86_64 libtorch_cpu.dylib."""
    a = _mac(facts)
    if not _silicon(a):
        return None
    x86 = [w for w in a.wheels if w.name in COMPILED and w.arch == "x86_64"]
    how = ""
    if a.translated:
        how = "sysctl.proc_translated is 1: this Python runs translated by Rosetta 2"
    elif a.python_machine == "x86_64":
        how = f"the interpreter is x86_64 ({a.python_platform or 'platform.machine()'})"
    elif x86 or a.torch_lib_arch == "x86_64":
        how = "its framework wheels are x86_64 builds"
    if not how:
        return None
    affected = [f"{w.name} {w.version} ({w.tags[0] if w.tags else w.arch})" for w in x86]
    if not affected:
        affected = [f"{w.name} {w.version}" for w in a.wheels if w.name in COMPILED]
    if not affected:  # a pasted report names the frameworks, not their wheels
        affected = [f"{name} {b.version}" for name, b in (("torch", t), ("jax", jax),
                                                          ("tensorflow", tf)) if b is not None]
    if not affected:  # or only a package list / an install command names them
        affected = [f"{d.name} {d.version}" if d.version is not None else d.name
                    for d in dists or () if d.name in REQUESTED]
    if not affected:
        return None  # nothing installed that it hurts yet
    return {"how": how, "affected": ", ".join(affected), "cpu": a.cpu_brand or "Apple silicon"}


@reads(t="frameworks.torch", **MAC)
def mps_macos_gap(*, t: TorchBuild | None, **facts: Any) -> dict[str, str] | None:
    """``mps_macos_gap()``: torch on a Mac whose macOS is older than the one its MPS backend
    needs -> {macos, needs, torch, source}; None otherwise (or when the release has no row)."""
    a = _mac(facts)
    if t is None or t.version is None or a.macos_version is None or not _silicon(a):
        return None
    row = table.mps_floor(t.version)
    needs = None if row is None else row.get("macos")
    from envdoctor.versions import ver
    floor = ver(needs)
    if floor is None or a.macos_version >= floor:
        return None
    return {"macos": str(a.macos_version), "needs": str(needs), "torch": str(t.version),
            "source": str(row.get("source", "")) if row else ""}


@reads(version="apple.macos_version")
def torch_mps_fix(*, version: Any) -> str:
    """``torch_mps_fix()``: what to do when macOS is too old for the installed torch's MPS:
    upgrade macOS, or the newest torch whose MPS runs on this macOS."""
    rows = table.mps_floors()
    from envdoctor.versions import ver
    fits = [r for r in rows if version is not None and (f := ver(r.get("macos"))) is not None
            and version >= f]
    if not fits:
        return ("Update macOS to 14 or newer (Apple menu > System Settings > General > "
                "Software Update).")
    spec = str(fits[-1].get("torch", ""))
    cap = next((p[1:] for p in spec.split(",") if p.startswith("<")), "")
    pin = f' or keep this macOS and install a torch that supports it: pip install "torch<{cap}"' \
        if cap else ""
    return f"Update macOS (System Settings > General > Software Update){pin}."


@reads(t="frameworks.torch", live=optional("live", {}), **MAC)
def torch_without_mps(*, t: TorchBuild | None, live: dict[str, Any],
                      **facts: Any) -> str | None:
    """``torch_without_mps()``: an arm64 torch on Apple silicon whose libtorch_cpu.dylib does
    not link MetalPerformanceShaders (built with USE_MPS=0) -> "torch 2.5.0a0 (…)"; None when
    it links it, was not read, or the torch is x86_64 (``apple_x86_python``'s)."""
    a = _mac(facts)
    run = live.get("torch")
    if t is not None and _silicon(a) and getattr(run, "mps_built", None) is False:
        return f"torch {t.version}: torch.backends.mps.is_built() is False"
    if t is None or not _silicon(a) or a.torch_mps_linked is not False:
        return None
    if a.torch_lib_arch == "x86_64" or a.translated:
        return None
    return f"torch {t.version}: torch/lib/libtorch_cpu.dylib does not link MetalPerformanceShaders"


@reads(silicon="apple.apple_silicon", pk="packages", macos=optional("apple.macos_version"))
def jax_metal_mismatch(*, silicon: bool | None, pk: PackageFacts,
                       macos: Version | None) -> dict[str, str] | None:
    """``jax_metal_mismatch()``: jax-metal installed next to a jax or jaxlib outside the
    releases it runs with, or on a macOS older than Apple's table names for it -> {plugin,
    found, needs, pin, remedy, source}; None when they pair, the row is a hint only, the macOS
    is not stated, or jax-metal is absent."""
    plugin = pk.get("jax-metal")
    if plugin is None or plugin.version is None:
        return None
    row = table.plugin_row("jax_metal", plugin.version)
    if row is None:
        return None
    bad = []
    for name in ("jax", "jaxlib"):
        dist = pk.get(name)
        version = dist.version if dist is not None else None
        if table.outside(row, name, version):
            bad.append(f"{name} {version}")
    old_macos = _macos_below(row, macos)
    if not bad and not old_macos:
        return None
    pin = _pin(str(row["jaxlib"]))
    steps = ([f'pip install "jax=={pin}" "jaxlib=={pin}" (the release jax-metal '
              f'{plugin.version} names)'] if bad else []) + \
        ([f"upgrade macOS to {row['macos'][2:]} or later (Apple's jax-metal table)"]
         if old_macos else [])
    return {"plugin": f"jax-metal {plugin.version}", "found": ", ".join(bad + old_macos),
            "needs": ", ".join([f"jax{row['jax']}, jaxlib{row['jaxlib']}"] * bool(bad)
                               + [f"macOS{row['macos']}"] * bool(old_macos)),
            "pin": pin, "remedy": " and ".join(steps),
            "source": str(row.get("macos_source" if old_macos and not bad else "source", ""))}


def _macos_below(row: dict[str, Any], macos: Version | None) -> list[str]:
    """["macOS 13.4.1"] when the stated macOS is below the row's confirmed ``macos`` floor."""
    return [f"macOS {macos}"] if table.outside(row, "macos", macos) else []


def _pin(spec: str) -> str:
    """The release to pin from a plugin's specifier: its ``==`` release, else its lower bound
    (``>=0.4.34,<0.5.1`` -> ``0.4.34``), the one the plugin's own metadata names."""
    parts = [p.strip() for p in spec.split(",")]
    exact = next((p[2:] for p in parts if p.startswith("==")), "")
    low = next((p[2:] for p in parts if p.startswith(">=")), "")
    return exact or low


@reads(silicon="apple.apple_silicon", pk="packages", macos=optional("apple.macos_version"))
def tf_metal_mismatch(*, silicon: bool | None, pk: PackageFacts,
                      macos: Version | None) -> dict[str, str] | None:
    """``tf_metal_mismatch()``: tensorflow-metal installed next to a TensorFlow its plugin
    cannot load into, or on a macOS older than Apple's table names for it -> {plugin, found,
    needs, remedy, source}; None otherwise."""
    plugin = pk.get("tensorflow-metal")
    if plugin is None or plugin.version is None:
        return None
    row = table.plugin_row("tensorflow_metal", plugin.version)
    tf = pk.get("tensorflow") or pk.get("tensorflow-macos")
    if row is None:
        return None
    bad = [f"{tf.name} {tf.version}"] if tf is not None and table.outside(
        row, "tensorflow", tf.version) else []
    old_macos = _macos_below(row, macos)
    if not bad and not old_macos:
        return None
    steps = ([f'pip install "tensorflow{row["tensorflow"]}" (the release tensorflow-metal '
              f'{plugin.version} was built for)'] if bad else []) + \
        ([f"upgrade macOS to {row['macos'][2:]} or later (Apple's tensorflow-metal table)"]
         if old_macos else [])
    return {"plugin": f"tensorflow-metal {plugin.version}", "found": ", ".join(bad + old_macos),
            "needs": ", ".join([f"tensorflow{row['tensorflow']}"] * bool(bad)
                               + [f"macOS{row['macos']}"] * bool(old_macos)),
            "remedy": " and ".join(steps), "source": str(row.get("source", ""))}


def _before_plugins(version: Version) -> bool:
    """A TensorFlow older than device plugins (matrices/apple.toml ``pluggable_device``): no
    tensorflow-metal can exist for it (Apple's 2.4 fork reached the GPU through ML Compute)."""
    first = table.tf_plugin_first()
    return first is not None and version < first


def _blind(jax: Any, tf: Any, names: set[str], listed: bool) -> list[tuple[str, str]]:
    """(framework, what is said of it) for each installed framework without its Metal plugin;
    ``names``: the distributions seen, ``listed``: whether they are a whole listing."""
    missing = "no {}" if listed else "{} not shown"
    out = []
    if jax is not None and "jax-metal" not in names:
        out.append(("jax", f"jax {jax.version} ({missing.format('jax-metal')})"))
    if tf is not None and "tensorflow-metal" not in names \
            and (tf.version is None or not _before_plugins(tf.version)):
        out.append(("tensorflow", f"{tf.distribution or 'tensorflow'} {tf.version} "
                                  f"({missing.format('tensorflow-metal')})"))
    return out


@reads(fw="frameworks", pk="packages", **MAC)
def apple_gpu_blind(*, fw: FrameworkFacts, pk: PackageFacts, **facts: Any) -> str | None:
    """``apple_gpu_blind()``: on Apple silicon, installed frameworks that have no way to the GPU:
    JAX without jax-metal, TensorFlow (2.5 or later) without tensorflow-metal ("jax 0.4.30 (no
    jax-metal)"; "not shown" where the text lists packages only partly); None when every
    installed framework has one (torch's MPS is judged by its own checks)."""
    if not _silicon(_mac(facts)):
        return None
    names = {d.name for d in pk.distributions}
    return ", ".join(said for _, said in _blind(fw.jax, fw.tensorflow, names, True)) or None


@reads(jax=optional("frameworks.jax"), tf=optional("frameworks.tensorflow"),
       dists=Read("packages.distributions", (), partial_ok=True),
       whole=optional("packages.distributions"),
       live=optional("live", {}), **MAC)
def apple_gpu_blind_asked(*, jax: Any, tf: Any, dists: Any, whole: Any,
                          live: dict[str, Any], **facts: Any) -> str | None:
    """``apple_gpu_blind_asked()``: what ``apple_gpu_blind()`` names, kept to the frameworks
    that were themselves asked for their GPUs and answered none (a report's empty
    ``list_physical_devices('GPU')`` / "Num GPUs Available: 0", ``jax.devices()`` with no GPU):
    the user wanted the Apple GPU and no plugin loaded. A partial package list (an install line)
    is enough here: the framework's own empty answer is the evidence, the list only must not
    show the plugin. None otherwise."""
    if not _silicon(_mac(facts)):
        return None
    names = {d.name for d in dists or ()}
    # ``whole``: the listing when it was seen whole (a partial one resolves to None)
    said = [s for name, s in _blind(jax, tf, names, whole is not None)
            if framework_found_no_gpu(name, live=live)]
    return ", ".join(said) or None


@reads(live=optional("live", {}), **MAC)
def mps_unavailable(*, live: dict[str, Any], **facts: Any) -> str | None:
    """``mps_unavailable()``: torch, asked in its own process on Apple silicon, has MPS built
    but not available ("torch 2.9.1: torch.backends.mps.is_available() is False (RuntimeError:
    The MPS backend is supported on macOS 14.0+ …)"); None otherwise. A static run has no
    live facts: never a finding there."""
    run = live.get("torch")
    if run is None or not _silicon(_mac(facts)):
        return None
    if getattr(run, "mps_built", None) is not True or getattr(run, "mps_available", None) \
            is not False:
        return None
    why = getattr(run, "gpu_error", "") or ""
    return (f"torch {run.version}: torch.backends.mps.is_available() is False"
            + (f" ({why[:200]})" if why else ""))


MPS_HIGH_DEFAULT, MPS_LOW_UNIFIED_DEFAULT = 1.7, 1.4


@reads(vars=optional("env.vars", {}), **MAC)
def mps_watermark_problem(*, vars: dict[str, str], **facts: Any) -> str | None:
    """``mps_watermark_problem()``: PYTORCH_MPS_HIGH_WATERMARK_RATIO / _LOW_ values torch's MPS
    allocator refuses at its first allocation ("invalid low watermark ratio 1.4": the low
    ratio, 1.4 by default on unified memory, must not exceed the high one; 0.0 high disables
    the limit) -> what is wrong; None when unset or valid."""
    if not _silicon(_mac(facts)):
        return None
    raw_high = vars.get("PYTORCH_MPS_HIGH_WATERMARK_RATIO")
    raw_low = vars.get("PYTORCH_MPS_LOW_WATERMARK_RATIO")
    if raw_high is None and raw_low is None:
        return None
    try:
        high = float(raw_high) if raw_high is not None else MPS_HIGH_DEFAULT
        low = float(raw_low) if raw_low is not None else MPS_LOW_UNIFIED_DEFAULT
    except ValueError:
        return f"PYTORCH_MPS_*_WATERMARK_RATIO is not a number ({raw_high!r}, {raw_low!r})"
    if high < 0 or low < 0:
        return "a negative PYTORCH_MPS_*_WATERMARK_RATIO"
    if high == 0.0:
        return None  # no upper limit: the low ratio is not compared
    if low > high:
        shown_low = f"PYTORCH_MPS_LOW_WATERMARK_RATIO={raw_low}" if raw_low is not None \
            else f"the default low watermark ratio {MPS_LOW_UNIFIED_DEFAULT}"
        return (f"PYTORCH_MPS_HIGH_WATERMARK_RATIO={raw_high if raw_high is not None else high}"
                f" is below {shown_low}")
    return None
