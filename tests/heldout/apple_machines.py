"""Simulated Apple Macs, run through `check --static --root DIR --expect gpu`.

Written with their expected verdicts (and the sources below) before any Apple probe, matrix or
check existed; the first-run figure is in tests/heldout/APPLE.md. Each machine is:

- fake ``sw_vers`` and ``sysctl`` on PATH printing RECORDED real outputs
  (tests/data/tools/{sw_vers,sysctl}/*.txt, each with its source URL on line 1); ``sysctl``
  answers the names it is asked for in its own ``name: value`` layout and says
  ``sysctl: unknown oid 'NAME'`` (exit 1) for the others, as macOS's does;
- /System/Library/CoreServices/SystemVersion.plist under the root (the file sw_vers reads);
- a fake site-packages on PYTHONPATH laid out as the macOS wheels lay it out: the dist-info's
  WHEEL file with the wheel's platform tag (``cp311-none-macosx_11_0_arm64``), torch/version.py,
  torch/lib/libtorch_cpu.dylib as a Mach-O header whose LC_LOAD_DYLIB commands name the Metal
  frameworks where the build has MPS (tests/machobuild.py), jax_plugins/metal_plugin for
  jax-metal, tensorflow-plugins/libmetal_plugin.dylib for tensorflow-metal.

Sources for the expected verdicts:
 MPS   PyTorch MPS backend: "macOS 12.3+" (docs/source/notes/mps.rst,
       https://pytorch.org/docs/stable/notes/mps.html); torch 2.5 needs macOS 13.0 for MPS
       (maintainer, https://github.com/pytorch/pytorch/issues/139425)
 WHL   torch macOS wheels on PyPI: x86_64 wheels end with 2.2.2, arm64 wheels are tagged
       macosx_11_0_arm64 through 2.11 and macosx_14_0_arm64 from 2.12 (https://pypi.org/simple/torch/)
 ROS   an x86_64 Python on Apple silicon runs under Rosetta 2: no MPS, x86 wheels only
       (https://github.com/Comfy-Org/comfy-cli/pull/568, https://developer.apple.com/documentation/apple-silicon/about-the-rosetta-translation-environment)
 JM    jax-metal 0.1.1 works with jax/jaxlib 0.4.34 .. 0.5.0; 0.5.1+ fails with "UNIMPLEMENTED:
       default_memory_space is not supported" (https://github.com/jax-ml/jax/issues/27062,
       https://github.com/jax-ml/jax/issues/26968); Requires-Dist of the jax-metal wheels (PyPI)
 TFM   tensorflow-metal 1.1.0 loads with TensorFlow 2.17 and not with 2.18 (libmetal_plugin.dylib
       symbol not found: https://github.com/tensorflow/tensorflow/issues/84167,
       https://github.com/tensorflow/tensorflow/issues/81987); Apple's table
       https://developer.apple.com/metal/tensorflow-plugin/
 NOMPS a torch built from source without MPS: "PyTorch is not linked with support for mps
       devices" (https://github.com/pytorch/pytorch/issues/77867,
       https://github.com/NixOS/nixpkgs/issues/243868)
"""
from __future__ import annotations

import stat
from pathlib import Path

from tests import machobuild

TOOLS = Path(__file__).resolve().parents[1] / "data" / "tools"


def recorded(rel: str) -> str:
    return (TOOLS / rel).read_text(encoding="utf-8").partition("\n")[2]


# --------------------------------------------------------------------------- site-packages
def _dist(name: str, version: str, tag: str, files: dict, top: str) -> dict:
    return {"name": name, "version": version, "tag": tag, "files": files, "top": top}


def torch(version: str, tag: str = "cp311-none-macosx_11_0_arm64", mps: bool = True) -> dict:
    arch = "x86_64" if tag.endswith("x86_64") else "arm64"
    body = ("from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', "
            "'git_version', 'hip']\n"
            f"__version__ = '{version}'\ndebug = False\ncuda: Optional[str] = None\n"
            "git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n"
            "hip: Optional[str] = None\n")
    libs = (machobuild.METAL if mps else ()) + machobuild.BASE + ("@rpath/libc10.dylib",)
    lib = machobuild.thin(arch, libs, install_name="@rpath/libtorch_cpu.dylib")
    return _dist("torch", version, tag, {"torch/__init__.py": "", "torch/version.py": body,
                                         "torch/lib/libtorch_cpu.dylib": lib}, "torch")


def numpy(version: str = "1.26.4") -> dict:
    return _dist("numpy", version, "cp311-cp311-macosx_14_0_arm64", {"numpy/__init__.py": ""},
                 "numpy")


def jax(version: str) -> dict:
    return _dist("jax", version, "py3-none-any", {"jax/__init__.py": ""}, "jax")


def jaxlib(version: str, tag: str = "cp311-cp311-macosx_11_0_arm64") -> dict:
    return _dist("jaxlib", version, tag, {"jaxlib/__init__.py": ""}, "jaxlib")


def jax_metal(version: str) -> dict:
    return _dist("jax-metal", version, "py3-none-macosx_11_0_arm64",
                 {"jax_plugins/metal_plugin/__init__.py": "",
                  "jax_plugins/metal_plugin/pjrt_plugin_metal_14.dylib":
                      machobuild.thin("arm64", machobuild.METAL + machobuild.BASE)}, "jax_plugins")


def tensorflow(version: str, tag: str = "cp311-cp311-macosx_12_0_arm64") -> dict:
    info = ("import collections\n\nbuild_info = collections.OrderedDict([('is_cuda_build', "
            "False), ('is_rocm_build', False), ('is_tensorrt_build', False)])\n")
    return _dist("tensorflow", version, tag,
                 {"tensorflow/__init__.py": "",
                  "tensorflow/python/platform/build_info.py": info}, "tensorflow")


def tensorflow_metal(version: str) -> dict:
    return _dist("tensorflow-metal", version, "cp311-cp311-macosx_12_0_arm64",
                 {"tensorflow-plugins/libmetal_plugin.dylib":
                      machobuild.thin("arm64", machobuild.METAL + machobuild.BASE)},
                 "tensorflow-plugins")


# --------------------------------------------------------------------------- system
def mac(version: str, build: str, sysctl: str, sw_vers: str | None = None) -> dict:
    return {"version": version, "build": build, "sysctl": sysctl, "sw_vers": sw_vers}


SCENARIOS = [
    dict(name="m1-macos13-torch251-healthy", healthy=True, sources=("MPS", "WHL"),
         system=mac("13.4.1", "22F82", "sysctl/01-m1-native.txt"),
         dists=[torch("2.5.1")]),
    # labelled healthy at first; corrected to jax-metal-mismatch: Apple's jax-metal table
    # (https://pypi.org/project/jax-metal/) gives 0.1.1 "Sonoma 14.4+", and jax-ml/jax#20338
    # shows a plugin newer than the macOS failing ("current mps dialect version is 1.0.0,
    # can't parse version 1.1.0")
    dict(name="m1pro-macos14-jax-metal-healthy", healthy=False, sources=("JM",),
         labels=["jax-metal-mismatch"],
         system=mac("14.2.1", "23C71", "sysctl/02-m1pro-native.txt", "sw_vers/02-14.2.1.txt"),
         dists=[numpy(), jax("0.4.34"), jaxlib("0.4.34"), jax_metal("0.1.1")]),
    dict(name="m2max-macos15-tf-metal-healthy", healthy=True, sources=("TFM",),
         system=mac("15.1.1", "24B91", "sysctl/03-m2max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[numpy(), tensorflow("2.17.0"), tensorflow_metal("1.1.0")]),
    dict(name="m3max-macos15-torch213-healthy", healthy=True, sources=("MPS", "WHL"),
         system=mac("15.1.1", "24B91", "sysctl/05-m3max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[torch("2.13.0", tag="cp312-cp312-macosx_14_0_arm64")]),
    # labelled healthy at first; corrected as the row above (jax-metal 0.1.1 on macOS 14.2.1)
    dict(name="m1-macos14-all-three-healthy", healthy=False, sources=("MPS", "JM", "TFM"),
         labels=["jax-metal-mismatch"],
         system=mac("14.2.1", "23C71", "sysctl/01-m1-native.txt", "sw_vers/02-14.2.1.txt"),
         dists=[numpy(), torch("2.5.1"), jax("0.5.0"), jaxlib("0.5.0"), jax_metal("0.1.1"),
                tensorflow("2.16.2"), tensorflow_metal("1.1.0")]),
    dict(name="m3max-rosetta-x86-python-torch222", healthy=False, sources=("ROS", "WHL"),
         labels=["x86-python-on-apple-silicon"],
         system=mac("15.1.1", "24B91", "sysctl/04-m3max-rosetta.txt", "sw_vers/03-15.1.1.txt"),
         dists=[torch("2.2.2", tag="cp311-none-macosx_10_9_x86_64")]),
    dict(name="m3max-rosetta-x86-jaxlib", healthy=False, sources=("ROS",),
         labels=["x86-python-on-apple-silicon"],
         system=mac("15.1.1", "24B91", "sysctl/04-m3max-rosetta.txt"),
         dists=[numpy(), jax("0.4.30"), jaxlib("0.4.30", tag="cp311-cp311-macosx_10_14_x86_64")]),
    dict(name="m1-macos12.2-torch201", healthy=False, sources=("MPS",),
         labels=["macos-too-old-for-mps"],
         system=mac("12.2.1", "21D62", "sysctl/01-m1-native.txt"),
         dists=[torch("2.0.1")]),
    dict(name="m1-macos12.7-torch251", healthy=False, sources=("MPS",),
         labels=["macos-too-old-for-mps"],
         system=mac("12.7.6", "21H1320", "sysctl/01-m1-native.txt", "sw_vers/01-12.7.6-m1.txt"),
         dists=[torch("2.5.1")]),
    dict(name="m2max-jax-metal-jax052-mismatch", healthy=False, sources=("JM",),
         labels=["jax-metal-mismatch"],
         system=mac("15.1.1", "24B91", "sysctl/03-m2max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[numpy(), jax("0.5.2"), jaxlib("0.5.1"), jax_metal("0.1.1")]),
    dict(name="m2max-tf218-tf-metal-110-mismatch", healthy=False, sources=("TFM",),
         labels=["tensorflow-metal-mismatch"],
         system=mac("15.1.1", "24B91", "sysctl/03-m2max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[numpy(), tensorflow("2.18.0"), tensorflow_metal("1.1.0")]),
    dict(name="m1pro-torch-built-without-mps", healthy=False, sources=("NOMPS",),
         labels=["torch-without-mps"],
         system=mac("14.2.1", "23C71", "sysctl/02-m1pro-native.txt", "sw_vers/02-14.2.1.txt"),
         dists=[torch("2.5.0a0+gita8d6afb", tag="cp311-cp311-macosx_14_0_arm64", mps=False)]),
]

PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>BuildID</key>
	<string>7C5E4C2A-0000-11EE-9C5B-6E8F4B6D2D00</string>
	<key>ProductBuildVersion</key>
	<string>{build}</string>
	<key>ProductCopyright</key>
	<string>1983-2024 Apple Inc.</string>
	<key>ProductName</key>
	<string>macOS</string>
	<key>ProductUserVisibleVersion</key>
	<string>{version}</string>
	<key>ProductVersion</key>
	<string>{version}</string>
	<key>iOSSupportVersion</key>
	<string>17.0</string>
</dict>
</plist>
"""


def _sysctl(path: Path, rel: str, box: Path) -> None:
    """A fake sysctl: ``sysctl [-n] NAME...`` prints each recorded ``NAME: value`` (the value
    alone with -n) and ``sysctl: unknown oid 'NAME'`` on stderr for a name it does not hold,
    exiting 1 then, as macOS's sysctl does."""
    table = box / "sysctl-recorded.txt"
    table.write_text(recorded(rel))
    path.write_text(f"""#!/bin/sh
bare=0; rc=0
for a in "$@"; do
  case "$a" in
    -n) bare=1;;
    -*) ;;
    *) line=$(grep -F "$a: " '{table}' | head -n 1)
       if [ -z "$line" ]; then echo "sysctl: unknown oid '$a'" >&2; rc=1
       elif [ $bare = 1 ]; then echo "${{line#*: }}"
       else echo "$line"; fi;;
  esac
done
exit $rc
""")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def _sw_vers(path: Path, rel: str, box: Path) -> None:
    out = box / "sw_vers-recorded.txt"
    out.write_text(recorded(rel))
    path.write_text(f"#!/bin/sh\ncat '{out}'\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def build(sc: dict, box: Path) -> tuple[Path, Path, Path]:
    """(site-packages, bin, root) of one machine."""
    site, bindir, root = box / "site", box / "bin", box / "root"
    for d in (site, bindir, root):
        d.mkdir(parents=True)
    for dist in sc.get("dists", ()):
        meta = site / f"{dist['name'].replace('-', '_')}-{dist['version']}.dist-info"
        meta.mkdir()
        (meta / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist['name']}\nVersion: {dist['version']}\n\n")
        (meta / "WHEEL").write_text(f"Wheel-Version: 1.0\nGenerator: bdist_wheel (0.43.0)\n"
                                    f"Root-Is-Purelib: false\nTag: {dist['tag']}\n\n")
        (meta / "top_level.txt").write_text(dist["top"] + "\n")
        for rel, content in dist["files"].items():
            p = site / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                p.write_text(content)
    s = sc["system"]
    _sysctl(bindir / "sysctl", s["sysctl"], box)
    if s.get("sw_vers"):
        _sw_vers(bindir / "sw_vers", s["sw_vers"], box)
    plist = root / "System/Library/CoreServices/SystemVersion.plist"
    plist.parent.mkdir(parents=True)
    plist.write_text(PLIST.format(version=s["version"], build=s["build"]))
    (root / "etc").mkdir()
    return site, bindir, root
