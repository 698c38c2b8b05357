"""Mach-O files for tests: the header and load commands a macOS dylib or executable starts with.

The layout is <mach-o/loader.h> and <mach-o/fat.h> (Apple's cctools headers): a 64-bit
``mach_header_64`` (magic 0xfeedfacf, little-endian), then ``ncmds`` load commands; an
``LC_LOAD_DYLIB`` (0xc) names a library the loader maps (``/System/Library/Frameworks/
Metal.framework/Versions/A/Metal``). A universal ("fat") file starts with the big-endian
``fat_header`` (0xcafebabe) and one ``fat_arch`` per slice. Only the bytes a reader of load
commands looks at are written; the rest of a real file (segments, code) is left out.
"""

from __future__ import annotations

import struct

CPU = {"x86_64": 0x01000007, "arm64": 0x0100000C}
MH_EXECUTE, MH_DYLIB = 0x2, 0x6
LC_ID_DYLIB, LC_LOAD_DYLIB = 0xD, 0xC
METAL = ("/System/Library/Frameworks/Metal.framework/Versions/A/Metal",
         "/System/Library/Frameworks/MetalPerformanceShaders.framework/Versions/A/MetalPerformanceShaders",
         "/System/Library/Frameworks/MetalPerformanceShadersGraph.framework/Versions/A/MetalPerformanceShadersGraph")
BASE = ("/System/Library/Frameworks/Foundation.framework/Versions/C/Foundation",
        "/usr/lib/libc++.1.dylib", "/usr/lib/libSystem.B.dylib")


def _dylib_command(cmd: int, name: str) -> bytes:
    raw = name.encode() + b"\0"
    size = 24 + len(raw)
    size += (-size) % 8
    return struct.pack("<IIIIII", cmd, size, 24, 2, 0x10000, 0x10000) + raw.ljust(size - 24, b"\0")


def thin(arch: str, libraries: tuple[str, ...] = BASE, filetype: int = MH_DYLIB,
         install_name: str = "") -> bytes:
    """One slice: the header and its LC_ID_DYLIB / LC_LOAD_DYLIB commands."""
    cmds = [_dylib_command(LC_ID_DYLIB, install_name)] if install_name else []
    cmds += [_dylib_command(LC_LOAD_DYLIB, lib) for lib in libraries]
    body = b"".join(cmds)
    header = struct.pack("<IiiIIIII", 0xFEEDFACF, CPU[arch], 0, filetype, len(cmds), len(body),
                         0x00200085, 0)
    return header + body + b"\0" * 64


def fat(*slices: tuple[str, bytes]) -> bytes:
    """A universal file holding each ``(arch, thin bytes)`` slice, 4 KiB aligned."""
    head = struct.pack(">II", 0xCAFEBABE, len(slices))
    offset = 4096
    table, blobs = b"", b""
    for arch, data in slices:
        table += struct.pack(">iiIII", CPU[arch], 0, offset, len(data), 12)
        pad = (-len(data)) % 4096
        blobs += data + b"\0" * pad
        offset += len(data) + pad
    return (head + table).ljust(4096, b"\0") + blobs
