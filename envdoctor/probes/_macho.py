"""Mach-O headers as the macOS loader reads them: the CPU slices of a file and the libraries
its load commands ask for.

Why: on a Mac, whether a framework can use the GPU is written in its libraries. A torch built
with MPS has ``libtorch_cpu.dylib`` linked against MetalPerformanceShaders (an
``LC_LOAD_DYLIB`` command), a Python binary says which CPUs it runs on (an ``x86_64``-only
python on Apple silicon always runs under Rosetta 2). The header and load commands sit at the
start of the file (<mach-o/loader.h>, <mach-o/fat.h>), so one bounded read of the first
``LIMIT`` bytes of each slice answers both without loading anything.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass

from envdoctor.bounded import CappedFile, open_capped

LIMIT = 1 << 16
MAX_SLICES = 8
MAX_COMMANDS = 512
MH_MAGIC_64, MH_CIGAM_64 = 0xFEEDFACF, 0xCFFAEDFE
FAT_MAGIC, FAT_MAGIC_64 = 0xCAFEBABE, 0xCAFEBABF
LOAD_DYLIB = {0xC, 0x80000018, 0x8000001F, 0x80000023}  # LC_LOAD_DYLIB, _WEAK, _REEXPORT, _UPWARD
CPU_NAMES = {0x01000007: "x86_64", 0x0100000C: "arm64", 0x00000007: "i386", 0x0000000C: "arm"}


@dataclass(frozen=True)
class MachO:
    """What a Mach-O file's headers say: its slices' CPUs and the dylibs they load."""

    archs: tuple[str, ...] = ()
    dylibs: tuple[str, ...] = ()
    error: str = ""


def read(path: str | os.PathLike[str]) -> MachO:
    """The slices and load commands of ``path``; ``error`` says why they could not be read
    (missing, not Mach-O, truncated). A universal file's slices are each read from their own
    offset, at most ``LIMIT`` bytes each."""
    capped = open_capped(path, LIMIT * (MAX_SLICES + 1))
    if capped is None:
        return MachO(error="unreadable")
    with capped:
        try:
            head = capped.read(LIMIT)
            if len(head) < 8:
                return MachO(error="not a Mach-O file")
            magic = struct.unpack(">I", head[:4])[0]
            if magic in (FAT_MAGIC, FAT_MAGIC_64):
                return _fat(capped, head, wide=magic == FAT_MAGIC_64)
        except OSError as exc:
            return MachO(error=f"unreadable: {exc}")
    arch, dylibs, error = _thin(head)
    return MachO(archs=(arch,) if arch else (), dylibs=dylibs, error=error)


def _thin(data: bytes) -> tuple[str, tuple[str, ...], str]:
    if len(data) < 32:
        return "", (), "not a Mach-O file"
    magic = struct.unpack("<I", data[:4])[0]
    if magic not in (MH_MAGIC_64, MH_CIGAM_64):
        return "", (), "not a 64-bit Mach-O file"
    order = "<" if magic == MH_MAGIC_64 else ">"
    cputype, _sub, _kind, ncmds, sizeofcmds = struct.unpack(order + "iiIII", data[4:24])
    arch = CPU_NAMES.get(cputype & 0xFFFFFFFF, f"cpu-{cputype & 0xFFFFFFFF:#x}")
    dylibs: list[str] = []
    offset, end = 32, 32 + sizeofcmds
    for _ in range(min(ncmds, MAX_COMMANDS)):
        if offset + 8 > min(end, len(data)):
            break  # the rest lies past the bytes read: what was read stands
        cmd, size = struct.unpack(order + "II", data[offset:offset + 8])
        if size < 8 or offset + size > end:
            return arch, tuple(dylibs), "a load command runs past the header"
        if offset + size > len(data):
            break
        if cmd in LOAD_DYLIB and size >= 24:
            name_at = struct.unpack(order + "I", data[offset + 8:offset + 12])[0]
            raw = data[offset + name_at:offset + size] if 12 <= name_at < size else b""
            name = raw.split(b"\0", 1)[0].decode("utf-8", errors="replace")[:512]
            if name:
                dylibs.append(name)
        offset += size
    return arch, tuple(dylibs), ""


def _fat(capped: CappedFile, head: bytes, wide: bool) -> MachO:
    count = struct.unpack(">I", head[4:8])[0]
    entry = 32 if wide else 20
    archs: list[str] = []
    dylibs: list[str] = []
    for i in range(min(count, MAX_SLICES)):
        at = 8 + i * entry
        if at + entry > len(head):
            return MachO(tuple(archs), tuple(dylibs), "universal header truncated")
        if wide:
            cputype, _sub, offset, _size = struct.unpack(">iiQQ", head[at:at + 24])
        else:
            cputype, _sub, offset, _size = struct.unpack(">iiII", head[at:at + 16])
        archs.append(CPU_NAMES.get(cputype & 0xFFFFFFFF, f"cpu-{cputype & 0xFFFFFFFF:#x}"))
        capped.seek(offset)
        data = capped.read(LIMIT)
        _arch, found, _error = _thin(data)
        dylibs += [d for d in found if d not in dylibs]
    return MachO(tuple(archs), tuple(dylibs))

