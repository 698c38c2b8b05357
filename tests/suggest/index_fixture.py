"""A package index on 127.0.0.1 that lists newer releases than the shipped data.

One ``http.server`` in a thread serves both halves of what `suggest --online` reads:

* ``/simple/<project>/`` (and the same under ``/mirror/simple/``): a PyPI-style simple index,
  PEP 691 JSON or PEP 503 HTML (``flavour``), with ``requires-python``, yanked files and PEP 658
  core metadata (``<wheel>.metadata``);
* ``/whl/<variant>/<project>/``: the PyTorch wheel root (cpu, cu126, cu128, cu130, cu132, and
  cu129 / cu140 with torch 2.16.0 only, known from the root's own page alone);
  and xpu, torch 2.14.1 / 2.16.0 for Linux x86_64 and Windows, which the root's page does
  not link).

Releases: torch 2.13.0 and 2.14.0 (as in the shipped rules/matrices) and the hypothetical newer
2.14.1 and 2.16.0 (2.16.0 requires Python >= 3.11, cp311-cp313; the others cp310-cp313), a
yanked 2.16.1 and a 2.17.0rc1, with torchvision / torchaudio pinned to them through core
metadata; torch 2.2.2 (and torchvision 0.17.2) for Intel Macs; jax / jaxlib /
jax-cuda12-plugin / jax-cuda13-plugin 0.10.0 to 0.11.1 and the newer 0.13.0 (Python >= 3.11);
tensorflow 2.21.0 / 2.21.1 and the newer 2.22.0 with macOS arm64 wheels, 2.16.2 for Intel
Macs. ``mode`` makes the server slow (sleeps past any deadline) or hostile (a huge body, deeply
nested JSON, HTML with no links). ``paths`` records every path asked for.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LINUX = ["manylinux_2_28_x86_64", "manylinux_2_28_aarch64"]
# the torch root's variants; its own page (/whl/) links to each, as download.pytorch.org's does
VARIANTS = ("cpu", "cu126", "cu128", "cu129", "cu130", "cu132", "cu140")
ALL = [*LINUX, "macosx_11_0_arm64", "win_amd64"]
JAX_RELEASES = ("0.10.0", "0.11.0", "0.11.1", "0.13.0")   # 0.13.0: newer than the shipped data


def _pys(low: int, high: int) -> list[str]:
    return [f"cp3{m}" for m in range(low, high + 1)]


def _wheels(name: str, version: str, pys: list[str], plats: list[str], *, rp: str | None = None,
            yanked: bool = False, requires: list[str] | None = None) -> list[dict]:
    return [{"filename": f"{name}-{version}-{py}-{py}-{plat}.whl", "requires_python": rp,
             "yanked": yanked, "requires": requires} for py in pys for plat in plats]


def _torch_release(variant: str) -> list[dict]:
    """The torch wheels of one variant of the torch root (cpu, cuXYZ)."""
    out: list[dict] = []
    if variant in ("cu129", "cu140"):   # only on the root's own list, not in the shipped data
        return _wheels("torch", f"2.16.0+{variant}", _pys(11, 13), ["manylinux_2_28_x86_64"],
                       rp=">=3.11")
    plats = ALL if variant == "cpu" else ["manylinux_2_28_x86_64", "manylinux_2_28_aarch64",
                                          "win_amd64"]
    plats = [p for p in plats if not p.startswith("macosx")]
    new = variant in ("cpu", "cu126", "cu130", "cu132")
    local = f"+{variant}"
    if variant == "cu128":
        out += _wheels("torch", f"2.11.0{local}", _pys(10, 13), plats)
    if not new:
        return out
    out += _wheels("torch", f"2.13.0{local}", _pys(10, 13), plats)
    out += _wheels("torch", f"2.14.0{local}", _pys(10, 13), plats)
    out += _wheels("torch", f"2.14.1{local}", _pys(10, 13), plats)
    out += _wheels("torch", f"2.16.0{local}", _pys(11, 13), plats, rp=">=3.11")
    out += _wheels("torch", f"2.16.1{local}", _pys(11, 13), plats, rp=">=3.11", yanked=True)
    out += _wheels("torch", f"2.17.0rc1{local}", _pys(11, 13), plats, rp=">=3.11")
    return out


def _companion(name: str, variant: str, plats: list[str]) -> list[dict]:
    local = f"+{variant}" if variant else ""
    pairs = {"torchvision": [("0.28.0", "2.13.0"), ("0.29.0", "2.14.0"), ("0.29.1", "2.14.1"),
                             ("0.30.0", "2.16.0")],
             "torchaudio": [("2.16.0", "2.16.0")]}[name]
    out: list[dict] = []
    for version, torch in pairs:
        low = 11 if torch == "2.16.0" else 10
        out += _wheels(name, f"{version}{local}", _pys(low, 13), plats,
                       requires=["numpy", f"torch=={torch}{local}"])
    return out


def projects() -> dict[str, list[dict]]:
    """path -> files, for every page the fixture serves."""
    pages: dict[str, list[dict]] = {}
    for variant in VARIANTS:
        pages[f"whl/{variant}/torch"] = _torch_release(variant)
        plats = [p for p in ALL if not p.startswith("macosx")]
        pages[f"whl/{variant}/torchvision"] = _companion("torchvision", variant, plats)
        pages[f"whl/{variant}/torchaudio"] = _companion("torchaudio", variant, plats)
    # the xpu folder (Intel GPUs): not linked from the root's page, read by name
    xpu = ["linux_x86_64", "win_amd64"]
    pages["whl/xpu/torch"] = (_wheels("torch", "2.14.1+xpu", _pys(10, 13), xpu)
                              + _wheels("torch", "2.16.0+xpu", _pys(11, 13), xpu, rp=">=3.11"))
    pages["whl/xpu/torchvision"] = _companion("torchvision", "xpu", xpu)
    pages["whl/xpu/torchaudio"] = _companion("torchaudio", "xpu", xpu)
    mac = ["macosx_11_0_arm64"]
    pages["simple/torch"] = (
        _wheels("torch", "2.2.2", _pys(8, 12), ["macosx_10_9_x86_64"])
        + _wheels("torch", "2.14.1", _pys(10, 13), mac)
        + _wheels("torch", "2.16.0", _pys(11, 13), mac, rp=">=3.11")
        + _wheels("torch", "2.16.1", _pys(11, 13), mac, rp=">=3.11", yanked=True)
        # PyPI's Linux wheels: the stable CUDA build (cu130), without a local label
        + _wheels("torch", "2.16.0", _pys(11, 13), LINUX, rp=">=3.11"))
    pages["simple/torchvision"] = (
        _companion("torchvision", "", [*mac, *LINUX])
        + _wheels("torchvision", "0.17.2", _pys(8, 12), ["macosx_10_13_x86_64"],
                  requires=["numpy", "torch==2.2.2"]))
    pages["simple/torchaudio"] = _companion("torchaudio", "", mac)
    jax = []
    for v in JAX_RELEASES:
        jax.append({"filename": f"jax-{v}-py3-none-any.whl", "requires_python": ">=3.11",
                    "yanked": False, "requires": [f"jaxlib<={v}"]})
    pages["simple/jax"] = jax
    pages["simple/jaxlib"] = [w for v in JAX_RELEASES
                              for w in _wheels("jaxlib", v, _pys(11, 13), ALL, rp=">=3.11")]
    for plugin in ("jax_cuda12_plugin", "jax_cuda13_plugin"):
        pages[f"simple/{plugin.replace('_', '-')}"] = [
            w for v in JAX_RELEASES
            for w in _wheels(plugin, v, _pys(11, 13), LINUX, rp=">=3.11")]
    pages["simple/tensorflow"] = (
        _wheels("tensorflow", "2.16.2", _pys(9, 12), ["macosx_10_15_x86_64"])
        + _wheels("tensorflow", "2.20.0", _pys(9, 13), ALL)
        + _wheels("tensorflow", "2.21.0", _pys(10, 13), ["macosx_12_0_arm64", *LINUX,
                                                         "win_amd64"])
        + _wheels("tensorflow", "2.21.1", _pys(10, 13), ["macosx_12_0_arm64", *LINUX,
                                                         "win_amd64"])
        + _wheels("tensorflow", "2.22.0", _pys(10, 13), ["macosx_12_0_arm64", *LINUX,
                                                         "win_amd64"]))
    return pages


class Index:
    """The running fixture: ``url`` of the simple index, ``torch_root``, ``paths`` asked."""

    def __init__(self, flavour: str = "json", mode: str = "ok") -> None:
        self.flavour, self.mode = flavour, mode
        self.pages = projects()
        self.paths: list[str] = []
        self.auth: list[str | None] = []     # the Authorization header of each request
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
                if index.mode == "slow":
                    time.sleep(30)
                path = self.path.split("?", 1)[0].strip("/")
                prefix = ""
                if path.startswith("mirror/"):
                    prefix, path = "/mirror", path[len("mirror/"):]
                index.auth.append(self.headers.get("Authorization"))
                if index.mode != "ok":
                    return self._hostile()
                if path.endswith(".whl.metadata"):
                    return self._metadata(path)
                if path == "whl":
                    links = "".join(f'<a href="{v}/">{v}</a>\n' for v in VARIANTS)
                    return self._send(200, "text/html", f"<html>{links}</html>".encode())
                files = index.pages.get(path)
                if files is None:
                    return self._send(404, "text/plain", b"not found")
                base = f"{prefix}/{path}/"
                if index.flavour == "json":
                    body = json.dumps({"meta": {"api-version": "1.1"}, "name": path.split("/")[-1],
                                       "files": [_json_file(f, base) for f in files]}).encode()
                    return self._send(200, "application/vnd.pypi.simple.v1+json", body)
                links = "".join(_html_link(f, base) for f in files)
                body = f"<!DOCTYPE html><html><body>{links}</body></html>".encode()
                return self._send(200, "text/html", body)

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

            def _hostile(self) -> None:
                if index.mode == "huge":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.end_headers()
                    chunk = b"<a href='x'>" + b"A" * 65536
                    try:
                        for _ in range(1000):    # 64 MB, no Content-Length
                            self.wfile.write(chunk)
                    except OSError:
                        pass
                    return None
                if index.mode == "deep":
                    body = b"[" * 200_000 + b"]" * 200_000
                    return self._send(200, "application/vnd.pypi.simple.v1+json", body)
                return self._send(200, "text/html", b"<<<\x00\xff</ </html <!-- unterminated")

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
    out = {"filename": f["filename"], "url": f"{base}{f['filename']}",
           "hashes": {}, "requires-python": f["requires_python"],
           "core-metadata": bool(f["requires"])}
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
def serving(flavour: str = "json", mode: str = "ok") -> Iterator[Index]:
    index = Index(flavour, mode).start()
    try:
        yield index
    finally:
        index.stop()


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then closed)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
