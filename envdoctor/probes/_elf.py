"""Shared libraries as the dynamic loader sees them: ELF headers and ld.so's search order.

Whether a system cuDNN on LD_LIBRARY_PATH replaces the one a framework wheel brings is not a
matter of "can": ld.so(8) decides it from the loading object's own headers. For a DT_NEEDED
name without a slash it searches, in this order and stopping at the first compatible file:

1. DT_RPATH of the object, then of the objects that loaded it (each only while the object
   whose RPATH it is has no DT_RUNPATH) -- skipped entirely when the object has DT_RUNPATH;
2. LD_LIBRARY_PATH;
3. DT_RUNPATH of the object (its own direct NEEDED only, never its dependencies');
4. /etc/ld.so.cache (``ldconfig -p`` lists it in lookup order);
5. the default folders (/lib, /usr/lib, their 64-bit and multiarch forms).

``read_elf`` reads only the ELF header, the program headers and the dynamic segment through a
byte budget (``bounded.open_capped``), so a gigabyte libtorch_cuda.so costs kilobytes and a
malformed file is an error string for that file, never an exception. ``resolve`` applies the
order above; ``$ORIGIN`` is the folder of the object as it was found.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envdoctor.bounded import BudgetExceeded, open_capped

MAX_DT_ENTRIES = 4096      # a real dynamic section has < 200 entries
MAX_PHDRS = 256            # a real library has < 16 program headers
MAX_NAME = 4096            # characters of one soname / search path string
DEFAULT_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib")


@dataclass(frozen=True)
class Elf:
    """What the loader reads from one shared object's dynamic section."""

    path: str
    soname: str = ""
    needed: tuple[str, ...] = ()
    rpath: tuple[str, ...] = ()      # DT_RPATH entries, $ORIGIN expanded
    runpath: tuple[str, ...] = ()    # DT_RUNPATH entries, $ORIGIN expanded
    elfclass: int = 0                # 32 or 64
    machine: str = ""                # EM_X86_64, EM_AARCH64


def read_elf(path: str | os.PathLike[str]) -> Elf | str:
    """The dynamic-section facts of ``path``, or why they could not be read (a short reason)."""
    try:
        from elftools.common.exceptions import ELFError
        from elftools.elf.elffile import ELFFile
    except ImportError:
        return "pyelftools is not installed"
    fh = open_capped(path)
    if fh is None:
        return "not a readable regular file"
    try:
        with fh:
            if fh.read(4) != b"\x7fELF":
                return "not an ELF file"
            fh.seek(0)
            elf = ELFFile(fh)  # type: ignore[arg-type]  # a seekable binary reader
            return _dynamic(elf, str(path))
    except BudgetExceeded:
        return "ELF headers exceed the read budget (corrupt or hostile file)"
    except (ELFError, ValueError, KeyError, IndexError, OverflowError, OSError, TypeError,
            AttributeError, AssertionError) as exc:
        return f"malformed ELF: {type(exc).__name__}: {str(exc)[:120]}"
    except Exception as exc:  # noqa: BLE001 - construct (pyelftools' parser) raises its own kinds
        return f"malformed ELF: {type(exc).__name__}: {str(exc)[:120]}"


def _dynamic(elf: Any, path: str) -> Elf:
    """Parse PT_DYNAMIC from the program headers directly: pyelftools' DynamicSegment walks
    every section header to find a symbol table, which costs seconds on libtensorflow_cc.so."""
    from elftools.common.utils import parse_cstring_from_stream, struct_parse

    header, stream, structs = elf.header, elf.stream, elf.structs
    phdrs = []
    for i in range(min(int(header["e_phnum"]), MAX_PHDRS)):
        phdrs.append(struct_parse(structs.Elf_Phdr, stream,
                                  stream_pos=header["e_phoff"] + i * header["e_phentsize"]))
    dyn = next((ph for ph in phdrs if ph["p_type"] == "PT_DYNAMIC"), None)
    tags: list[tuple[str, int]] = []
    if dyn is not None:
        size = structs.Elf_Dyn.sizeof()
        for k in range(min(int(dyn["p_filesz"]) // max(size, 1), MAX_DT_ENTRIES)):
            entry = struct_parse(structs.Elf_Dyn, stream, stream_pos=dyn["p_offset"] + k * size)
            if entry["d_tag"] == "DT_NULL":
                break
            tags.append((str(entry["d_tag"]), int(entry["d_val"])))
    strtab = next((v for t, v in tags if t == "DT_STRTAB"), None)
    base = _file_offset(phdrs, strtab) if strtab is not None else None

    def string(offset: int) -> str:
        if base is None:
            raise ValueError("DT_STRTAB is outside every PT_LOAD segment")
        raw = parse_cstring_from_stream(stream, base + offset) or b""
        return _text(raw)

    soname, needed, rpath, runpath = "", [], "", ""
    for kind, value in tags:
        if kind == "DT_NEEDED":
            needed.append(string(value))
        elif kind == "DT_SONAME":
            soname = string(value)
        elif kind == "DT_RPATH":
            rpath = string(value)
        elif kind == "DT_RUNPATH":
            runpath = string(value)
    origin = os.path.dirname(os.path.abspath(path))
    return Elf(path, soname, tuple(needed), expand(rpath, origin), expand(runpath, origin),
               int(elf.elfclass), str(header["e_machine"]))


def _file_offset(phdrs: list[Any], addr: int) -> int | None:
    """The file offset of virtual address ``addr`` (the PT_LOAD segment that maps it)."""
    for ph in phdrs:
        if ph["p_type"] == "PT_LOAD" and ph["p_vaddr"] <= addr < ph["p_vaddr"] + ph["p_filesz"]:
            return int(addr - ph["p_vaddr"] + ph["p_offset"])
    return None


def _text(value: object) -> str:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return text[:MAX_NAME]


def expand(paths: str, origin: str) -> tuple[str, ...]:
    """A colon list of search folders with ``$ORIGIN`` / ``${ORIGIN}`` replaced by ``origin``
    (empty entries mean the current folder to ld.so; they are dropped as meaningless here)."""
    out = []
    for entry in paths.split(":"):
        if not entry:
            continue
        entry = entry.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)
        out.append(os.path.normpath(entry))
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class Resolved:
    """Where ld.so finds one name for one object: the file and the search step that found it."""

    path: str          # "" when nothing is found
    step: str          # rpath | ld_library_path | runpath | ld.so.cache | default | not_found
    candidates: tuple[tuple[str, str], ...] = ()   # every (path, step) that holds the name


def resolve(name: str, obj: Elf | None, *, loaders: tuple[Elf, ...] = (),
            ld_library_path: str = "", cache: tuple[str, ...] = (),
            root: Path = Path("/"), compatible: bool = True) -> Resolved:
    """The file ld.so loads for DT_NEEDED ``name`` of ``obj`` (None: a dlopen from an object
    without search paths, as libcudart's dlopen of libcuda.so.1). ``loaders`` are the objects
    that loaded ``obj``, nearest first; ``cache`` the paths ``ldconfig -p`` lists for ``name``
    in order; system folders (cache, defaults) are read under ``root``. With ``compatible`` a
    file of another ELF class or machine than ``obj`` is skipped, as ld.so skips it."""
    if "/" in name:
        return Resolved(name, "path", ((name, "path"),))
    def inside(dirs: tuple[str, ...] | list[str]) -> tuple[str, ...]:
        return tuple(os.path.join(folder, name) for folder in dict.fromkeys(dirs))

    steps: list[tuple[str, tuple[str, ...], bool]] = []
    if obj is not None and not obj.runpath:
        dirs = list(obj.rpath)
        for loader in loaders:
            if loader.runpath:
                break
            dirs += loader.rpath
        steps.append(("rpath", inside(dirs), False))
    steps.append(("ld_library_path", inside([d for d in ld_library_path.split(":") if d]), False))
    if obj is not None:
        steps.append(("runpath", inside(obj.runpath), False))
    steps.append(("ld.so.cache", tuple(cache), True))
    steps.append(("default", inside(DEFAULT_DIRS), True))
    found: list[tuple[str, str]] = []
    for step, files, system in steps:
        for shown in files:
            real = _under(root, shown) if system else Path(shown)
            if not real.is_file() or any(p == shown for p, _ in found):
                continue
            if compatible and obj is not None and not _same_kind(obj, real):
                continue
            found.append((shown, step))
    if not found:
        return Resolved("", "not_found")
    return Resolved(found[0][0], found[0][1], tuple(found))


def _under(root: Path, path: str) -> Path:
    return Path(path) if root == Path("/") else root / path.lstrip("/")


def _same_kind(obj: Elf, candidate: Path) -> bool:
    """False only when ``candidate`` is an ELF of another class or machine (an empty or
    unreadable stand-in is not judged: the loader would fail on it either way)."""
    if not obj.elfclass:
        return True
    other = read_elf(candidate)
    if isinstance(other, str):
        return True
    return other.elfclass == obj.elfclass and other.machine == obj.machine
