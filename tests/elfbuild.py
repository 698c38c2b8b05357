"""Real ELF shared libraries for tests, compiled with the gcc on PATH.

``shared_lib`` writes a tiny ``.so`` with a chosen SONAME, DT_NEEDED entries and a search path
written as DT_RPATH (``--disable-new-dtags``) or DT_RUNPATH (``--enable-new-dtags``), so the
loader-view code is tested on the headers a real linker writes, and its verdict can be checked
against the real ld.so.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

GCC = shutil.which("gcc")


def shared_lib(out: Path, soname: str, *, needed: tuple[Path, ...] = (), rpath: str = "",
               runpath: bool = False, symbol: str = "") -> Path:
    """Compile ``out`` (SONAME ``soname``) linking the libraries ``needed`` (each becomes a
    DT_NEEDED of its SONAME); ``rpath`` is written as DT_RUNPATH when ``runpath`` else DT_RPATH.
    ``symbol`` names a function it exports (returns its own name's length)."""
    if GCC is None:
        raise RuntimeError("gcc is not on PATH")
    out.parent.mkdir(parents=True, exist_ok=True)
    src = out.with_name(out.name + ".c")
    name = symbol or "envdoctor_test_" + "".join(c if c.isalnum() else "_" for c in soname)
    src.write_text(f"int {name}(void) {{ return {len(name)}; }}\n")
    argv = [GCC, "-shared", "-fPIC", "-o", str(out), str(src), f"-Wl,-soname,{soname}"]
    argv += ["-Wl,--no-as-needed"] if needed else []
    argv += [str(lib) for lib in needed]
    if rpath:
        argv += [f"-Wl,-rpath,{rpath}",
                 "-Wl,--enable-new-dtags" if runpath else "-Wl,--disable-new-dtags"]
    subprocess.run(argv, check=True, capture_output=True, timeout=60)
    src.unlink()
    return out
