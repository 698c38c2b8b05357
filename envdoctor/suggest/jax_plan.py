"""jax: the newest release for this Python, with the CUDA plugin this driver and GPU allow.

Releases and Python ranges: the jax matrix ([[release]], newest ``last`` of each range).
Plugins: its [[plugin]] rows (jax[cuda13]: driver >= 580, SM >= 7.5, from jax 0.7.0;
jax[cuda12]: driver >= 525, SM >= 5.2). Wheels per platform: wheel_index [[jax_platform]]
(NVIDIA wheels only on Linux; Windows and macOS get CPU jaxlib).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envdoctor.matrices import confirmed, matrix
from envdoctor.matrices.jax import lookup_jax_release, python_ceiling
from envdoctor.suggest import data
from envdoctor.suggest.install import CONDA_NOTE, command
from envdoctor.suggest.machine import PLATFORM_NAMES, Machine
from envdoctor.suggest.model import Alternative, Reason, Suggestion, unique
from envdoctor.suggest.plan import Request, assumed_platform
from envdoctor.versions import ver

INSTALL_URL = "https://docs.jax.dev/en/latest/installation.html"
_FIRST = re.compile(r"^\s*(\d+(?:\.\d+)+)")


def _releases() -> list[dict[str, Any]]:
    return data.jax_rows()


def _plugins() -> list[dict[str, Any]]:
    """CUDA plugins, newest CUDA major first (the JAX docs recommend CUDA 13)."""
    rows = list(matrix("jax").get("plugin", []))
    return sorted(rows, key=lambda r: r.get("cuda_major", 0), reverse=True)


def _first_jax(plugin: dict[str, Any]) -> Version | None:
    m = _FIRST.match(str(plugin.get("first_jax", "")))
    return ver(m.group(1)) if m else None


def _published(wheel: str, jax: Version) -> bool:
    """Whether the ``cuda12`` / ``cuda13`` plugin exists for jax ``jax`` (its extra_from)."""
    plugin = next((p for p in _plugins() if p.get("extra") == f"jax[{wheel}]"), None)
    first = (ver(plugin.get("extra_from")) or _first_jax(plugin)) if plugin else None
    return first is not None and jax >= first


def _plugin_failures(plugin: dict[str, Any], jax: Version, m: Machine) -> list[Reason]:
    src = plugin.get("source", INSTALL_URL)
    out = []
    # the first jax whose extra installs this plugin (jax.toml extra_from), else the first
    # jax the plugin existed for
    first = ver(plugin.get("extra_from")) or _first_jax(plugin)
    if first is None or jax < first:
        out.append(Reason("index", f"{plugin['extra']} starts at jax {first}; jax {jax} has "
                          "no such plugin" if first is not None else
                          f"{plugin['extra']} is not published for jax {jax} in the data",
                          plugin.get("extra_from_source", plugin.get("repo_source", src))))
    if data.listed(plugin.get("plugin", ""), str(jax)) is False:
        out.append(Reason("index", f"the index lists no {plugin.get('plugin')} {jax} wheel for "
                          "this machine", ""))
    need, where, need_src = plugin_floor(plugin, m)
    if need is not None and m.driver is not None and m.driver < need:
        out.append(Reason("driver", f"{plugin['extra']} needs driver >= "
                          f"{data.driver_str(need)} {where}; this driver is "
                          f"{data.driver_str(m.driver)}", need_src or src,
                          confirmed(plugin)))
    min_cc = ver(plugin.get("min_cc"))
    for gpu in dict.fromkeys(m.gpus):
        if min_cc is not None and gpu.cc is not None and gpu.cc < min_cc:
            out.append(Reason("arch", f"{plugin['extra']} supports SM {plugin['min_cc']} and "
                              f"newer; {gpu.name} is {gpu.sm}", src, confirmed(plugin)))
    return out


def plugin_floor(plugin: dict[str, Any], m: Machine) -> tuple[Version | None, str, str]:
    """(oldest driver the plugin runs on here, where that floor holds, its source). Under WSL
    the driver nvidia-smi shows is the Windows one, numbered as Windows drivers are (527.56 is
    below CUDA 12.x's 528.33 there, though above Linux's 525): its floor is the Windows floor
    of the plugin's CUDA major, not the Linux figure jax's installation page gives."""
    if m.wsl and plugin.get("cuda_major") is not None:
        got = data.driver_floor(Version(f"{plugin['cuda_major']}.0"), "windows")
        if got is not None:
            return got[0], "in WSL (the Windows driver's numbering)", got[1]
    return ver(plugin.get("min_driver_linux")), "on Linux", ""


def _need(plugin: dict[str, Any], m: Machine) -> str:
    """The plugin's driver floor here, as the user reads it."""
    floor = plugin_floor(plugin, m)[0]
    return data.driver_str(floor) if floor is not None else str(plugin.get("min_driver_linux"))


def _cmd(jax: str, extra: str | None, installer: str) -> str:
    req = f"jax[{extra}]=={jax}" if extra else f"jax=={jax}"
    return command([req], None, installer)


def _jax_packages(m: Machine) -> list[tuple[str, Version]]:
    """The installed JAX packages (jax, jaxlib, the CUDA plugins and their pjrt), by name."""
    names = ["jax", "jaxlib", *(f"jax-cuda{p['cuda_major']}-{kind}" for p in _plugins()
                                for kind in ("plugin", "pjrt"))]
    return [(n, m.installed[n]) for n in names if n in m.installed]


def _installed_jax(m: Machine) -> Version | None:
    """The release a keep-installed fix realigns every JAX package to: the installed jax's
    own (the plugins follow jax, which pins them), else the newest of jaxlib and the plugins."""
    if "jax" in m.installed:
        return m.installed["jax"]
    got = [v for _, v in _jax_packages(m)]
    return max(got) if got else None


def _kept_text(m: Machine, jax: Version, extra: str | None = "") -> str:
    """What a keep-installed answer keeps and what it moves, said per package. ``extra``: the
    extra the answer installs (None: CPU jaxlib, "" not chosen yet): a CUDA plugin of another
    extra is not realigned by the command (``stray`` names it)."""
    pkgs = [(n, v) for n, v in _jax_packages(m)
            if extra == "" or not n.startswith("jax-cuda") or n.startswith(f"jax-{extra}-")]
    names = [n for n, _ in pkgs]
    off = [f"{n} {v}" for n, v in pkgs if Version(v.base_version) != jax]
    base = "jax" if "jax" in names else names[0] if names else "jax"
    text = f"keeps the installed {base} release {jax}"
    what = "jax, jaxlib and the CUDA plugin" if extra == "" or (extra or "").startswith("cuda") \
        else "jax and jaxlib"
    if off:
        text += f"; realigns {', '.join(off)} to it (one JAX release for {what})"
    else:
        text += f", with {what} of that one release"
    return text


def _kept_release(m: Machine) -> tuple[dict[str, Any], Version] | None:
    """(release row, version) of the installed JAX when the data knows that release and it
    has wheels for this Python; None otherwise (the newest release is planned instead)."""
    want = _installed_jax(m)
    if want is None:
        return None
    row = lookup_jax_release(want)  # python_requires narrowed by that release's wheel ceiling
    if row is not None and (m.python is None
                            or SpecifierSet(row.get("python", "")).contains(m.python)):
        return row, Version(want.base_version)
    return None


def _tpu_row() -> dict[str, Any]:
    return next(iter(matrix("jax").get("tpu", [])), {})


def _tpu_branch(m: Machine, platform: str, reasons: list[Reason]) -> tuple[str | None, str]:
    """(extra, variant) on a Cloud TPU host: ``jax[tpu]`` where libtpu is published for this
    platform (the extra pins the libtpu of its release), else CPU jaxlib, with the reason."""
    row = _tpu_row()
    src = row.get("source", INSTALL_URL)
    if platform not in row.get("platforms", ()):
        reasons.append(Reason("platform", f"a Cloud TPU host ({m.tpu}), but JAX publishes the TPU "
                              f"runtime (libtpu) for Linux x86_64 only, not "
                              f"{PLATFORM_NAMES.get(platform)}: CPU jaxlib", src))
        return None, "cpu"
    reasons.append(Reason("platform", f"a Cloud TPU host ({m.tpu}): {row['extra']} installs jax "
                          "with libtpu, the TPU runtime its release pins", src, confirmed(row)))
    stray = [n for n, _ in _jax_packages(m) if n.startswith("jax-cuda")]
    if stray:
        reasons.append(Reason("installed", f"{', '.join(stray)} installed: CUDA plugins have no "
                              f"use on a TPU host; remove them (pip uninstall {' '.join(stray)})",
                              src))
    return "tpu", str(row["extra"])


def _wsl_alternative(m: Machine, jax: Version, installer: str, source: str
                     ) -> Alternative | None:
    """The CUDA plugin this Windows machine's GPU would run under WSL2 (Linux wheels, this
    Windows driver in its own numbering): the newest CUDA major whose SM and driver floors it
    meets, else one only a driver upgrade stands in the way of; None when the GPU is below
    every plugin's SM floor (WSL2 would not help)."""
    under = replace(m, platform="linux_x86_64", wsl=True)
    upgrade: Alternative | None = None
    for plugin in _plugins():
        fails = _plugin_failures(plugin, jax, under)
        extra = str(plugin["extra"])
        if not fails:
            return Alternative(f"under WSL2 (experimental in the JAX docs): {extra}",
                               version=str(jax), variant=extra,
                               command=_cmd(str(jax), extra[4:-1], installer), price="WSL2",
                               source=source)
        if upgrade is None and {f.constraint for f in fails} == {"driver"}:
            need = _need(plugin, under)
            upgrade = Alternative(f"under WSL2 (experimental in the JAX docs) with a driver >= "
                                  f"{need}: {extra}", version=str(jax), variant=extra,
                                  command=_cmd(str(jax), extra[4:-1], installer),
                                  price=f"WSL2 and a driver >= {need}",
                                  source=fails[0].source or source)
    return upgrade


def _pick(m: Machine, last: Version | None) -> dict[str, Any] | None:
    """The newest release row with wheels for this Python, none after ``last`` (the platform's
    or the C library's last release); its ``python`` narrowed to that release's wheels."""
    for row in _releases():
        if last is not None and (ver(row.get("first")) or last) > last:
            continue  # no wheels for this platform after ``last``
        spec = row.get("python", "")
        row_last = ver(row.get("last"))
        top = last if last is not None and (row_last is None or last < row_last) else row_last
        ceiling = python_ceiling(top) if top is not None else None
        if ceiling and ceiling not in spec:
            # the release this platform gets from the row has wheels up to a Python only
            spec = f"{spec},{ceiling}" if spec else ceiling
        if m.python is None or SpecifierSet(spec).contains(m.python):
            return {**row, "python": spec}
    return None


def _top(release: dict[str, Any], last: Version | None) -> Version:
    """The jax release a row gives here: its ``last``, none after ``last``."""
    top = Version(str(release["last"]))
    return last if last is not None and top > last else top


def _glibc_held(m: Machine) -> list[Reason]:
    """The index's newer jaxlib releases this machine's glibc cannot load (``--online``)."""
    held = (getattr(data.releases(), "glibc_held", None) or {}).get("jax") or []
    if not held or m.glibc is None:
        return []
    tags = sorted({t for _, t in held})
    return [Reason("platform", f"jaxlib {', '.join(v for v, _ in held)} on the index: Linux "
                   f"wheels {', '.join(tags)} only, which glibc {m.glibc} cannot load",
                   data.GLIBC_URL)]


def plan(m: Machine, request: Request) -> Suggestion:
    """The JAX suggestion for machine ``m`` (the ``Planner`` shape); see ``_plan``."""
    return _plan(m, request.installer, request.keep_installed)


def _plan(m: Machine, installer: str = "pip", keep_installed: bool = False) -> Suggestion:
    """The jax install for this machine: the newest release for its Python, or with
    ``keep_installed`` (what `check` fixes use) the installed release with every package
    (jax, jaxlib, plugin, pjrt) realigned to it, when the data has it for this Python."""
    platform, reasons = assumed_platform(m)
    wheels = (data.platform_row("jax_platform", platform) or {}).get("wheels", [])
    prow = data.platform_row("jax_platform", platform) or {}
    if not wheels:
        reasons.append(Reason("platform", f"no jaxlib wheels for {PLATFORM_NAMES.get(platform)} in "
                              "the data", INSTALL_URL))
        return Suggestion("jax", "none", reasons=tuple(reasons), references=(INSTALL_URL,))
    last = ver(prow.get("last"))
    release = _pick(m, last)
    cap = data.glibc_cap("jaxlib", platform, m, "jax")
    if cap is not None and release is not None and not cap.allows(_top(release, last)):
        reasons.append(Reason("platform", cap.text(_top(release, last)), cap.source))
        last = cap.last_before if last is None or last > cap.last_before else last
        release = _pick(m, last)
    reasons += _glibc_held(m)
    if release is None:
        newest = _releases()[0]
        reasons.append(Reason("python", f"no jax release in the data supports Python {m.python}; "
                              f"jax {newest['last']} needs Python {newest['python']}",
                              newest.get("source", "")))
        alt = Alternative(f"use Python {newest['python']} to get jax {newest['last']}",
                          version=newest["last"], command=_cmd(newest["last"], None, installer),
                          price=f"Python {newest['python']}", source=newest.get("source", ""))
        return Suggestion("jax", "none", reasons=tuple(reasons), alternatives=(alt,),
                          references=(INSTALL_URL,))
    jax = Version(release["last"])
    if last is not None and jax > last:
        jax = last
    kept = _kept_release(m) if keep_installed else None
    kept_at = None
    if kept is not None:
        release, jax = kept
        kept_at = len(reasons)
        reasons.append(Reason("installed", _kept_text(m, jax), release.get("source", "")))
    py_text = (f"Python {m.python} is inside jax {jax}'s range {release['python']}" if m.python
               else f"the snapshot does not state Python; jax {jax} needs {release['python']}")
    reasons.append(Reason("python", py_text, release.get("source", ""), m.python is not None))
    alternatives: list[Alternative] = []
    newest = _releases()[0]
    if newest.get("last") != release.get("last"):
        libc = "" if cap is None or cap.allows(newest["last"]) else \
            f" and glibc >= {cap.row['glibc']}"
        alternatives.append(Alternative(
            f"use Python {newest['python']}{libc} to get jax {newest['last']}",
            version=newest["last"], price=f"Python {newest['python']}{libc}",
            source=newest.get("source", "")))
    extra, variant = None, "cpu"
    jetson = data.jetson_gpu(m)
    if m.tpu:
        extra, variant = _tpu_branch(m, platform, reasons)
    elif jetson is not None:
        jrow = data.jetson_row("jax")
        from envdoctor.suggest.jetson_plan import sbsa_wheel
        sm = f" ({jetson.sm})" if jetson.sm else ""
        reasons.append(Reason("platform", f"{jetson.name}{sm} is a Jetson on an SBSA-aligned "
                              "JetPack: JAX's install docs name no GPU wheels for Jetson, so "
                              "whether its aarch64 CUDA plugins run there is not stated: CPU "
                              "jaxlib" if sbsa_wheel(m) is not None else
                              f"{jetson.name}{sm} is a Jetson (Tegra integrated) GPU: JAX's "
                              "aarch64 CUDA plugins are SBSA builds and JAX publishes none for "
                              "Jetson: CPU jaxlib",
                              jrow.get("source", INSTALL_URL), confirmed(jrow)))
    elif m.has_amd:
        from envdoctor.suggest.rocm_plan import jax_gate
        reasons += jax_gate(m)
        alternatives.append(Alternative(f"without the GPU: jax {jax} cpu", version=str(jax),
                                        variant="cpu", command=_cmd(str(jax), None, installer),
                                        price="no GPU use"))
        return Suggestion("jax", "undecided", reasons=tuple(reasons),
                          alternatives=tuple(alternatives),
                          references=unique([INSTALL_URL, *(r.source for r in reasons)]))
    elif m.has_nvidia and m.driver is None and any(w.startswith("cuda") for w in wheels):
        reasons.append(Reason("driver", "the snapshot does not state the NVIDIA driver "
                              "(nvidia-smi's header): the CUDA plugin cannot be chosen",
                              INSTALL_URL, False))
        for plugin in _plugins():
            if _plugin_failures(plugin, jax, m):
                continue
            need = _need(plugin, m)
            alternatives.append(Alternative(
                f"with driver >= {need}: jax {jax} {plugin['extra']}", version=str(jax),
                variant=plugin["extra"], command=_cmd(str(jax), plugin["extra"][4:-1], installer),
                price=f"driver >= {need}", source=plugin.get("source", "")))
        alternatives.append(Alternative(f"without the GPU: jax {jax} cpu", version=str(jax),
                                        variant="cpu", command=_cmd(str(jax), None, installer),
                                        price="no GPU use"))
        return Suggestion("jax", "undecided", reasons=tuple(reasons),
                          alternatives=tuple(alternatives),
                          references=unique([INSTALL_URL, *(r.source for r in reasons)]))
    elif m.has_nvidia and any(w.startswith("cuda") for w in wheels):
        for plugin in _plugins():
            fails = _plugin_failures(plugin, jax, m)
            if not fails:
                extra, variant = plugin["extra"][4:-1], plugin["extra"]
                need = _need(plugin, m)
                reasons.append(Reason("driver", f"{plugin['extra']}: driver "
                                      f"{data.driver_str(m.driver) if m.driver else '(not stated)'}"
                                      f" meets its floor >= {need}", plugin.get("source", ""),
                                      m.driver is not None))
                skipped = getattr(data.releases(), "jax_cpu_only", [])
                if skipped:
                    reasons.append(Reason("index", f"jax {', '.join(skipped)} on the index has "
                                          "no CUDA plugin that runs on this driver and GPU: a "
                                          f"GPU build that runs (jax {jax} {plugin['extra']}) "
                                          "beats a newer CPU-only release on a GPU machine",
                                          plugin.get("source", ""), False))
                sms = ", ".join(sorted({g.sm or "?" for g in m.gpus}))
                reasons.append(Reason("arch", f"{plugin['extra']} supports SM "
                                      f"{plugin['min_cc']}+: {sms}",
                                      plugin.get("source", ""), confirmed(plugin)))
                break
            reasons.extend(fails)
            kinds = {f.constraint for f in fails}
            if kinds == {"driver"}:
                alternatives.append(Alternative(
                    f"upgrade the NVIDIA driver to >= "
                    f"{_need(plugin, m)} to use "
                    f"{plugin['extra']}", version=str(jax), variant=plugin["extra"],
                    command=_cmd(str(jax), plugin["extra"][4:-1], installer),
                    price=f"driver >= {_need(plugin, m)}",
                    source=plugin.get("source", "")))
        if extra is None:
            reasons.append(Reason("gpu", "no JAX CUDA plugin in the data runs on this GPU and "
                                  "driver: CPU jaxlib", INSTALL_URL))
    elif m.has_nvidia:
        reasons.append(Reason("platform", f"JAX has no NVIDIA GPU wheels for "
                              f"{PLATFORM_NAMES.get(platform)}: CPU jaxlib",
                              prow.get("source", "")))
        if platform == "win_amd64":
            wsl = _wsl_alternative(m, jax, installer, prow.get("source", ""))
            if wsl is not None:
                alternatives.append(wsl)
    elif m.nvidia == "unknown":
        reasons.append(Reason("gpu", "the snapshot does not say whether there is an NVIDIA GPU; "
                              "CPU jaxlib shown, add [cuda13] on a GPU machine", "", False))
    if kept_at is not None:   # now that the extra is chosen: what the command realigns
        reasons[kept_at] = replace(reasons[kept_at], text=_kept_text(m, jax, extra))
    if (assumed := data.glibc_assumed("jaxlib", platform, m, jax, "jax")) is not None:
        reasons.append(Reason("platform", assumed[0], assumed[1], False))
    shown = [w for w in wheels if not w.startswith("cuda") or _published(w, jax)]
    reasons.append(Reason("index", f"jaxlib {jax} wheels for {PLATFORM_NAMES.get(platform)} on "
                          f"PyPI ({', '.join(shown)})", prow.get("source", ""), confirmed(prow)))
    if installer == "conda":
        reasons.append(Reason("installer", CONDA_NOTE, ""))
    installed = m.installed.get("jax")
    status = "ok"
    known = Version(newest["last"])
    if installed is not None and installed.release > known.release:
        status = "keep"
        reasons.insert(0, Reason("installed", f"installed jax {installed} is newer than the data "
                                 f"({data.data_as_of()}); keep it unless it fails",
                                 release.get("source", ""), False))
    elif installed is not None and installed.release > jax.release:
        # A release the data knows, whose Python range leaves this interpreter out: the fix is
        # the newest jax for this Python (or a newer Python, the alternative above).
        own = next((r for r in _releases() if (first := ver(r.get("first"))) is not None
                    and first <= installed <= (ver(r.get("last")) or installed)), None)
        if own is not None:
            reasons.insert(0, Reason("python", f"installed jax {installed} needs Python "
                                     f"{own['python']}; jax {jax} is the newest for Python "
                                     f"{m.python}", own.get("source", "")))
    cmd = _cmd(str(jax), extra, installer)
    parts = [installed, m.installed.get("jaxlib")]
    if extra == "tpu":  # the extra pins the libtpu built with the release; any one installed
        parts.append(m.installed.get("libtpu") or m.installed.get("libtpu-nightly"))
    elif extra:  # the plugin and its PJRT runtime pin each other to the release
        parts += [m.installed.get(f"jax-{extra}-plugin"), m.installed.get(f"jax-{extra}-pjrt")]
    if extra == "tpu" and parts[-1] is not None and all(
            p is not None and p.release == jax.release for p in parts[:-1]):
        reasons.insert(0, Reason("installed", f"jax {installed} with libtpu {parts[-1]} "
                                 f"({variant}) is already installed: nothing to change", ""))
        return Suggestion("jax", "installed", version=str(jax), variant=variant,
                          reasons=tuple(reasons), alternatives=tuple(alternatives),
                          references=unique([INSTALL_URL, *(r.source for r in reasons)]))
    if all(p is not None and p.release == jax.release for p in parts):
        reasons.insert(0, Reason("installed", f"jax {installed} ({variant}) is already "
                                 "installed: nothing to change", ""))
        return Suggestion("jax", "installed", version=str(jax), variant=variant,
                          reasons=tuple(reasons), alternatives=tuple(alternatives),
                          references=unique([INSTALL_URL, *(r.source for r in reasons)]))
    pkgs = (f"jax[{extra}]=={jax}" if extra else f"jax=={jax}",)
    refs = unique([INSTALL_URL, *(r.source for r in reasons)])
    if status == "keep":
        alternatives.insert(0, Alternative(f"the newest jax in the data: {jax}", version=str(jax),
                                           variant=variant, command=cmd))
        return Suggestion("jax", "keep", version=str(installed), reasons=tuple(reasons),
                          alternatives=tuple(alternatives), references=refs)
    return Suggestion("jax", "ok", version=str(jax), variant=variant, command=cmd, packages=pkgs,
                      reasons=tuple(reasons), alternatives=tuple(alternatives), references=refs)
