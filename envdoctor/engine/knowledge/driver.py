"""The driver against the frameworks installed: can it run the CUDA they were built for?"""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.engine.knowledge._reads import Undetermined, optional, reads, result, some
from envdoctor.engine.knowledge.cuda import OS_READ
from envdoctor.engine.knowledge.torch import MACHINE_READS, planned_torch_command
from envdoctor.facts import FrameworkFacts, LiveFramework
from envdoctor.matrices.cuda import hard_floor, lookup_compat_floor, lookup_min_driver
from envdoctor.matrices.jax import jax_plugin_major
from envdoctor.matrices.tensorflow import lookup_tf_release
from envdoctor.versions import named, ver


def framework_cudas(fw: FrameworkFacts) -> list[tuple[str, Version]]:
    """(what, CUDA version) for each installed framework built for CUDA.

    torch: torch.version.cuda. TensorFlow: its build_info CUDA, else the tested-configuration
    row. JAX: the CUDA major of its plugin (``jax-cuda12-plugin`` -> 12.0: the plugin's floor);
    with no plugin, the CUDA of a jaxlib's own build tag (``0.1.61+cuda111`` -> 11.1,
    ``0.4.7+cuda11.cudnn86`` -> 11.0: the major's floor).
    """
    out: list[tuple[str, Version]] = []
    if fw.torch is not None and fw.torch.cuda is not None:
        out.append((named("torch", fw.torch.version), fw.torch.cuda))
    tf = fw.tensorflow
    if tf is not None and tf.is_cuda_build is not False and tf.version is not None:
        cuda = tf.cuda or ver((lookup_tf_release(tf.version) or {}).get("cuda"))
        if cuda is not None and (tf.is_cuda_build or tf.cuda is not None):
            out.append((f"tensorflow {tf.version}", cuda))
    if fw.jax is not None:
        for major in sorted({m for m in (jax_plugin_major(p.name) for p in fw.jax.plugins) if m}):
            out.append((f"jax-cuda{major}-plugin", Version(f"{major}.0")))
        cuda = jaxlib_build_cuda(fw.jax.jaxlib)
        if cuda is not None and not any(w.startswith("jax-cuda") for w, _ in out):
            out.append((f"jaxlib {fw.jax.jaxlib}", cuda))
    return out


def jaxlib_build_cuda(jaxlib: Version | None) -> Version | None:
    """The CUDA a jaxlib wheel's local tag names: ``cuda111`` -> 11.1, ``cuda92`` -> 9.2,
    ``cuda11.cudnn82`` -> 11 (the major only); None for a CPU jaxlib, a bare ``+cuda`` (conda)
    or no tag."""
    local = (jaxlib.local or "") if jaxlib is not None else ""
    digits = local[4:].split(".")[0] if local.startswith("cuda") else ""
    if not digits.isdigit():
        return None
    if len(digits) == 3:
        return Version(f"{digits[:2]}.{digits[2]}")
    if len(digits) == 2 and digits[0] == "9":
        return Version(f"9.{digits[1]}")
    return Version(digits) if len(digits) == 2 else None


# The signatures of a framework's own "the driver is too old for my CUDA" message (torch's
# "The NVIDIA driver on your system is too old (found version N)"; the CUDA runtime's
# "CUDA driver version is insufficient for CUDA runtime version").
DRIVER_TOO_OLD_SAID = ("ECUDA005", "ECUDA006")


def said_too_old(live: dict[str, Any] | None) -> list[str]:
    """Frameworks that said themselves, when they ran, that the driver is too old for the
    CUDA they were built for (a live worker, or the message pasted in a report), each with
    its words: observed evidence, which stands where the build's CUDA was not observed."""
    out = []
    for name, lf in sorted((live or {}).items()):
        if isinstance(lf, LiveFramework) and \
                any(d.code in DRIVER_TOO_OLD_SAID for d in lf.diagnoses):
            out.append(f"{name}{' ' + str(lf.version) if lf.version else ''} (it says: "
                       f"{lf.gpu_error or lf.diagnoses[0].title})")
    return out


def gpu_usable_said(live: dict[str, Any] | None) -> set[str]:
    """Frameworks that said themselves that their CUDA GPU is usable (torch's "Is CUDA
    available: True", a live worker's answer): observed, so it outranks the matrix's inference
    that the driver is below their CUDA's floor (a data-center GPU can run a newer CUDA on an
    old driver through NVIDIA's forward-compatibility package, which no paste shows)."""
    return {name for name, lf in (live or {}).items()
            if isinstance(lf, LiveFramework) and lf.cuda_available is True}


def driver_gaps(driver: Version | None, fw: FrameworkFacts, os_name: str, below_floor: bool,
                confirmed_only: bool = False, said: list[str] | None = None,
                usable: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Frameworks the driver cannot run (below_floor) or runs only under minor-version
    compatibility (not below_floor), as readable strings. ``said``: frameworks that reported
    the driver too old themselves (``said_too_old``), counted below the floor unless the
    matrix already names them; ``usable``: frameworks that reported their GPU usable
    (``gpu_usable_said``), never below the floor."""
    reported = list(said or ()) if below_floor else []
    if driver is None:
        return reported
    gaps = []
    for what, cuda in framework_cudas(fw):
        if below_floor and what.split(" ")[0] in usable:
            continue
        floor = hard_floor(cuda, os_name)
        bundled = lookup_min_driver(cuda, os_name)
        if what.startswith("jaxlib") and len(cuda.release) > 1:
            # XLA compiles its kernels at run time and links them through the driver
            # (cuLinkAddData), which minor-version compatibility does not cover: a jaxlib
            # built for CUDA 11.1 needs the driver released with 11.1, not just 450.80
            floor = bundled
        if below_floor and floor is not None and driver < floor[0]:
            if not confirmed_only or floor[1]:
                gaps.append(f"{what} (CUDA {cuda} needs driver >= {floor[0]})")
        elif not below_floor and bundled is not None and driver < bundled[0] \
                and (floor is None or driver >= floor[0]) \
                and not what.startswith("jax"):
            gaps.append(f"{what} (CUDA {cuda}: full support from driver {bundled[0]})")
    named = {g.split(" ")[0] for g in gaps}
    return gaps + [r for r in reported if r.split(" ")[0] not in named]



@reads(live=optional("live"))
def driver_reported_too_old(*, live: dict[str, Any] | None) -> list[str]:
    """``driver_reported_too_old()``: see ``said_too_old``; [] when nothing ran or said so."""
    return said_too_old(live)


@reads(driver=optional("nvidia.driver_version"), fw=some("frameworks"), os=OS_READ,
       said=result("driver_reported_too_old", None), live=optional("live"))
def driver_below_floor(*, driver: Version | None, fw: FrameworkFacts, os: str,
                       said: list[str] | None, live: dict[str, Any] | None) -> list[str]:
    """Frameworks whose CUDA major the driver cannot run at all (below the compat floor), and
    those that said so themselves. The driver version is optional: a framework's own "driver
    too old" is evidence without it; with neither, the answer is not known. A framework that
    said its GPU is usable is not below the floor, whatever the matrix infers."""
    if driver is None and not said:
        raise Undetermined("no driver version and no framework's own report")
    return driver_gaps(driver, fw, os, below_floor=True, said=said, usable=gpu_usable_said(live))


@reads(driver=optional("nvidia.driver_version"), fw=some("frameworks"), os=OS_READ,
       said=result("driver_reported_too_old", None), live=optional("live"))
def driver_below_floor_confirmed(*, driver: Version | None, fw: FrameworkFacts,
                                 os: str, said: list[str] | None,
                                 live: dict[str, Any] | None) -> bool:
    """Whether every gap of ``driver_below_floor()`` rests on a confirmed matrix cell (a
    framework's own report is observed, so confirmed)."""
    usable = gpu_usable_said(live)
    every = driver_gaps(driver, fw, os, below_floor=True, said=said, usable=usable)
    kept = driver_gaps(driver, fw, os, below_floor=True, confirmed_only=True, said=said,
                       usable=usable)
    return len(kept) == len(every)


@reads(driver=optional("nvidia.driver_version"),
       cuda_driver=optional("nvidia.cuda_driver_version"))
def driver_label(*, driver: Version | None, cuda_driver: Version | None) -> str | None:
    """The driver as a title shows it: its version, else the CUDA level a framework reported
    for it ("(CUDA 9.1 level)"), else "(version not reported)"."""
    if driver is not None:
        return str(driver)
    return f"(CUDA {cuda_driver} level)" if cuda_driver is not None else "(version not reported)"


@reads(driver="nvidia.driver_version", fw=some("frameworks"), os=OS_READ)
def driver_below_bundled(*, driver: Version | None, fw: FrameworkFacts, os: str) -> list[str]:
    """Frameworks running under minor-version compatibility (driver older than their CUDA's)."""
    return driver_gaps(driver, fw, os, below_floor=False)


@reads(fw=some("frameworks"), os_name=OS_READ, **MACHINE_READS)
def driver_fix(*, fw: FrameworkFacts, os_name: str, **facts: Any) -> str:
    """DRV001's fix: the driver to install (the newest floor among the installed frameworks'
    CUDA majors), and the torch wheel / JAX plugin that runs on the current driver when the
    planner of `envdoctor suggest` (keep-installed mode) finds one for these GPUs; never a
    wheel for a GPU the driver cannot drive."""
    floors = [f for f in (lookup_compat_floor(c, os_name) for _, c in framework_cudas(fw))
              if f is not None]
    need = f" to {max(floors)} or newer" if floors else ""
    how = ("https://www.nvidia.com/Download/index.aspx or the NVIDIA App"
           if os_name.lower().startswith("win") else
           "Ubuntu: sudo ubuntu-drivers install; others: "
           "https://www.nvidia.com/Download/index.aspx")
    line = f"Upgrade the NVIDIA driver{need} ({how})."
    if facts.get("driver") is None:
        return line  # a wheel "for this driver" needs the driver's version
    got = planned_torch_command(**facts) if fw.torch is not None else None
    if got is not None:
        line += "\nOr keep the driver and install a torch built for an older CUDA: " + got
    jax = _jax_for_this_driver(fw, **facts)
    if jax is not None:
        line += "\nOr keep the driver and switch JAX to the CUDA plugin it runs: " + jax
    return line


def _jax_for_this_driver(fw: FrameworkFacts, **facts: Any) -> str | None:
    """The installed JAX release with the CUDA plugin this driver runs (keep-installed
    planner), prefixed by removing the installed plugin of another CUDA major; None when the
    planner keeps the installed plugin or finds none."""
    if fw.jax is None:
        return None
    installed = [p.name for p in fw.jax.plugins if jax_plugin_major(p.name)]
    if not installed:
        return None
    from envdoctor.suggest.lines import command_of, facts_of
    got = command_of(facts_of(**facts), "jax", keep_installed=True)
    wanted = f"[cuda{jax_plugin_major(installed[0])}]"
    if got is None or "[cuda" not in got or wanted in got:
        return None
    majors = sorted({m for n in installed if (m := jax_plugin_major(n))})
    remove = " ".join(f"jax-cuda{m}-plugin jax-cuda{m}-pjrt" for m in majors)
    return f"pip uninstall -y {remove} && {got}"


# The forward-compatibility package (cuda-compat-X-Y) puts a newer user-mode driver (libcuda) on
# LD_LIBRARY_PATH over an older kernel driver. NVIDIA supports that on data-center GPUs and
# select NGC-ready RTX boards only; on GeForce and TITAN cards CUDA refuses it with error 804
# (cudaErrorCompatNotSupportedOnDevice), so every CUDA program fails.
CONSUMER_BOARDS = ("geforce", "titan")


@reads(libs="libraries.libraries", vars="env.vars", nv="nvidia")
def forward_compat_on_consumer_gpu(*, libs: Any, vars: dict[str, str],
                                   nv: Any) -> dict[str, str] | None:
    """``forward_compat_on_consumer_gpu()``: a libcuda newer than the loaded kernel driver in a
    folder LD_LIBRARY_PATH lists (a CUDA forward-compatibility package), on a machine whose
    NVIDIA GPUs are GeForce or TITAN boards -> {lib, version, driver, gpus}; None otherwise
    (no such libcuda, a data-center GPU, or a GPU or driver not seen)."""
    from envdoctor.engine.knowledge.env import on_ld_path
    driver = nv.driver_version
    gpus = [g.name for g in nv.gpus if any(b in (g.name or "").lower() for b in CONSUMER_BOARDS)]
    if driver is None or not gpus or len(gpus) != len(nv.gpus):
        return None
    for lib in libs:
        if lib.name == "libcuda" and lib.version is not None and \
                lib.version.major > driver.major and on_ld_path(lib.path, vars=vars):
            return {"lib": lib.path, "version": str(lib.version), "driver": str(driver),
                    "gpus": ", ".join(dict.fromkeys(gpus))}
    return None
