"""Installed GPU companions that cannot work on this machine, named in the answer.

An answer that says "already installed: nothing to change" must not leave out a package that
should go: a JAX CUDA plugin on a machine without an NVIDIA GPU (jax loads every installed
plugin at start, and a CUDA one there logs CUDA errors or fails to initialise), a JAX ROCm
plugin without an AMD GPU, a JAX CUDA plugin other than the one the answer installs, or the
nvidia-* CUDA library wheels left on a machine without an NVIDIA GPU where no installed build
loads them. Each is judged only from what the snapshot shows: where it does not say whether
there is a GPU, nothing is called stray.
"""

from __future__ import annotations

import re
from dataclasses import replace

from envdoctor.suggest.machine import Machine
from envdoctor.suggest.model import Reason, Suggestion

# a CUDA plugin installed without a usable GPU: plugin discovery runs CUDA checks at start
# (ERROR logs on a CPU-only box, jax-ml/jax#35384; a crash before #22703's fallback)
PLUGIN_SOURCE = "https://github.com/jax-ml/jax/pull/35384"
JAX_INSTALL = "https://docs.jax.dev/en/latest/installation.html"

_JAX_CUDA = re.compile(r"^jax-cuda(\d+)-(?:plugin|pjrt)$")
_JAX_ROCM = re.compile(r"^jax-rocm\d+-(?:plugin|pjrt)$")
# the CUDA runtime libraries NVIDIA publishes as wheels (-cu12 / -cu11 suffixed, and the
# CUDA 13 ones without a suffix); not nvidia-ml-py and other tools that run without a GPU
_NV_LIB = re.compile(r"^nvidia-(?:cublas|cuda-[a-z]+|cudnn|cufft|cufile|curand|cusolver|"
                     r"cusparse|cusparselt|nccl|nvjitlink|nvtx|nvshmem|npp|nvjpeg)(?:-cu\d+)?$")
_RUNS = ("ok", "installed")   # answers that name the build the machine ends up with


def _no_nvidia(m: Machine) -> str:
    """Why no CUDA code runs here, as the answer says it; "" when the snapshot does not say."""
    if (m.platform or "").startswith("macos"):
        return "macOS runs no CUDA"
    if m.nvidia == "none":
        return "no NVIDIA GPU was observed"
    return ""


def _no_amd(m: Machine) -> str:
    if (m.platform or "").startswith("macos"):
        return "macOS runs no ROCm"
    if m.amd == "none":
        return "no AMD GPU was observed"
    return ""


def uninstall(names: list[str], installer: str) -> str:
    if installer == "uv":
        return f"uv pip uninstall {' '.join(names)}"
    pip = "python -m pip" if installer == "conda" else "pip"
    return f"{pip} uninstall -y {' '.join(names)}"


def _plugin_first(name: str) -> tuple[str, bool]:
    return name.rpartition("-")[0], name.endswith("-pjrt")


def _jax_strays(m: Machine, s: Suggestion) -> list[tuple[list[str], str, str]]:
    """(names, why, source) groups of installed JAX plugins that cannot work here."""
    out: list[tuple[list[str], str, str]] = []
    if m.tpu:
        return out   # the TPU branch names its stray CUDA plugins itself
    cuda = sorted((n for n in m.installed if _JAX_CUDA.match(n)), key=_plugin_first)
    rocm = sorted((n for n in m.installed if _JAX_ROCM.match(n)), key=_plugin_first)
    why = _no_nvidia(m)
    if cuda and why:
        out.append((cuda, f"a CUDA plugin has no use here ({why}); jax loads every installed "
                    "plugin at start, and a CUDA one without a GPU logs CUDA errors or fails to "
                    "initialise", PLUGIN_SOURCE))
    elif cuda and m.has_nvidia and s.status in _RUNS and s.variant:
        keep = re.fullmatch(r"jax\[cuda(\d+)\]", s.variant)
        own = f"jax-cuda{keep.group(1)}-" if keep else None
        off = [n for n in cuda if own is None or not n.startswith(own)]
        if off:
            gets = f"jax {s.version} {s.variant}" if keep else f"jax {s.version} on the CPU"
            out.append((off, f"not the CUDA plugin of this answer ({gets}; the other reasons "
                        "say why that plugin and no other); jax loads every installed plugin at "
                        "start", JAX_INSTALL))
    why = _no_amd(m)
    if rocm and why:
        out.append((rocm, f"a ROCm plugin has no use here ({why}); jax loads every installed "
                    "plugin at start", JAX_INSTALL))
    return out


def _lib_strays(m: Machine, s: Suggestion) -> list[tuple[list[str], str, str]]:
    """The nvidia-* CUDA library wheels, where no NVIDIA GPU is there and nothing installed that
    the snapshot shows loads them (a CUDA torch or a JAX CUDA plugin would: then they stay)."""
    why = _no_nvidia(m)
    libs = sorted(n for n in m.installed if _NV_LIB.match(n))
    if not libs or not why or s.status not in _RUNS or s.variant not in ("cpu", None):
        return []
    if (m.torch_variant or "").startswith("cu"):
        return []   # a CUDA torch imports them; the torch answer says what replaces it
    return [(libs, f"CUDA library wheels, of no use without an NVIDIA GPU ({why})", "")]


def _unsure_plugin(s: Suggestion, m: Machine, installer: str) -> Suggestion | None:
    """A CPU jax "already installed" beside a CUDA plugin, where the snapshot does not say
    whether there is an NVIDIA GPU: neither "nothing to change" nor "stray" is known, so the
    answer is undecided and says what each case asks."""
    cuda = sorted((n for n in m.installed if _JAX_CUDA.match(n)), key=_plugin_first)
    if s.framework != "jax" or s.status != "installed" or s.variant != "cpu" or not cuda \
            or m.nvidia != "unknown" or m.tpu:
        return None
    said = Reason("gpu", f"{', '.join(f'{n} {m.installed[n]}' for n in cuda)} installed: the "
                  "snapshot does not say whether there is an NVIDIA GPU for it (nvidia-smi); "
                  "with one, the jax[cudaN] install of this release is the answer (envdoctor "
                  "suggest jax where nvidia-smi works); without one, remove it "
                  f"({uninstall(cuda, installer)})", PLUGIN_SOURCE, False)
    return replace(s, status="undecided", reasons=(said, *(
        r for r in s.reasons if not r.text.endswith("nothing to change"))))


def with_strays(s: Suggestion, m: Machine, installer: str) -> Suggestion:
    """``s`` with the installed GPU companions that cannot work here named, and its
    "nothing to change" claims withdrawn where something should go."""
    unsure = _unsure_plugin(s, m, installer)
    if unsure is not None:
        return unsure
    groups = _jax_strays(m, s) if s.framework == "jax" else []
    if s.framework in ("torch", "tensorflow", "jax"):
        groups += _lib_strays(m, s)
    if not groups:
        return s
    names = [n for g, _, _ in groups for n in g]
    said = [Reason("installed", f"{', '.join(f'{n} {m.installed[n]}' for n in g)} installed: "
                   f"{why}; remove {'it' if len(g) == 1 else 'them'} "
                   f"({uninstall(g, installer)})", src) for g, why, src in groups]
    reasons = [replace(r, text=r.text[: -len("nothing to change")]
                       + "nothing to install, but remove the stray GPU packages below")
               if r.text.endswith("nothing to change") else r for r in s.reasons]
    at = next((i + 1 for i, r in enumerate(reasons) if r.constraint == "installed"), 0)
    return replace(s, reasons=tuple(reasons[:at] + said + reasons[at:]),
                   remove=tuple(dict.fromkeys(names)),
                   remove_command=uninstall(list(dict.fromkeys(names)), installer))
