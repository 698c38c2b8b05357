"""NVIDIA Jetson: which JetPack a board runs, and whether the installed torch is a build that
runs on its Tegra iGPU (rules/matrices/jetson.toml through envdoctor.matrices.jetson).

A board's JetPack is the nvidia-jetpack package where it is installed, else what its L4T
release is part of. The torch builds are told apart by what they carry: NVIDIA's Jetson
wheels have a ``.nv`` local version (``2.5.0a0+872d972e41.nv24.08``) or come from the Jetson AI
Lab index and link the JetPack's CUDA; PyTorch's own aarch64 CUDA wheels are builds for Arm
servers (SBSA) with a ``+cu128`` local version or the nvidia-*-cu12 library wheels beside them.
Before JetPack 7 those do not run on the iGPU; on JetPack 7 (Thor, SBSA-aligned) they do.
"""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.engine.knowledge._reads import Undetermined, optional, reads
from envdoctor.facts import (
    CudaFacts,
    DeviceNode,
    Distribution,
    JetsonFacts,
    LibraryFacts,
    LiveFramework,
    TorchBuild,
)
from envdoctor.matrices import confirmed
from envdoctor.matrices import jetson as matrix

PTJ = "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html"
# pip distributions that PyTorch's aarch64 CUDA (SBSA) wheels pull in
SBSA_WHEELS = ("nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime-cu13", "nvidia-cudnn-cu12",
               "nvidia-cudnn-cu13", "nvidia-cublas-cu12", "nvidia-cublas-cu13",
               "nvidia-cuda-runtime")


def is_jetson(j: JetsonFacts | None) -> bool:
    """The board's files showed L4T, a Tegra SoC or L4T's kernel ("5.15.148-tegra"), or a
    report states a JetPack release or a Jetson model ("Jetson Orin, JetPack 6")."""
    return j is not None and bool(j.l4t is not None or j.soc.startswith("tegra")
                                  or j.kernel.endswith("-tegra") or j.jetpack is not None
                                  or "jet" in j.model.lower())


def board(j: JetsonFacts) -> dict[str, Any]:
    """What the board's files and the matrix say: {name, l4t, jetpack, jetpack_major, cuda,
    python, arch, last_jetpack, sbsa, confirmed}; a value nobody states is None."""
    row = matrix.l4t_row(j.l4t) or {}
    soc = matrix.soc_row(j.soc) or {}
    jetpack = str(j.jetpack) if j.jetpack is not None else "/".join(row.get("jetpack", [])) \
        or None
    major = j.jetpack.major if j.jetpack is not None else _major(row.get("jetpack", []))
    name = j.model or soc.get("family") or (f"Jetson ({j.soc})" if j.soc else "Jetson")
    return {"name": name, "l4t": str(j.l4t) if j.l4t is not None else None,
            "jetpack": jetpack, "jetpack_major": major, "cuda": row.get("cuda"),
            "python": row.get("python"), "arch": soc.get("arch"),
            "last_jetpack": soc.get("last_jetpack"), "sbsa": bool(row.get("sbsa")),
            "confirmed": confirmed(row) if row else False}


def _major(releases: list[str]) -> int | None:
    majors = {str(r).split(".")[0] for r in releases}
    return int(majors.pop()) if len(majors) == 1 and next(iter(majors)).isdigit() else None


def torch_kind(t: TorchBuild, installed: tuple[Distribution, ...]) -> str:
    """``cpu`` | ``sbsa`` (PyTorch's Arm-server CUDA build) | ``tegra`` (a CUDA build with
    nothing of SBSA about it: NVIDIA's Jetson wheels, Jetson AI Lab's, a build on the board)."""
    if t.cuda is None and t.hip is None:
        return "cpu"
    if t.hip is not None:
        return "rocm"
    local = (t.version.local or "") if t.version is not None else ""
    if local.startswith("cu"):
        return "sbsa"
    if "nv" in local:
        return "tegra"
    if any(d.name in SBSA_WHEELS for d in installed):
        return "sbsa"
    return "tegra"


def _cuda_major_jetpack(cuda_major: int) -> int | None:
    """The JetPack major whose CUDA has this major (CUDA 10 -> 4, 11 -> 5, 12 -> 6, 13 -> 7)."""
    from envdoctor.matrices import matrix as table
    majors = {_major(r.get("jetpack", [])) for r in table("jetson").get("l4t", [])
              if str(r.get("cuda", "")).split(".")[0] == str(cuda_major)}
    majors.discard(None)
    return majors.pop() if len(majors) == 1 else None


def wheel_fix(b: dict[str, Any], python: Version | None) -> str:
    """The install line of NVIDIA's torch for this board's JetPack, with the Python it needs."""
    row = matrix.wheel_row(b["jetpack_major"], b["cuda"])
    if row is None:
        which = b["jetpack"] or "(see /etc/nv_tegra_release)"
        return f"install NVIDIA's PyTorch wheel for JetPack {which}: {PTJ}"
    line = f"pip3 uninstall -y torch torchvision && {row['pip']}"
    want = row.get("python")
    if want and python is not None and f"{python.major}.{python.minor}" != want:
        line += (f"   (NVIDIA's wheels for JetPack {b['jetpack_major']} are built for Python "
                 f"{want}; this environment runs {python.major}.{python.minor}: create one "
                 f"with python{want} -m venv first)")
    return line


def _newer_than_board(t: TorchBuild, b: dict[str, Any]) -> str:
    """A note when the installed torch is newer than NVIDIA's newest build for this JetPack
    and the board cannot move to a newer JetPack (its last one is this one)."""
    row = matrix.wheel_row(b["jetpack_major"], b["cuda"])
    newest = Version(str(row["torch"])) if row and row.get("torch") else None
    last = b["last_jetpack"]
    if newest is None or t.version is None or not last or \
            Version(t.version.base_version) <= Version(newest.base_version):
        return ""
    if b["jetpack_major"] is None or Version(str(last)).major != b["jetpack_major"]:
        return f"; torch {t.version.base_version} itself needs a newer JetPack"
    return (f"; NVIDIA's newest torch for JetPack {b['jetpack_major']} is {newest}, and a "
            f"{b['name']} cannot move past JetPack {last}: torch {t.version.base_version} has "
            "no GPU build for this board")


# ---------------------------------------------------------------------------- rule functions
# What the Jetson functions read, field by field: a pasted report that shows only an L4T
# kernel ("5.15.148-tegra") leaves the rest unobserved, and each function then decides on
# what was seen (a field nobody saw arrives as its default, a Version as None).
BOARD = dict(l4t=optional("jetson.l4t"), jetpack=optional("jetson.jetpack"),
             soc=optional("jetson.soc", ""), model=optional("jetson.model", ""),
             kernel=optional("jetson.kernel", ""))


def seen(l4t: Version | None, jetpack: Version | None, soc: str, model: str,
         kernel: str) -> JetsonFacts:
    """The board as those reads give it."""
    return JetsonFacts(l4t=l4t, jetpack=jetpack, soc=soc, model=model, kernel=kernel)


@reads(**BOARD)
def jetson_machine(**board_reads: Any) -> bool:
    """``jetson_machine()``: the board's files (or a report's L4T kernel, JetPack release or
    Jetson model) show L4T or a Tegra SoC: its GPU is the iGPU, reached without NVML; False
    where nothing says Jetson."""
    return is_jetson(seen(**board_reads))


@reads(**BOARD)
def jetson_board(**board_reads: Any) -> str | None:
    """``jetson_board()``: "NVIDIA Jetson AGX Orin Developer Kit, L4T 36.4.3, JetPack 6.2"."""
    return describe(seen(**board_reads))


def describe(j: JetsonFacts) -> str | None:
    if not is_jetson(j):
        return None
    b = board(j)
    parts = [b["name"], f"L4T {b['l4t']}" if b["l4t"] else "",
             f"JetPack {b['jetpack']}" if b["jetpack"] else ""]
    return ", ".join(p for p in parts if p)


@reads(t="frameworks.torch", installed=optional("packages.distributions", ()),
       python=optional("host.python_version"), **BOARD)
def jetson_torch_problem(kind: str, *, t: TorchBuild | None,
                         installed: tuple[Distribution, ...], python: Version | None,
                         **board_reads: Any) -> dict[str, str] | None:
    """``jetson_torch_problem('cpu' | 'sbsa' | 'cuda')``: the installed torch cannot use this
    Jetson's iGPU because it is a CPU build, PyTorch's Arm-server (SBSA) CUDA build before
    JetPack 7, or a CUDA build of another CUDA major than the board's JetPack (a wheel for
    another JetPack) -> {torch, cuda, board, jetpack, board_cuda, wants, fix}; else None."""
    j = seen(**board_reads)
    if t is None or t.version is None or not is_jetson(j):
        return None
    b = board(j)
    got = torch_kind(t, installed)
    out = {"torch": str(t.version), "cuda": str(t.cuda or ""), "board": describe(j) or "",
           "jetpack": b["jetpack"] or "?", "board_cuda": b["cuda"] or "?"}
    if kind == "cpu" and got == "cpu":
        return {**out, "fix": wheel_fix(b, python) + _newer_than_board(t, b)}
    if kind == "sbsa" and got == "sbsa" and not b["sbsa"] and b["jetpack_major"] is not None:
        marker = (f"+{t.version.local}" if (t.version.local or "").startswith("cu") else
                  "the nvidia-*-cu1x library wheels beside it")
        return {**out, "marker": marker, "fix": wheel_fix(b, python)}
    if kind == "cuda" and got in ("tegra", "sbsa") and t.cuda is not None and b["cuda"]:
        board_major = int(str(b["cuda"]).split(".")[0])
        if t.cuda.major == board_major:
            return None
        wants = _cuda_major_jetpack(t.cuda.major)
        fix = wheel_fix(b, python)
        last = b["last_jetpack"]
        if wants and last and wants > int(last.split(".")[0]):
            fix += (f"; a wheel for JetPack {wants} cannot run on a {b['name']}: its last "
                    f"JetPack is {last}")
        elif wants and b["jetpack_major"] and wants > b["jetpack_major"]:
            fix += f"; or reflash the board with JetPack {wants} to keep this torch"
        return {**out, "wants": f"JetPack {wants}" if wants else f"CUDA {t.cuda.major}",
                "fix": fix}
    return None


_UNSEEN: Any = object()


@reads(t=optional("frameworks.torch", _UNSEEN), version=optional("frameworks.torch.version"),
       installed=optional("packages.distributions", ()), live=optional("live", {}),
       python=optional("host.python_version"), **BOARD)
def jetson_cpu_torch(*, t: Any, version: Version | None,
                     installed: tuple[Distribution, ...], live: dict[str, Any],
                     python: Version | None, **board_reads: Any) -> dict[str, str] | None:
    """``jetson_cpu_torch()``: the torch on this Jetson cannot use the iGPU because it is a CPU
    build -> {torch, board, fix}. Either its build is read (``jetson_torch_problem('cpu')``),
    or torch itself answered ``torch.cuda.is_available()`` False, with no error of its own, and
    nothing shows NVIDIA's Jetson build (a ``.nv``/``l4t`` local version) or PyTorch's Arm
    server build (``+cu…``): what PyPI's and pytorch.org's aarch64 CPU wheels do on a board.
    None when nothing says so; UNKNOWN where torch's build was not seen whole and torch said
    nothing of its GPU (a version alone is not read as CPU-only)."""
    if t is not _UNSEEN:
        return jetson_torch_problem("cpu", t=t, installed=installed, python=python,
                                    **board_reads)
    j = seen(**board_reads)
    run = live.get("torch")
    if not is_jetson(j):
        return None
    if not isinstance(run, LiveFramework) or run.cuda_available is not False or run.gpu_error \
            or run.import_ok is False:
        raise Undetermined("torch's build was not seen and torch said nothing of its GPU")
    shown = version or run.version
    local = str(getattr(shown, "local", None) or "").lower()
    if "nv" in local or "l4t" in local or local.startswith("cu"):
        return None  # NVIDIA's build (its libraries, its device) or the SBSA one: JET002's
    torch = f"{shown} (torch.cuda.is_available() is False)" if shown is not None else \
        "(torch.cuda.is_available() is False)"
    return {"torch": torch, "board": describe(j) or "",
            "fix": wheel_fix(board(j), python)}


@reads(t="frameworks.torch", installed=optional("packages.distributions", ()),
       libs="libraries", cuda="cuda", **BOARD)
def jetpack_libraries_missing(*, t: TorchBuild | None, installed: tuple[Distribution, ...],
                              libs: LibraryFacts, cuda: CudaFacts,
                              **board_reads: Any) -> str | None:
    """``jetpack_libraries_missing()``: a torch built for this board's JetPack links the
    JetPack's CUDA runtime and cuDNN, and the probes looked and found none of them in the
    system ("cuDNN", "the CUDA toolkit", or both); None when they are there or torch is not
    such a build."""
    j = seen(**board_reads)
    if t is None or t.cuda is None or not is_jetson(j) or torch_kind(t, installed) != "tegra":
        return None
    b = board(j)
    if b["cuda"] and t.cuda.major != int(str(b["cuda"]).split(".")[0]):
        return None  # a wheel for another JetPack: jetson_torch_problem('cuda') says so
    if j.jetpack is not None:
        # dpkg lists nvidia-jetpack installed: the metapackage depends on the JetPack's CUDA,
        # cuDNN and TensorRT packages, so they are installed whatever a folder scan missed
        return None
    if (matrix.l4t_row(j.l4t) or {}).get("container_libraries") == "host" and not j.model \
            and not j.soc:
        # a tree of such a release without the board's device tree is an image (an unpacked
        # l4t container): the NVIDIA runtime mounts the host's CUDA, cuDNN and TensorRT into
        # it at start (host-files-for-container.d/*.csv), so their absence here is how such
        # an image is built, not a missing install
        return None
    missing = []
    if not any(lib.name == "cudnn" and not lib.source.startswith("pip")
               for lib in libs.libraries):
        missing.append("cuDNN")
    if not any(tk.version is not None and tk.source != "pip" for tk in cuda.toolkits) and \
            not any(lib.name == "cudart" and not lib.source.startswith("pip")
                    for lib in libs.libraries):
        missing.append("the CUDA toolkit (libcudart)")
    return " and ".join(missing) or None


def access_problem(nodes: tuple[DeviceNode, ...]) -> str | None:
    bad = [n for n in nodes if n.accessible is False]
    if not bad:
        return None
    return ", ".join(f"{n.path} (group {n.group or '?'}, mode {n.mode or '?'})" for n in bad)


@reads(nodes=optional("jetson.device_nodes", ()), **BOARD)
def jetson_access_problem(*, nodes: tuple[DeviceNode, ...], **board_reads: Any) -> str | None:
    """``jetson_access_problem()``: the iGPU nodes this user cannot open ("/dev/nvmap (group
    video, mode 0660)"); None when every node that exists can be opened or none could be
    judged."""
    return access_problem(nodes) if is_jetson(seen(**board_reads)) else None


@reads(user=optional("jetson.user", ""))
def jetson_user(*, user: str) -> str:
    """``jetson_user()``: the user the device nodes were judged for ("$USER" when unknown)."""
    return user or "$USER"


@reads(python="host.python_version", **BOARD)
def jetson_python_gap(*, python: Version | None, **board_reads: Any) -> dict[str, str] | None:
    """``jetson_python_gap()``: NVIDIA's torch for this board's JetPack is built for another
    CPython minor than this environment's -> {python, want, jetpack, fix}; None when they
    match or no row states the wheel's Python."""
    j = seen(**board_reads)
    if python is None or not is_jetson(j):
        return None
    b = board(j)
    row = matrix.wheel_row(b["jetpack_major"], b["cuda"])
    want = str(row.get("python", "")) if row else ""
    have = f"{python.major}.{python.minor}"
    if not want or want == have:
        return None
    return {"python": have, "want": want, "jetpack": str(b["jetpack_major"]),
            "fix": f"python{want} -m venv --system-site-packages ~/venv && . ~/venv/bin/activate "
                   f"&& {row['pip'] if row else ''}"}
