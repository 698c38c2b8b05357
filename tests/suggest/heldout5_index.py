"""A package index on 127.0.0.1 for the batch-5 held-out `--online` cases: releases newer
than anything published on 2026-12-02 (so newer than any shipped data can be).

One ``http.server`` in a thread serves what `suggest --online` reads:

* ``/simple/<project>/``: a PyPI-style simple index (PEP 691 JSON, or PEP 503 HTML with
  ``flavour="html"``) with ``requires-python``, a yanked file, a pre-release and PEP 658 core
  metadata (``<wheel>.metadata``);
* ``/whl/`` (the root page linking every variant) and ``/whl/<variant>/<project>/``: the
  PyTorch wheel root, with download.pytorch.org's file names (``torch-2.16.0+cu132-cp312-
  cp312-manylinux_2_28_x86_64.whl``).

The releases, hypothetical beyond 2026-12-02: torch 2.16.0 (requires Python >= 3.11, cp311 to
cp315) on cpu / cu126 / cu130 / cu132 / cu134 (Linux x86_64 and aarch64; not cu134 on Windows)
and rocm7.2 / rocm7.14 (Linux x86_64), a yanked 2.16.1 and a 2.17.0rc1; the real 2.14.0,
2.14.1 and 2.15.0 on the same variants; 2.11.0 on cu128 and 2.7.1 on cu118 (the last of those
indexes); PyPI's torch: 2.16.0 / 2.15.0 Linux (the CUDA 13.2 build, no local label), Windows
and macOS arm64 (CPU) wheels, 2.2.2 for Intel Macs. torchvision 0.30.0 pins torch==2.16.0
(core metadata), 0.29.2 requires torch>=2.14.0. jax / jaxlib / jax-cuda12-plugin /
jax-cuda13-plugin 0.13.0 (>= 3.12, cp312-cp315) besides the real 0.12.0.1, 0.10.2 (>= 3.11),
0.6.2 (>= 3.10) and, for Intel Macs, jaxlib 0.4.38. tensorflow 2.22.0 (cp310-cp314, Linux
x86_64 / aarch64, Windows, macOS arm64), 2.21.0 (cp310-cp313), 2.20.0 (cp39-cp313) and 2.16.2
for Intel Macs.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .heldout_common import wheel_cells

X86, ARM, WIN, MAC = ("manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "win_amd64",
                      "macosx_14_0_arm64")
CUDA13 = ("cu130", "cu132", "cu134")
VARIANTS = ("cpu", "cu118", "cu126", "cu128", "cu130", "cu132", "cu134", "rocm7.2", "rocm7.14")
NEWEST = {"torch": "2.16.0", "jax": "0.13.0", "tensorflow": "2.22.0"}


def _pys(low: int, high: int) -> list[str]:
    return [f"cp3{m}" for m in range(low, high + 1)]


def _files(name: str, version: str, pys: list[str], plats: list[str], *, rp: str | None = None,
           yanked: bool = False, requires: list[str] | None = None) -> list[dict]:
    return [{"filename": f"{name}-{version}-{py}-{py}-{plat}.whl", "requires_python": rp,
             "yanked": yanked, "requires": requires} for py in pys for plat in plats]


def _plats(variant: str) -> list[str]:
    if variant.startswith("rocm"):
        return [X86]
    if variant == "cu134":
        return [X86, ARM]          # CUDA_ARCHES_NO_WINDOWS
    return [X86, ARM, WIN]


def _torch_variant(variant: str) -> list[dict]:
    """The torch files of one folder of the wheel root."""
    local, plats = f"+{variant}", _plats(variant)
    if variant == "cu118":
        return _files("torch", "2.7.1+cu118", _pys(9, 13), [X86, WIN])
    if variant == "cu128":
        return _files("torch", "2.11.0+cu128", _pys(10, 14), [X86, ARM, WIN])
    out: list[dict] = []
    for version in ("2.14.0", "2.14.1"):
        out += _files("torch", version + local, _pys(10, 14), plats)
    out += _files("torch", "2.15.0" + local, _pys(11, 15), plats, rp=">=3.11")
    out += _files("torch", "2.16.0" + local, _pys(11, 15), plats, rp=">=3.11")
    out += _files("torch", "2.16.1" + local, _pys(11, 15), plats, rp=">=3.11", yanked=True)
    out += _files("torch", "2.17.0rc1" + local, _pys(11, 15), plats, rp=">=3.11")
    return out


def _vision(variant: str, plats: list[str]) -> list[dict]:
    local = f"+{variant}" if variant else ""
    return (_files("torchvision", "0.30.0" + local, _pys(11, 15), plats, rp=">=3.11",
                   requires=["numpy", f"torch==2.16.0{local}"])
            + [{"filename": f"torchvision-0.29.2{local}-py3-none-{p}.whl",
                "requires_python": ">=3.10", "yanked": False,
                "requires": ["numpy", "torch>=2.14.0"]} for p in plats])


def _jax() -> dict[str, list[dict]]:
    pages: dict[str, list[dict]] = {"jax": [], "jaxlib": [], "jax-cuda12-plugin": [],
                                    "jax-cuda13-plugin": []}
    for version, low, high in (("0.13.0", 12, 15), ("0.12.0.1", 12, 15), ("0.10.2", 11, 14),
                               ("0.6.2", 10, 13)):
        rp = f">=3.{low}"
        pages["jax"].append({"filename": f"jax-{version}-py3-none-any.whl",
                             "requires_python": rp, "yanked": False,
                             "requires": [f"jaxlib<={version}"]})
        pages["jaxlib"] += _files("jaxlib", version, _pys(low, high),
                                  ["manylinux_2_27_x86_64", "manylinux_2_27_aarch64",
                                   "macosx_11_0_arm64", WIN], rp=rp)
        for plugin in ("jax_cuda12_plugin", "jax_cuda13_plugin"):
            if plugin.startswith("jax_cuda13") and version == "0.6.2":
                continue
            pages[plugin.replace("_", "-")] += _files(
                plugin, version, _pys(low, high),
                ["manylinux_2_27_x86_64", "manylinux_2_27_aarch64"], rp=rp)
    pages["jaxlib"] += _files("jaxlib", "0.4.38", _pys(10, 13), ["macosx_10_14_x86_64"],
                              rp=">=3.10")
    pages["jax"].append({"filename": "jax-0.4.38-py3-none-any.whl", "requires_python": ">=3.10",
                         "yanked": False, "requires": ["jaxlib<=0.4.38"]})
    return pages


def projects() -> dict[str, list[dict]]:
    """path -> files, for every page the fixture serves."""
    pages: dict[str, list[dict]] = {}
    for variant in VARIANTS:
        pages[f"whl/{variant}/torch"] = _torch_variant(variant)
        pages[f"whl/{variant}/torchvision"] = _vision(variant, _plats(variant))
    linux = [X86, ARM]
    pages["simple/torch"] = (
        _files("torch", "2.2.2", _pys(8, 12), ["macosx_10_9_x86_64"])
        + _files("torch", "2.15.0", _pys(11, 15), [*linux, WIN, MAC], rp=">=3.11")
        + _files("torch", "2.16.0", _pys(11, 15), [*linux, WIN, MAC], rp=">=3.11")
        + _files("torch", "2.16.1", _pys(11, 15), [*linux, WIN, MAC], rp=">=3.11", yanked=True))
    pages["simple/torchvision"] = (
        _vision("", [*linux, WIN, MAC])
        + _files("torchvision", "0.17.2", _pys(8, 12), ["macosx_10_13_x86_64"],
                 requires=["numpy", "torch==2.2.2"]))
    for name, files in _jax().items():
        pages[f"simple/{name}"] = files
    tf_plats = ["manylinux_2_27_x86_64", "manylinux_2_27_aarch64", WIN, "macosx_12_0_arm64"]
    pages["simple/tensorflow"] = (
        _files("tensorflow", "2.16.2", _pys(9, 12), ["macosx_10_15_x86_64"], rp=">=3.9")
        + _files("tensorflow", "2.20.0", _pys(9, 13), tf_plats, rp=">=3.9")
        + _files("tensorflow", "2.21.0", _pys(10, 13), tf_plats, rp=">=3.10")
        + _files("tensorflow", "2.22.0", _pys(10, 14), tf_plats, rp=">=3.10")
        + _files("tensorflow", "2.23.0rc0", _pys(10, 14), tf_plats, rp=">=3.10"))
    return pages


class Index:
    """The running fixture: ``url`` of the simple index, ``torch_root``, ``paths`` asked."""

    def __init__(self, flavour: str = "json") -> None:
        self.flavour = flavour
        self.pages = projects()
        self.paths: list[str] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/simple"
        self.torch_root = f"http://127.0.0.1:{self.port}/whl"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        index = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                index.paths.append(self.path)
                path = self.path.split("?", 1)[0].strip("/")
                if path.endswith(".whl.metadata"):
                    return self._metadata(path)
                if path == "whl":
                    links = "".join(f'<a href="{v}/">{v}</a>\n' for v in VARIANTS)
                    return self._send(200, "text/html", f"<html>{links}</html>".encode())
                files = index.pages.get(path)
                if files is None:
                    return self._send(404, "text/plain", b"not found")
                base = f"/{path}/"
                if index.flavour == "json":
                    body = json.dumps({"meta": {"api-version": "1.1"},
                                       "name": path.split("/")[-1],
                                       "files": [_json_file(f, base) for f in files]}).encode()
                    return self._send(200, "application/vnd.pypi.simple.v1+json", body)
                links = "".join(_html_link(f, base) for f in files)
                return self._send(200, "text/html",
                                  f"<!DOCTYPE html><html><body>{links}</body></html>".encode())

            def _metadata(self, path: str) -> None:
                name = path.rsplit("/", 1)[-1][:-len(".metadata")]
                for files in index.pages.values():
                    for f in files:
                        if f["filename"] == name and f["requires"]:
                            dist, version = name.split("-")[:2]
                            text = (f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n"
                                    + "".join(f"Requires-Dist: {r}\n" for r in f["requires"]))
                            return self._send(200, "text/plain", text.encode())
                return self._send(404, "text/plain", b"no metadata")

            def _send(self, code: int, ctype: str, body: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except OSError:
                    pass

        return Handler

    def start(self) -> Index:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _json_file(f: dict, base: str) -> dict:
    out = {"filename": f["filename"], "url": f"{base}{f['filename']}", "hashes": {},
           "requires-python": f["requires_python"], "core-metadata": bool(f["requires"])}
    if f["yanked"]:
        out["yanked"] = "a broken build"
    return out


def _html_link(f: dict, base: str) -> str:
    attrs = f' href="{base}{f["filename"]}#sha256=00"'
    if f["requires_python"]:
        attrs += f' data-requires-python="{escape(f["requires_python"])}"'
    if f["yanked"]:
        attrs += ' data-yanked="a broken build"'
    if f["requires"]:
        attrs += ' data-dist-info-metadata="true" data-core-metadata="true"'
    return f"<a{attrs}>{f['filename']}</a><br/>\n"


@contextmanager
def serving(flavour: str = "json") -> Iterator[Index]:
    index = Index(flavour).start()
    try:
        yield index
    finally:
        index.stop()


def torch_cells() -> set[tuple[str, str, str, str]]:
    """(version, variant, platform, cpXY) of every non-yanked final torch wheel the fixture
    lists: what the judge counts as installable when it judges `--online` answers."""
    plat_of = {X86: "linux_x86_64", ARM: "linux_aarch64", WIN: "win_amd64", MAC: "macos_arm64",
               "macosx_10_9_x86_64": "macos_x86_64"}

    def pypi(version: Any, platform: str) -> str:   # PyPI's wheel is this build
        return "cu132" if platform.startswith("linux") else "cpu"
    return wheel_cells(projects(), plat_of, pypi)
