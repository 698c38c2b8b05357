"""The releases the indexes list for one machine profile, in the shape of the shipped rows.

The index is authoritative for what it was asked: which releases exist (yanked and
pre-releases skipped), for which Pythons (the wheels' tags and ``requires-python``) and on which
of the torch root's variants for this platform, and which torchvision / torchaudio a torch pins
(their core metadata's ``Requires-Dist``). Everything else in a row (the PyPI default variant,
notes) and everything no index states (driver floors, arch lists per build, the CUDA a
TensorFlow series is built with) stays the shipped data's. Variants the index was not asked
about keep their shipped rows; a framework whose pages could not be read is planned from the
shipped data alone, and the view says why.
"""

from __future__ import annotations

import re
from typing import Any

from packaging.metadata import parse_email
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from envdoctor.matrices import newest_first
from envdoctor.suggest import xpu_plan
from envdoctor.suggest.data import SHIPPED, driver_floor, jetson_gpu, variant_cuda, variant_rocm
from envdoctor.suggest.index import wheels
from envdoctor.suggest.index.http import FetchError, redact
from envdoctor.suggest.index.reader import Reader
from envdoctor.suggest.index.simple import File
from envdoctor.suggest.machine import Machine

NEWEST_SHIPPED = 4      # the variants of this many newest shipped releases are asked about
MAX_PAIRINGS = 6        # companion releases whose metadata is read


class IndexView:
    """A ``data.Releases`` for one machine: the index's rows where it answered, the shipped
    ones elsewhere."""

    def __init__(self, torch_root: str) -> None:
        self.torch_root = torch_root.rstrip("/")
        self.torch: list[dict[str, Any]] | None = None
        self.jax: list[dict[str, Any]] | None = None
        self.tf: list[dict[str, Any]] | None = None
        self.platforms: dict[tuple[str, str], dict[str, Any] | None] = {}
        self.projects: dict[str, set[str]] = {}   # project -> versions with a wheel that fits
        self.sources: dict[str, str] = {}         # framework -> the index that answered
        self.failures: list[tuple[str, str, str]] = []   # (framework, url, why)
        self.partial: list[str] = []     # lines on what was read in place of a failed page
        self.jax_cpu_only: list[str] = []  # newer jax releases left out: no plugin runs here
        # framework -> [(release, its wheels' manylinux tag)] the machine's glibc cannot load
        self.glibc_held: dict[str, list[tuple[str, str]]] = {}

    def torch_rows(self) -> list[dict[str, Any]]:
        return self.torch if self.torch is not None else SHIPPED.torch_rows()

    def jax_rows(self) -> list[dict[str, Any]]:
        return self.jax if self.jax is not None else SHIPPED.jax_rows()

    def tf_rows(self) -> list[dict[str, Any]]:
        return self.tf if self.tf is not None else SHIPPED.tf_rows()

    def platform_row(self, table: str, platform: str) -> dict[str, Any] | None:
        if (table, platform) in self.platforms:   # None: the index has no wheel there
            return self.platforms[(table, platform)]
        return SHIPPED.platform_row(table, platform)

    def index_url(self, variant: str) -> str:
        if self.torch is None:
            return SHIPPED.index_url(variant)
        return f"{redact(self.torch_root)}/{variant}"

    def listed(self, project: str, version: str) -> bool | None:
        got = self.projects.get(project)
        return None if got is None else str(Version(version)) in got

    def _failed(self, framework: str, pages: dict[str, list[File] | FetchError]) -> bool:
        bad = [(u, e) for u, e in pages.items() if isinstance(e, FetchError)]
        for url, err in bad[:1]:
            self.failures.append((framework, redact(url), str(err)))
        return bool(bad)


# ------------------------------------------------------------------ reading wheels of a page
class _Wheel:
    __slots__ = ("project", "version", "tags", "requires_python", "file")

    def __init__(self, project: str, version: Version, tags: Any, rp: str | None,
                 file: File) -> None:
        self.project, self.version, self.tags, self.requires_python, self.file = \
            project, version, tags, rp, file


def _wheels(files: list[File] | FetchError, project: str) -> list[_Wheel]:
    """The release wheels of ``project`` on a page: yanked files, sdists, pre- and dev
    releases left out; the version without its local label (``2.14.0+cu130`` -> 2.14.0)."""
    want = canonicalize_name(project)
    out: list[_Wheel] = []
    if isinstance(files, FetchError):   # callers have reported it already
        return out
    for f in files:
        got = None if f.yanked else wheels.parse(f.filename)
        if got is None or got[0] != want:
            continue
        version = Version(got[1].public)
        if version.is_prerelease or version.is_devrelease:
            continue
        out.append(_Wheel(got[0], version, got[2], f.requires_python, f))
    return out


def _minors(ws: list[_Wheel], platform: str, glibc: tuple[int, int] | None = None) -> set[int]:
    out: set[int] = set()
    for w in ws:
        out |= wheels.pythons(w.tags, platform, w.requires_python, glibc)
    return out


def _py(m: Machine) -> int | None:
    return m.python.release[1] if m.python is not None and m.python.major == 3 else None


def _glibc(m: Machine, platform: str) -> tuple[int, int] | None:
    """The machine's C library as the tag functions take it; None off Linux or not stated."""
    return wheels.glibc_key(m.glibc) if platform.startswith("linux") else None


def _held(ws: list[_Wheel], platform: str, py: int | None, glibc: tuple[int, int] | None,
          allowed: Any = None) -> str | None:
    """The manylinux tag of wheels that fit this Python and platform but not this glibc; None
    when some wheel fits this glibc or none would fit a current one."""
    if glibc is None:
        return None
    def ok(minors: set[int]) -> bool:
        minors = {n for n in minors
                  if allowed is None or allowed.contains(f"3.{n}", prereleases=True)}
        return py in minors if py is not None else bool(minors)
    if ok(_minors(ws, platform, glibc)) or not ok(_minors(ws, platform)):
        return None
    floors = {f for w in ws if (f := wheels.linux_floor(w.tags)) is not None}
    return min(floors, key=lambda f: tuple(int(x) for x in f.split("_")[1:3])) \
        if floors else "manylinux"


# ------------------------------------------------------------------------------- torch
_VARIANT = re.compile(r"^(cpu|xpu|cu\d{3}|rocm\d+(?:\.\d+)*)$")


def _root_variants(view: IndexView, reader: Reader) -> list[str]:
    """The variants the torch root's own page links to (a mirror or a newer root may carry
    one the shipped data does not know); [] when the root lists none or cannot be read."""
    url = f"{view.torch_root}/"
    page = reader.pages([url])[url]
    if isinstance(page, FetchError):
        return []
    names = (f.url.rstrip("/").rsplit("/", 1)[-1] for f in page)
    return [n for n in dict.fromkeys(names) if _VARIANT.match(n)]


def _torch_variants(m: Machine, platform: str, listed: list[str]) -> list[str]:
    """The torch root's variants worth asking about for this machine: those of the newest
    shipped releases on its platform and those the root lists, of the kind it can use (CUDA on
    an NVIDIA machine, ROCm on an AMD machine or with a ROCm torch, xpu on an Intel GPU the XPU
    data lists, else cpu). A CUDA variant
    whose major has no driver floor in the shipped data is left out: no driver could be
    checked against it."""
    seen: list[str] = []
    for row in SHIPPED.torch_rows()[:NEWEST_SHIPPED]:
        seen += [v for v in row.get(platform, []) if v not in seen]
    seen += [v for v in listed if v not in seen]
    if m.has_nvidia:
        return [v for v in seen if (c := variant_cuda(v)) is not None
                and driver_floor(c, m.os or "linux") is not None]
    if xpu_plan.is_target(m):   # an Intel GPU PyTorch's XPU notes list: its +xpu wheels
        return [xpu_plan.VARIANT]
    if m.torch_hip or m.has_amd:
        return [v for v in seen if variant_rocm(v) is not None]
    return ["cpu"]


def read_torch(view: IndexView, m: Machine, platform: str, audio: bool, reader: Reader,
               pypi: str) -> None:
    on_pypi = platform.startswith("macos")
    listed = [] if on_pypi or not (m.has_nvidia or m.torch_hip or m.has_amd) \
        else _root_variants(view, reader)
    pages = ({"cpu": f"{pypi}/torch/"} if on_pypi else
             {v: f"{view.torch_root}/{v}/torch/" for v in _torch_variants(m, platform, listed)})
    got = reader.pages(list(pages.values()))
    if not on_pypi and any(isinstance(e, FetchError) for e in got.values()):
        pages, got = _pypi_build(view, platform, reader, pypi, got)
        on_pypi = bool(pages)   # what is read now is the simple index's torch
    if view._failed("torch", got):
        return
    listing: dict[Version, dict[str, list[_Wheel]]] = {}
    for variant, url in pages.items():
        for w in _wheels(got[url], "torch"):
            listing.setdefault(w.version, {}).setdefault(variant, []).append(w)
    py = _py(m)
    shipped = {str(Version(str(r["torch"]))): r for r in SHIPPED.torch_rows()}
    newest = SHIPPED.torch_rows()[0] if shipped else {}
    rows = []
    for key in sorted(set(shipped) | {str(v) for v in listing}, key=Version, reverse=True):
        base = dict(shipped.get(key) or {"torch": key, "pypi": dict(newest.get("pypi", {}))})
        per = listing.get(Version(key), {})
        minors = {v: _minors(ws, platform, _glibc(m, platform)) for v, ws in per.items()}
        fits = [v for v, ms in minors.items() if py in ms] if py is not None else []
        present = fits or [v for v, ms in minors.items() if ms]
        kept = [v for v in base.get(platform, []) if v not in pages]
        base[platform] = kept + [v for v in pages if v in present]
        if present:
            base["python"] = wheels.range_of(set().union(*minors.values()))
            if platform.startswith("macos") and (need := wheels.macos_min(
                    [w.tags for ws in per.values() for w in ws], platform, py)) is not None:
                base[f"{platform}_min"] = need   # the wheel's macOS tag (packaging.tags)
                base[f"{platform}_min_source"] = redact(f"{pypi}/torch/")
            base.pop("confirmed", None)
            where = f"{pypi}/torch/" if on_pypi else view.torch_root
            base["source"] = redact(where)
            base["note"] = f"listed on {redact(where)}"
        elif key not in shipped:
            continue
        rows.append(base)
    view.torch = newest_first(rows, "torch")
    view.sources["torch"] = redact(pypi if on_pypi else view.torch_root)
    companions = ["torchvision"] + (["torchaudio"] if audio else [])
    first = next((r for r in view.torch if r.get(platform) and "listed on" in r.get("note", "")),
                 None)
    if first is None:
        return
    variant = next(v for v in first[platform] if v in pages)
    for name in companions:
        url = f"{pypi}/{name}/" if on_pypi else f"{view.torch_root}/{variant}/{name}/"
        _pair(view.torch, name, url, platform, py, reader, _glibc(m, platform))


def _pypi_build(view: IndexView, platform: str, reader: Reader, pypi: str,
                root: dict[str, list[File] | FetchError]
                ) -> tuple[dict[str, str], dict[str, list[File] | FetchError]]:
    """The torch root could not be read: what the simple index lists of torch stands for the
    one build PyPI carries (the newest shipped release's PyPI variant for this platform, the
    same wheels the root's index of that variant has). The root's failure stays the reason
    when the simple index cannot stand in either."""
    variant = (SHIPPED.torch_rows()[0].get("pypi") or {}).get(platform) \
        if SHIPPED.torch_rows() else None
    url = f"{pypi}/torch/"
    page = reader.pages([url])[url] if variant else FetchError("no PyPI build in the data")
    if isinstance(page, FetchError) or not _wheels(page, "torch"):
        return {}, root
    bad = next((u, e) for u, e in root.items() if isinstance(e, FetchError))
    view.partial.append(f"online: {redact(bad[0])} could not be read ({bad[1]}); torch: only "
                        f"the build PyPI carries ({variant}) was read, from {redact(url)}")
    return {str(variant): url}, {url: page}


def _pair(rows: list[dict[str, Any]], name: str, url: str, platform: str, py: int | None,
          reader: Reader, glibc: tuple[int, int] | None = None) -> None:
    """Fill ``name`` (torchvision / torchaudio) into the torch rows that lack it, from the
    ``torch==`` pin in the core metadata of the newest releases of ``name`` that fit."""
    page = reader.pages([url])[url]
    if isinstance(page, FetchError):
        return
    known = {str(r.get(name)) for r in rows if r.get(name)}
    by_version: dict[Version, File] = {}
    for w in _wheels(page, name):
        ok = wheels.pythons(w.tags, platform, w.requires_python, glibc)
        if (py in ok if py is not None else bool(ok)) and w.file.metadata:
            by_version.setdefault(w.version, w.file)
    todo = [v for v in sorted(by_version, reverse=True) if str(v) not in known][:MAX_PAIRINGS]
    texts = reader.metadata([by_version[v].url + ".metadata" for v in todo])
    for version in todo:
        text = texts[by_version[version].url + ".metadata"]
        pin = _torch_pin(text) if isinstance(text, str) else None
        if pin is None:
            continue
        for row in rows:
            if not row.get(name) and pin.contains(str(row["torch"]), prereleases=True):
                row[name] = str(version)


def _torch_pin(metadata: str) -> Any:
    """The ``torch==X`` specifier of a companion's Requires-Dist; None without an exact pin."""
    raw, _ = parse_email(metadata)
    for line in raw.get("requires_dist", []) or []:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) == "torch" and any(
                s.operator in ("==", "===") for s in req.specifier):
            # ``torch==2.15.0+cu126`` on the cu126 index: the pin is the public release
            try:
                return SpecifierSet(",".join(f"{s.operator}{s.version.split('+')[0]}"
                                             for s in req.specifier))
            except InvalidSpecifier:
                return None
    return None


# --------------------------------------------------------------------------------- jax
def read_jax(view: IndexView, m: Machine, platform: str, reader: Reader, pypi: str) -> None:
    # a Jetson gets the CPU jaxlib whatever plugins the index lists (JAX publishes no GPU
    # build for it: jax_plan's Jetson branch), so plugins neither limit nor pick its release
    plugins = [f"jax-cuda{n}-plugin" for n in (12, 13)] \
        if m.has_nvidia and platform.startswith("linux") and jetson_gpu(m) is None else []
    urls = {p: f"{pypi}/{p}/" for p in ["jax", "jaxlib", *plugins]}
    got = reader.pages(list(urls.values()))
    if view._failed("jax", got):
        return
    py = _py(m)
    jax_rp: dict[Version, str | None] = {}
    jax_files = got[urls["jax"]]
    for f in jax_files if isinstance(jax_files, list) else []:
        parsed = None if f.yanked else wheels.parse(f.filename)
        if parsed is not None and not (parsed[1].is_prerelease or parsed[1].is_devrelease):
            jax_rp.setdefault(parsed[1], f.requires_python)
    libs: dict[Version, list[_Wheel]] = {}
    for w in _wheels(got[urls["jaxlib"]], "jaxlib"):
        libs.setdefault(w.version, []).append(w)
    rows: list[dict[str, Any]] = []
    glibc = _glibc(m, platform)
    for version in sorted(set(jax_rp) & set(libs), reverse=True):
        allowed = wheels.spec_of(jax_rp[version])
        minors = {n for n in _minors(libs[version], platform, glibc)
                  if allowed is None or allowed.contains(f"3.{n}", prereleases=True)}
        if not minors:
            if not rows and (tag := _held(libs[version], platform, py, glibc, allowed)):
                view.glibc_held.setdefault("jax", []).append((str(version), tag))
            continue
        spec = wheels.range_of(minors)
        rows.append({"jax": f"=={version}", "first": str(version), "last": str(version),
                     "python": spec, "source": redact(urls["jax"])})
    if not rows:   # the index has no jaxlib for this platform: none runs here
        view.platforms[("jax_platform", platform)] = {"platform": platform, "wheels": [],
                                                      "source": redact(urls["jaxlib"])}
        view.sources["jax"] = redact(pypi)
        return
    view.jax = rows
    view.sources["jax"] = redact(pypi)
    base = dict(SHIPPED.platform_row("jax_platform", platform) or {"platform": platform})
    names = ["cpu"]
    for plugin in plugins:
        fit = {str(w.version) for w in _wheels(got[urls[plugin]], plugin)
               if (py in wheels.pythons(w.tags, platform, w.requires_python, glibc)
                   if py is not None
                   else wheels.pythons(w.tags, platform, w.requires_python, glibc))}
        view.projects[plugin] = fit
        if fit:
            names.append(plugin.split("-")[1])
    usable = set().union(*(view.projects[p] for p in plugins if _plugin_runs(p, m))) \
        if plugins else set()
    if usable and any(r["last"] not in usable for r in rows):
        # a GPU machine gets the newest release with a CUDA plugin for its driver and GPUs,
        # not a newer CPU-only one (a plugin the index stopped publishing)
        view.jax_cpu_only = [r["last"] for r in rows if r["last"] not in usable
                             and Version(r["last"]) > max(Version(v) for v in usable)]
        view.jax = [r for r in rows if r["last"] in usable]
    if not plugins:
        names += [w for w in base.get("wheels", []) if w != "cpu"]
    base.update(wheels=names, source=redact(urls["jaxlib"]))
    view.platforms[("jax_platform", platform)] = base


# -------------------------------------------------------------------------- tensorflow
def read_tf(view: IndexView, m: Machine, platform: str, reader: Reader, pypi: str) -> None:
    url = f"{pypi}/tensorflow/"
    got = reader.pages([url])
    if view._failed("tensorflow", got):
        return
    series: dict[Version, set[int]] = {}
    glibc = _glibc(m, platform)
    per: dict[Version, list[_Wheel]] = {}
    for w in _wheels(got[url], "tensorflow"):
        key = Version(".".join(str(p) for p in w.version.release[:2]))
        per.setdefault(key, []).append(w)
        series.setdefault(key, set()).update(wheels.pythons(w.tags, platform,
                                                            w.requires_python, glibc))
    py = _py(m)
    for key in sorted(series, reverse=True):   # newer series only this glibc leaves out
        if py in series[key] if py is not None else series[key]:
            break
        if (tag := _held(per[key], platform, py, glibc)) is not None:
            view.glibc_held.setdefault("tensorflow", []).append((str(key), tag))
    shipped = {str(Version(str(r["tensorflow"]))): r for r in SHIPPED.tf_rows()}
    newest = SHIPPED.tf_rows()[0] if shipped else {}
    rows = []
    for key in sorted(series, reverse=True):
        if not series[key]:
            continue
        row = dict(shipped.get(str(key)) or {
            "tensorflow": str(key), "cuda": newest.get("cuda"), "cudnn": newest.get("cudnn"),
            "cuda_of": newest.get("tensorflow"),
            "note": f"CUDA and cuDNN of TF {newest.get('tensorflow')}, the newest series in the "
                    "data"})
        row["python"] = wheels.range_of(series[key])
        rows.append(row)
    view.sources["tensorflow"] = redact(pypi)
    if not rows:   # the index has no tensorflow wheel for this platform
        view.platforms[("tensorflow_platform", platform)] = None
        return
    view.tf = rows
    base = dict(SHIPPED.platform_row("tensorflow_platform", platform)
                or {"platform": platform, "gpu": ""})
    base.pop("cpu_until_confirmed", None)   # the index lists these wheels: no cap needed
    base["source"] = redact(url)
    view.platforms[("tensorflow_platform", platform)] = base


def _plugin_runs(plugin: str, m: Machine) -> bool:
    """Whether the shipped floors of a JAX CUDA plugin (driver, compute capability) allow this
    machine; unknown facts do not rule it out."""
    from envdoctor.matrices import matrix
    from envdoctor.versions import ver
    row = next((r for r in matrix("jax").get("plugin", []) if r.get("plugin") == plugin), None)
    if row is None:
        return False
    need, min_cc = ver(row.get("min_driver_linux")), ver(row.get("min_cc"))
    if need is not None and m.driver is not None and m.driver < need:
        return False
    return not any(min_cc is not None and g.cc is not None and g.cc < min_cc for g in m.gpus)
