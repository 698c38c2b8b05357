"""tensorflow: the newest release for this Python, as a GPU install where the platform allows.

Releases, Python ranges and CUDA builds: the tensorflow matrix (tested build configurations).
GPU per platform: wheel_index [[tensorflow_platform]]: Linux x86_64 gets ``tensorflow[and-cuda]``
(CUDA wheels from pip, from TF 2.14), native Windows had GPU until 2.10, Linux aarch64 and
macOS are CPU only. Pins are ``==X.Y.*``: the data knows release series, not every patch.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envdoctor.matrices import confirmed
from envdoctor.matrices.gpus import cuda_dropped
from envdoctor.matrices.tensorflow import hardware, hardware_build
from envdoctor.suggest import data
from envdoctor.suggest.install import CONDA_NOTE, command
from envdoctor.suggest.machine import PLATFORM_NAMES, Machine
from envdoctor.suggest.model import Alternative, Reason, Suggestion, unique
from envdoctor.suggest.plan import Request, assumed_platform
from envdoctor.versions import ver

PIP_URL = "https://www.tensorflow.org/install/pip"
RELEASE_NOTES = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"
TESTED_URL = "https://www.tensorflow.org/install/source#gpu"


def _releases() -> list[dict[str, Any]]:
    return data.tf_rows()


def _on_platform(prow: dict[str, Any]) -> list[dict[str, Any]]:
    """The release series with wheels on this platform (its row's ``first`` / ``last``)."""
    first, last = ver(prow.get("first")), ver(prow.get("last"))
    return [r for r in _releases()
            if (first is None or Version(r["tensorflow"]) >= first)
            and (last is None or Version(r["tensorflow"]) <= last)]


def _jetson(m: Machine, gpu: Any, reasons: list[Reason]) -> Suggestion:
    """A Jetson module: PyPI's aarch64 tensorflow is CPU only; NVIDIA builds TensorFlow for
    each JetPack release, and which one is installed is not in the facts."""
    from envdoctor.suggest import jetson_plan
    if (sbsa := jetson_plan.sbsa_wheel(m)) is not None:
        # an SBSA-aligned JetPack (7, Thor) is an aarch64 server: PyPI's aarch64 tensorflow
        # (CPU only) installs as on any Arm server, and NVIDIA states no TensorFlow for it
        server = _plan(jetson_plan.sbsa_machine(m, gpu, sbsa))
        return replace(server, reasons=(jetson_plan.sbsa_reason(m, gpu, sbsa),
                                        *server.reasons))
    row = data.jetson_row("tensorflow")
    docs = row.get("docs", PIP_URL)
    sm = f" ({gpu.sm})" if gpu.sm else ""
    reasons = [*reasons, Reason(
        "platform", f"{gpu.name}{sm} is a Jetson (Tegra integrated) GPU: PyPI's aarch64 "
        "tensorflow is CPU only; NVIDIA builds TensorFlow for each JetPack release",
        row.get("source", docs)), jetson_plan.gpu_reason(m, docs, "TensorFlow")]
    cpu = _plan(replace(m, nvidia="none", gpus=(), driver=None, jetson=None))
    alternatives = [Alternative(f"NVIDIA's TensorFlow wheel for this JetPack release: {docs}",
                                price="the JetPack release", source=docs)]
    if cpu.command:
        alternatives.append(Alternative(f"without the GPU: TF {cpu.version} on the CPU",
                                        version=cpu.version, variant="cpu", command=cpu.command,
                                        price="no GPU use"))
    return Suggestion("tensorflow", "undecided", reasons=tuple(reasons),
                      alternatives=tuple(alternatives),
                      references=unique([PIP_URL, *(r.source for r in reasons)]))


def _python_ok(row: dict[str, Any], m: Machine) -> bool:
    return m.python is None or SpecifierSet(row.get("python", "")).contains(m.python)


def _gpu_failures(row: dict[str, Any], prow: dict[str, Any], m: Machine) -> list[Reason]:
    """Why release ``row`` cannot use this machine's GPU; [] when it can."""
    tf, src = Version(row["tensorflow"]), prow.get("source", PIP_URL)
    out: list[Reason] = []
    if not prow.get("gpu"):
        return [Reason("platform", f"TensorFlow has no GPU build for "
                       f"{PLATFORM_NAMES.get(prow.get('platform', ''))}", src)]
    if prow.get("gpu_from") and row.get("and_cuda_installs") is False:
        out.append(Reason("index", f"{prow['gpu']}=={tf}.* does not install: "
                          f"{row.get('and_cuda_note', 'its extra pins a package PyPI lacks')}",
                          row.get("and_cuda_source", src)))
    if prow.get("gpu_from") and tf < Version(prow["gpu_from"]):
        out.append(Reason("index", f"tensorflow[and-cuda] starts at {prow['gpu_from']}; TF {tf} "
                          f"needs a system CUDA {row.get('cuda')} / cuDNN {row.get('cudnn')}", src))
    if prow.get("gpu_until") and tf > Version(prow["gpu_until"]):
        out.append(Reason("platform", f"TF {prow['gpu_until']} was the last release with GPU on "
                          "native Windows", src))
    elif prow.get("gpu_until") and not _system_cuda(row, m):
        # as on Linux before [and-cuda]: a release whose GPU needs a CUDA / cuDNN pip does not
        # install is an install plus a toolkit, not a pip answer (pip.md: CUDA 11.2 and
        # cuDNN 8.1 installed first, then "tensorflow<2.11")
        out.append(Reason("index", f"TF {tf} on native Windows uses a system CUDA "
                          f"{row.get('cuda')} / cuDNN {row.get('cudnn')}, which pip does not "
                          "install; the snapshot shows no CUDA "
                          f"{row.get('cuda')} toolkit (nvcc)", src))
    if prow.get("gpu_from") and row.get("and_cuda_runs") is False:
        out.append(Reason("gpu", f"{prow['gpu']}=={tf}.* installs, but "
                          f"{row.get('and_cuda_runs_note', 'its GPU is not found as installed')}",
                          row.get("and_cuda_runs_source", src)))
    cuda = ver(row.get("cuda"))
    if cuda is not None:
        floor = data.driver_floor(cuda, data.driver_os(m))
        if floor and m.driver is not None and m.driver < floor[0]:
            out.append(Reason("driver", f"TF {tf} is built with CUDA {cuda}{_assumed(row)}: "
                              f"driver >= {data.driver_str(floor[0])}; this driver is "
                              f"{data.driver_str(m.driver)}", floor[1],
                              floor[2] and not row.get("cuda_of")))
        min_cc = hardware(tf)["min_cc"]
        build = hardware_build(tf)
        min_src = str(build["source"]) if build else PIP_URL
        min_ok = confirmed(build) if build else True
        for gpu in dict.fromkeys(m.gpus):
            dropped = cuda_dropped(cuda, gpu.cc) if gpu.cc is not None else None
            if dropped is not None:
                out.append(Reason("arch", f"CUDA {cuda} builds have no code for "
                                  f"{dropped.get('name', gpu.sm)} (its last CUDA was "
                                  f"{dropped['last_cuda']}); {gpu.name} is {gpu.sm}",
                                  dropped.get("source", RELEASE_NOTES), confirmed(dropped)))
            elif gpu.cc is not None and min_cc is not None and gpu.cc < min_cc:
                out.append(Reason("arch", f"TF {tf}'s wheels carry code for CUDA "
                                  f"architecture {min_cc} and newer; {gpu.name} is {gpu.sm}",
                                  min_src, min_ok))
    return out


def _system_cuda(row: dict[str, Any], m: Machine) -> bool:
    """Whether the snapshot shows the CUDA toolkit (nvcc) of ``row``'s build, major.minor."""
    want = ver(row.get("cuda"))
    return want is not None and m.nvcc is not None and \
        m.nvcc.release[:2] == want.release[:2]


def _spec(row: dict[str, Any]) -> str:
    return f"{row['tensorflow']}.*"


def _cmd(row: dict[str, Any], gpu: bool, prow: dict[str, Any], installer: str,
         cpu_name: str = "tensorflow") -> tuple[str, str]:
    name = prow.get("gpu") if gpu and prow.get("gpu") else cpu_name
    req = f"{name}=={_spec(row)}"
    return command([req], None, installer), req


def plan(m: Machine, request: Request) -> Suggestion:
    """The TensorFlow suggestion for machine ``m`` (the ``Planner`` shape)."""
    got = _plan(m, request.installer, request.keep_installed)
    if m.has_amd and got.status in ("ok", "installed") and got.variant == "cpu":
        return _amd(m, got)
    return got


def _amd(m: Machine, cpu: Suggestion) -> Suggestion:
    """AMD GPUs: TensorFlow publishes no ROCm wheel and AMD's tensorflow-rocm files are not in
    the data, so the GPU install is undecided; the CPU install is the alternative."""
    from envdoctor.suggest.rocm_plan import tensorflow_gate
    reasons = tensorflow_gate(m)
    alternatives = [Alternative(f"without the GPU: TF {cpu.version} cpu"
                                + (" (already installed)" if cpu.status == "installed" else ""),
                                version=cpu.version, variant="cpu", command=cpu.command,
                                price="no GPU use"), *cpu.alternatives]
    return Suggestion("tensorflow", "undecided", reasons=tuple(reasons),
                      alternatives=tuple(alternatives),
                      references=unique([PIP_URL, *(r.source for r in reasons)]))


def _kept(m: Machine, rows: list[dict[str, Any]], prow: dict[str, Any]
          ) -> tuple[dict[str, Any], bool] | None:
    """(row, on the GPU) of the installed TensorFlow series for ``--keep``: when that series has
    wheels for this platform and Python, and uses this NVIDIA GPU or no series here would; None
    otherwise (the newest release is planned instead)."""
    installed = next((m.installed[n] for n in ("tensorflow", "tensorflow-cpu", "tensorflow-macos")
                      if n in m.installed), None)
    if installed is None:
        return None
    row = next((r for r in rows if Version(r["tensorflow"]).release[:2] == installed.release[:2]),
               None)
    if row is None:
        return None
    if not m.has_nvidia:
        return row, False
    if not _gpu_failures(row, prow, m):
        return row, True
    if any(not _gpu_failures(r, prow, m) for r in rows):
        return None  # a newer series uses the GPU the installed one cannot
    return row, False


def _plan(m: Machine, installer: str = "pip", keep_installed: bool = False) -> Suggestion:
    platform, reasons = assumed_platform(m)
    prow = data.platform_row("tensorflow_platform", platform)
    if prow is None:
        reasons.append(Reason("platform", f"no TensorFlow wheels for "
                              f"{PLATFORM_NAMES.get(platform)} in the data", PIP_URL))
        return Suggestion("tensorflow", "none", reasons=tuple(reasons), references=(PIP_URL,))
    if (jetson := data.jetson_gpu(m)) is not None:
        return _jetson(m, jetson, reasons)
    rows = [r for r in _on_platform(prow) if _python_ok(r, m)]
    libc = data.glibc_cap("tensorflow", platform, m, "tensorflow")
    if libc is not None and rows and not libc.allows(rows[0]["tensorflow"]):
        reasons.append(Reason("platform", libc.text(rows[0]["tensorflow"]), libc.source))
        rows = [r for r in rows if libc.allows(r["tensorflow"])]
    held = (getattr(data.releases(), "glibc_held", None) or {}).get("tensorflow") or []
    if held and m.glibc is not None:
        reasons.append(Reason("platform", f"tensorflow {', '.join(v for v, _ in held)} on the "
                              f"index: Linux wheels {', '.join(sorted({t for _, t in held}))} "
                              f"only, which glibc {m.glibc} cannot load", data.GLIBC_URL))
    cap = prow.get("cpu_until_confirmed")
    unconfirmed_newer = []
    if cap:
        unconfirmed_newer = [r for r in rows if Version(r["tensorflow"]) > Version(cap)]
        rows = [r for r in rows if Version(r["tensorflow"]) <= Version(cap)]
    if not rows:
        newest = (_on_platform(prow) or _releases())[0]
        reasons.append(Reason("python", f"no TensorFlow release in the data has wheels for "
                              f"Python {m.python} here; TF {newest['tensorflow']} needs "
                              f"{newest['python']}", newest.get("source", TESTED_URL)))
        cmd, _ = _cmd(newest, False, prow, installer)
        alt = Alternative(f"use Python {newest['python']} to get TF {newest['tensorflow']}",
                          version=newest["tensorflow"], command=cmd,
                          price=f"Python {newest['python']}",
                          source=newest.get("source", TESTED_URL))
        return Suggestion("tensorflow", "none", reasons=tuple(reasons), alternatives=(alt,),
                          references=(PIP_URL, TESTED_URL))
    alternatives: list[Alternative] = []
    pick, gpu = rows[0], False
    kept = _kept(m, rows, prow) if keep_installed else None
    if kept is not None:
        pick, gpu = kept
        have = next(f"{n} {m.installed[n]}" for n in ("tensorflow", "tensorflow-cpu",
                                                         "tensorflow-macos") if n in m.installed)
        reasons.append(Reason("installed", f"keeps the installed {have} (--keep): its release "
                              "has wheels for this platform and Python"
                              + (" and uses this GPU" if gpu else ""),
                              pick.get("source", TESTED_URL)))
    elif m.has_nvidia:
        manual: Alternative | None = None
        for row in rows:
            fails = _gpu_failures(row, prow, m)
            if not fails:
                pick, gpu = row, True
                break
            if manual is None and [f.text for f in fails] == [
                    f.text for f in fails if f.source == row.get("and_cuda_runs_source")]:
                cmd, _ = _cmd(row, True, prow, installer)
                manual = Alternative(
                    f"TF {row['tensorflow']} on the GPU, with LD_LIBRARY_PATH set to the "
                    "site-packages/nvidia/*/lib folders [and-cuda] installs",
                    version=row["tensorflow"], variant=prow.get("gpu"), command=cmd,
                    price="a manual library path", source=row.get("and_cuda_runs_source", ""))
            if row is rows[0]:
                reasons.extend(fails)
                if {f.constraint for f in fails} == {"driver"}:
                    cmd, _ = _cmd(row, True, prow, installer)
                    alternatives.append(Alternative(
                        f"upgrade the NVIDIA driver to get TF {row['tensorflow']} on the GPU",
                        version=row["tensorflow"], variant=prow.get("gpu"), command=cmd,
                        price=fails[0].text.split(":")[-1],
                        source=fails[0].source))
        if not gpu:
            reasons.append(Reason("gpu", "no TensorFlow release in the data uses this GPU here: "
                                  "CPU install", prow.get("source", PIP_URL)))
            if manual is not None:
                alternatives.append(manual)
            if platform == "win_amd64":
                old = next((r for r in _releases() if Version(r["tensorflow"]) <= Version(
                    prow.get("gpu_until", "0"))), None)
                if old is not None:
                    if _python_ok(old, m):   # why the last native-Windows GPU release is not it
                        reasons.extend(f for f in _gpu_failures(old, prow, m)
                                       if f.constraint == "index")
                    cmd, _ = _cmd(old, True, prow, installer)
                    on_python = "" if _python_ok(old, m) else f" with Python {old['python']}"
                    system = f"a system CUDA {old.get('cuda')} / cuDNN {old.get('cudnn')}"
                    alternatives.append(Alternative(
                        f"native Windows GPU: TF {old['tensorflow']}{on_python} and {system}",
                        version=old["tensorflow"], variant="tensorflow", command=cmd,
                        price=(f"Python {old['python']} and " if on_python else "") + system,
                        source=prow.get("source", PIP_URL)))
                lin = data.platform_row("tensorflow_platform", "linux_x86_64") or {}
                newest_any = _releases()[0]
                cmd, _ = _cmd(newest_any, True, lin, installer)
                price, src = "WSL2", prow.get("source", PIP_URL)
                cuda = ver(newest_any.get("cuda"))
                # WSL runs the Linux wheel with this Windows driver, in Windows numbering
                floor = data.driver_floor(cuda, data.driver_os(m)) if cuda is not None else None
                if floor and m.driver is not None and m.driver < floor[0]:
                    price = f"WSL2 and a driver >= {data.driver_str(floor[0])}"
                    src = floor[1]
                # the GPU must be one the Linux wheel has code for: WSL2 changes no arch list
                under = replace(m, platform="linux_x86_64", wsl=True)
                arch = [f for f in _gpu_failures(newest_any, lin, under) if f.constraint == "arch"]
                if not arch:
                    alternatives.append(Alternative(
                        f"GPU under WSL2: TF {newest_any['tensorflow']} with "
                        "tensorflow[and-cuda]", version=newest_any["tensorflow"],
                        variant="tensorflow[and-cuda]", command=cmd, price=price, source=src))
    elif m.nvidia == "unknown":
        reasons.append(Reason("gpu", "the snapshot does not say whether there is an NVIDIA GPU; "
                              "the plain tensorflow package is shown", "", False))
    if gpu and Version(pick["tensorflow"]) < Version(rows[0]["tensorflow"]):
        cmd, _ = _cmd(rows[0], False, prow, installer)
        alternatives.append(Alternative(f"TF {rows[0]['tensorflow']} on the CPU",
                                        version=rows[0]["tensorflow"], variant="cpu", command=cmd,
                                        price="no GPU",
                                        source=prow.get("source", PIP_URL)))
    reasons.append(Reason("python", f"Python {m.python} is inside TF {pick['tensorflow']}'s range "
                          f"{pick['python']}" if m.python else
                          f"the snapshot does not state Python; TF {pick['tensorflow']} needs "
                          f"{pick['python']}", pick.get("source", TESTED_URL),
                          m.python is not None))
    if (assumed := data.glibc_assumed("tensorflow", platform, m, pick["tensorflow"],
                                         "tensorflow")):
        reasons.append(Reason("platform", assumed[0], assumed[1], False))
    floor = data.driver_floor(Version(str(pick.get("cuda"))), data.driver_os(m)) \
        if gpu and m.driver is None and pick.get("cuda") else None
    if floor is not None:
        reasons.append(Reason("driver", f"TF {pick['tensorflow']} is built with CUDA "
                              f"{pick.get('cuda')}{_assumed(pick)}: its GPU needs driver >= "
                              f"{data.driver_str(floor[0])}; the snapshot does not state the "
                              "driver (with an older one TF runs on the CPU)", floor[1], False))
    if gpu:
        reasons.append(Reason("gpu", f"TF {pick['tensorflow']} is built with CUDA "
                              f"{pick.get('cuda')} / cuDNN {pick.get('cudnn')}{_assumed(pick)}"
                              + (" (pip installs them with [and-cuda])" if prow.get("gpu_from")
                                 else " (install them on the system)"),
                              pick.get("source", TESTED_URL), not pick.get("cuda_of")))
        newest_cc = hardware()["newest_cc"]
        if newest_cc is not None and any(g.cc is not None and g.cc > newest_cc for g in m.gpus):
            reasons.append(Reason("arch", "TF packages carry PTX only for the newest architecture "
                                  "they support, so this GPU runs through PTX JIT (slow first "
                                  "start)", PIP_URL, False))
    for row in unconfirmed_newer[:1]:
        cmd, _ = _cmd(row, False, prow, installer)
        alternatives.append(Alternative(
            f"TF {row['tensorflow']} may have {PLATFORM_NAMES.get(platform)} wheels (not "
            "confirmed in the data)", version=row["tensorflow"], variant="cpu", command=cmd,
            price="an unconfirmed wheel",
            source=prow.get("source", PIP_URL)))
    kind = {"linux_aarch64": " (CPU only)", "macos_arm64": " (CPU only)",
            "macos_x86_64": f" (CPU only; TF {prow.get('last')} is the last release for it)"
            }.get(platform, "")
    reasons.append(Reason("index", f"PyPI has TF {pick['tensorflow']} for "
                          f"{PLATFORM_NAMES.get(platform)}{kind}", prow.get("source", PIP_URL),
                          confirmed(prow)))
    if installer == "conda":
        reasons.append(Reason("installer", CONDA_NOTE, ""))
    cpu_name = "tensorflow"
    if "tensorflow-cpu" in m.installed and platform in ("linux_x86_64", "win_amd64"):
        if gpu:
            reasons.append(Reason("installed", "tensorflow-cpu is installed: uninstall it first "
                                  "(pip uninstall -y tensorflow-cpu), both provide the tensorflow "
                                  "module", PIP_URL))
        else:
            cpu_name = "tensorflow-cpu"  # keep the installed CPU-only distribution
    cmd, req = _cmd(pick, gpu, prow, installer, cpu_name)
    variant = (prow.get("gpu") or "tensorflow") if gpu else "cpu"
    installed = m.installed.get("tensorflow")
    refs = unique([PIP_URL, TESTED_URL, *(r.source for r in reasons)])
    if installed is not None and installed.release[:2] > Version(pick["tensorflow"]).release[:2] \
            and installed.release[:2] > Version(_releases()[0]["tensorflow"]).release[:2]:
        reasons.insert(0, Reason("installed", f"installed tensorflow {installed} is newer than the "
                                 f"data ({data.data_as_of()}); keep it unless it fails", "", False))
        alternatives.insert(0, Alternative(f"the newest TF in the data: {pick['tensorflow']}",
                                           version=pick["tensorflow"], variant=variant,
                                           command=cmd))
        return Suggestion("tensorflow", "keep", version=str(installed), reasons=tuple(reasons),
                          alternatives=tuple(alternatives), references=refs)
    # the cuDNN wheel [and-cuda] pins is of TF's own CUDA major (one left by a cu11 torch is not)
    tf_cuda = ver(pick.get("cuda"))
    cuda_libs = tf_cuda is not None and f"nvidia-cudnn-cu{tf_cuda.major}" in m.installed
    if installed is not None and installed.release[:2] == Version(pick["tensorflow"]).release[:2] \
            and (not gpu or cuda_libs) and (gpu or cpu_name == "tensorflow-cpu"
                                              or "tensorflow-cpu" not in m.installed):
        reasons.insert(0, Reason("installed", f"tensorflow {installed} (TF {pick['tensorflow']}, "
                                 f"{variant}) is already installed: nothing to change", ""))
        return Suggestion("tensorflow", "installed", version=_spec(pick), variant=variant,
                          reasons=tuple(reasons), alternatives=tuple(alternatives), references=refs)
    return Suggestion("tensorflow", "ok", version=_spec(pick), variant=variant, command=cmd,
                      packages=(req,), reasons=tuple(reasons),
                      alternatives=tuple(alternatives), references=refs)


def _assumed(row: dict[str, Any]) -> str:
    """How a series the data has no row for (one an index lists) got its CUDA: from the newest
    series in the data, said as an assumption; "" for a series the data describes."""
    of = row.get("cuda_of")
    return (f", assumed: the data states none for TF {row.get('tensorflow')}, these are TF "
            f"{of}'s, the newest series in it" if of else "")
