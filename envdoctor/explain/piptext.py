"""What an installer's refusal says, read by its structure: the Python with no wheel, the
release that does not exist for it, the tag of a refused wheel that does not fit.

pip's resolver prints the request and every version it could install for this interpreter and
platform::

    ERROR: Could not find a version that satisfies the requirement torch==1.13.1
           (from versions: 2.2.0, 2.2.1, 2.3.0)

A pin older than every listed version asks for a release that has no wheel for this Python
(one newer than the release supports) or platform; a pin newer than all of them asks for a
release that does not exist yet, or one that needs another Python; ``(from versions: none)``
means nothing of the project installs here at all. pip says the Python range outright where
a release declares one (``Ignored the following versions that require a different python
version: 1.5.0 Requires-Python >=3.6,<3.11``, ``requires a different Python: 3.9.5 not in
'>=3.10'``). The Python is read where the text states it by structure (a
``python3.12/site-packages`` path, ``cp312`` in a wheel pip downloaded, a ``Python 3.12.1``
banner, an issue form's "Python version" field), never from prose that proposes one ("switch
to Python 3.7"), and not at all when the text states two. Torch, TensorFlow and JAX releases
are read against their release tables (rules/matrices: torch.toml, tensorflow.toml,
jax.toml).

A refused wheel's file name carries its tags (``packaging.utils.parse_wheel_filename``): the
CPython version, the ABI, the OS and CPU. Where the text states the Python, OS or CPU and a
tag names another, that tag is the cause; some tags fit no interpreter anywhere (``linux_arm64``
where Linux says aarch64, ``macosx_…_aarch64`` where macOS says arm64, ``cp38m`` after Python
3.8 dropped the ``m`` ABI flag).

conda's solver lists the Pythons a package's builds require (``pytorch ->
python[version='>=3.8,<3.9.0a0|>=3.9,<3.10.0a0']``) under the Python asked for.

Each reading returns a note, or None when the text does not say enough; versions, specifiers,
tags and wheel names are ``packaging``'s.
"""

from __future__ import annotations

import re
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

MAX_TEXT = 1 << 20

# ---------------------------------------------------------------- the Python the text states
# pip's own words for the interpreter it runs under
_PIP_PYTHON = (
    re.compile(r"requires a different Python: (\d\.\d{1,2}(?:\.\d{1,2})?) not in"),
    re.compile(r"\bpip \d{1,2}(?:\.\d{1,3}){0,2} from \S{1,300} \(python (\d\.\d{1,2})\)"),
    re.compile(r"\bYou require CPython (\d\.\d{1,2})\b"),
    re.compile(r"\bcurrent Python version \((\d\.\d{1,2}(?:\.\d{1,2})?)\)"),
    re.compile(r"(?m)^\s{0,8}sys\.version: (\d\.\d{1,2}\.\d{1,2}) "),
)
# the interpreter a text shows by structure: its library folder, a Windows install folder, an
# extension module's suffix, a `python --version` line or banner, an issue form's field, a
# wheel pip took (Downloading / Using cached), the Python of a conda env created for the run,
# and first-person statements of the Python in use
_SHOWN_PYTHON = (
    re.compile(r"(?i)\bpython(3\.\d{1,2})[\\/](?:site|dist)-packages\b"),
    re.compile(r"(?i)\blib[\\/]python(3\.\d{1,2})[\\/]"),
    re.compile(r"(?i)[\\/]Python(3)(\d{1,2})(?:-32|-arm64)?[\\/]"),
    re.compile(r"\bcpython-(3)(\d{1,2})(?:-[\w-]{1,40})?\.(?:so|pyd|pyc)\b"),
    re.compile(r"(?m)^[\s$>#]{0,8}Python (3\.\d{1,2}\.\d{1,2})"
               r"(?:[ \t]*$|[ \t]+\((?:main|default|tags|v3))"),
    re.compile(r"(?im)^[\s>*+|-]{0,8}(?:\*\*)?python(?: ?version(?:\(s\))?)?(?:\*\*)?"
               r"[ \t]*[:=][ \t]*(?:\*\*)?v?(3\.\d{1,2}(?:\.\d{1,2})?)\b"),
    re.compile(r"(?im)^#{1,4}[ \t]*python version[ \t]*\n(?:[ \t]*\n){0,3}[ \t]*"
               r"v?(3\.\d{1,2}(?:\.\d{1,2})?)[ \t]*$"),
    re.compile(r"(?i)\bversion python ?: ?(3\.\d{1,2}(?:\.\d{1,2})?)\b"),
    re.compile(r"(?m)(?:Downloading|Using cached)\s\S{0,300}?-cp(3)(\d{1,2})-cp3\d{1,2}[a-z]{0,2}"
               r"-\S{1,200}\.whl"),
    re.compile(r"\bconda create\b[^\n]{0,200}?\bpython[=~]{1,2}(3\.\d{1,2}(?:\.\d{1,2})?)\b"),
    re.compile(r"(?i)\b(?:I(?:'m| am) (?:using|on|running)|I have|I'm running|running on|my python "
               r"(?:version )?is)\s+python\s?v?(3\.\d{1,2}(?:\.\d{1,2})?)\b(?! or)"),
)


def _python_of(m: re.Match[str]) -> str:
    groups = [g for g in m.groups() if g]
    return f"{groups[0]}.{groups[1]}" if len(groups) == 2 else groups[0]


def stated_python(text: str) -> Version | None:
    """The Python the text states: pip's own report of its interpreter, else the one Python
    minor its structural mentions agree on; None when there is none or they name two."""
    head = text[:MAX_TEXT]
    for rx in _PIP_PYTHON:
        said = {m.group(1) for m in rx.finditer(head)}
        if len({_minor_of(s) for s in said}) == 1:
            return _version(max(said, key=len))
    seen: dict[tuple[int, int] | None, str] = {}
    for rx in _SHOWN_PYTHON:
        for m in rx.finditer(head):
            v = _python_of(m)
            key = _minor_of(v)
            if key is not None and (key not in seen or len(v) > len(seen[key])):
                seen[key] = v
    return _version(next(iter(seen.values()))) if len(seen) == 1 else None


def _version(s: str) -> Version | None:
    try:
        return Version(s)
    except InvalidVersion:
        return None


def _minor_of(s: str) -> tuple[int, int] | None:
    v = _version(s)
    return (v.major, v.minor) if v is not None else None


def _minor(v: Version) -> str:
    return f"{v.major}.{v.minor}"


# ---------------------------------------------------------------- Python ranges in words
_MINORS = [(2, 7)] + [(3, m) for m in range(0, 41)]


def covered_minors(spec: SpecifierSet) -> list[tuple[int, int]]:
    """The Python minors (2.7, 3.0 ... 3.40) a Requires-Python / ``python`` range admits."""
    return [(a, b) for a, b in _MINORS
            if any(spec.contains(Version(f"{a}.{b}.{p}"), prereleases=True) for p in (0, 99))]


def minors_in_words(minors: list[tuple[int, int]]) -> str:
    """``[(3, 7), (3, 8), (3, 9), (3, 10)]`` -> "3.7–3.10"; an open top reads "3.9 or newer"."""
    if not minors:
        return "no Python"
    runs: list[list[tuple[int, int]]] = []
    for mm in sorted(minors):
        if runs and runs[-1][-1][0] == mm[0] and runs[-1][-1][1] + 1 == mm[1]:
            runs[-1].append(mm)
        else:
            runs.append([mm])
    words = []
    for run in runs:
        lo, hi = run[0], run[-1]
        if hi == _MINORS[-1]:
            words.append(f"{lo[0]}.{lo[1]} or newer")
        elif lo == hi:
            words.append(f"{lo[0]}.{lo[1]}")
        else:
            words.append(f"{lo[0]}.{lo[1]}–{hi[0]}.{hi[1]}")
    return ", ".join(words)


def _spec(raw: str) -> SpecifierSet | None:
    try:
        return SpecifierSet(raw)
    except InvalidSpecifier:
        return None


def _admits(spec: SpecifierSet, python: Version) -> bool:
    return spec.contains(Version(f"{python.major}.{python.minor}.{python.micro}"), prereleases=True)


# ---------------------------------------------------------------- release tables
_TABLES = {"torch": "torch", "tensorflow": "tensorflow", "tensorflow-gpu": "tensorflow",
           "tensorflow-cpu": "tensorflow", "tensorflow-intel": "tensorflow",
           "tensorflow-macos": "tensorflow", "jax": "jax", "jaxlib": "jax"}


def release_python(name: str, version: Version) -> SpecifierSet | None:
    """The Python range a torch / TensorFlow / JAX release has wheels for (its row of
    rules/matrices), or None when the package has no table or the table no row for it."""
    table = _TABLES.get(name)
    if table is None:
        return None
    row: dict[str, Any] | None
    if table == "torch":
        from envdoctor.engine.knowledge.torch import torch_release
        row = torch_release(str(version))
    elif table == "tensorflow":
        from envdoctor.engine.knowledge.tensorflow import tf_release
        row = tf_release(str(version))
    else:
        from envdoctor.engine.knowledge.jax import jax_release
        row = jax_release(str(version))
    return _spec(str(row.get("python", ""))) if row and row.get("python") else None


def first_release_for(name: str, python: Version) -> tuple[str | None, bool]:
    """(the first release in the package's table with wheels for ``python``, whether the table
    has a row for the package at all); the release is None when no row covers that Python."""
    table = _TABLES.get(name)
    if table is None:
        return None, False
    from envdoctor.engine.knowledge.releases import release_rows
    key = {"torch": "torch", "tensorflow": "tensorflow", "jax": "first"}[table]
    rows = []
    for row in release_rows(table):
        v = _version(str(row.get(key, "")))
        if v is None:
            continue
        found = release_python(name, v) if table == "jax" else _spec(str(row.get("python", "")))
        if found is not None:
            rows.append((v, found))
    covering = sorted(v for v, s in rows if _admits(s, python))
    return (str(covering[0]) if covering else None), bool(rows)


def _newest_python(name: str) -> tuple[int, int] | None:
    """The newest Python minor any release in the package's table has wheels for."""
    table = _TABLES.get(name)
    if table is None:
        return None
    from envdoctor.engine.knowledge.releases import release_rows
    key = {"torch": "torch", "tensorflow": "tensorflow", "jax": "first"}[table]
    top: tuple[int, int] | None = None
    for row in release_rows(table):
        v = _version(str(row.get(key, "")))
        spec = (release_python(name, v) if table == "jax" and v is not None
                else _spec(str(row.get("python", ""))))
        minors = covered_minors(spec) if spec is not None else []
        if minors and minors[-1] != _MINORS[-1] and (top is None or minors[-1] > top):
            top = minors[-1]
    return top


# ---------------------------------------------------------------- pip's resolver
_NO_VERSION = re.compile(
    r"(?i)Could not find a version that satisfies the requirement\s+([^\s(][^\n(]{0,200}?)\s*"
    r"((?:\(from (?:[^()\n]|\([^()\n]{0,200}\)){0,300}\)\s*){0,3})"
    r"\(from versions: ?([^)]{0,200000})\)")
_IGNORED = re.compile(r"Ignored the following versions that require a different python\s{1,8}"
                      r"version:")
_IGNORED_END = re.compile(r"\bERROR\b|\n\s*\n")
_IGNORED_ENTRY = re.compile(r"([\w.!+-]{1,60})\s+Requires-Python\s+([^;\n]{1,200}?)\s*(?:;|$)",
                            re.M)
_DIFFERENT_PYTHON = re.compile(r"Package '([\w.-]{1,100})' requires a different Python: "
                               r"(\d\.\d{1,2}(?:\.\d{1,2})?) not in '([^'\n]{1,100})'")
# a run that could not reach its index, or that read another index than PyPI: an empty list
# then says nothing of the Python
_UNREACHED = re.compile(r"(?i)\bRetrying \(Retry\(|NewConnectionError|ProxyError|SSLError|"
                        r"\bCould not fetch URL\b|\bConnection (?:refused|reset|timed out)|"
                        r"Temporary failure in name resolution|\bHTTP error 40[13]\b|"
                        r"\b40[13] Client Error\b|\bcertificate verify failed")
_INDEX = re.compile(r"(?i)Looking in (?:indexes|links): ([^\n]{1,1000})")
_KNOWN_INDEXES = ("pypi.org/simple", "download.pytorch.org/whl", "pypi.python.org/simple")
_LOCAL_LABEL = re.compile(r"^(cu\d{2,3}|cpu|rocm\d+(?:\.\d+)*)$")


def _name(raw: str) -> str:
    return re.sub(r"[-_.]+", "-", raw).lower()


def _versions(raw: str) -> list[Version]:
    out = []
    for part in raw.split(","):
        v = _version(part.strip())
        if v is not None:
            out.append(v)
    return out


def _anchors(spec: SpecifierSet) -> list[Version]:
    """The versions a specifier names (``==1.13.*`` -> 1.13)."""
    out = []
    for s in spec:
        v = _version(s.version[:-2] if s.version.endswith(".*") else s.version)
        if v is not None and s.operator != "!=":
            out.append(v)
    return out


def _pinned(spec: SpecifierSet) -> Version | None:
    """The one version an exact pin (``==1.13.1``, ``===1.13.1``) names, else None."""
    exact = [s for s in spec if s.operator in ("==", "===") and not s.version.endswith(".*")]
    return _version(exact[0].version) if len(exact) == 1 and len(spec) == 1 else None


def _ignored(text: str) -> dict[Version, tuple[SpecifierSet, str]]:
    """pip's "Ignored the following versions that require a different python version" line:
    each version with its Requires-Python (parsed, and as pip printed it)."""
    out: dict[Version, tuple[SpecifierSet, str]] = {}
    for m in _IGNORED.finditer(text):
        end = _IGNORED_END.search(text, m.end(), m.end() + 200_000)
        line = text[m.end():end.start() if end else m.end() + 200_000]
        for e in _IGNORED_ENTRY.finditer(line.replace("\n", " ")):
            raw = e.group(2).strip()
            v, s = _version(e.group(1)), _spec(raw)
            if v is not None and s is not None:
                out[v] = (s, raw)
    return out


def _in_words(spec: SpecifierSet) -> str:
    return minors_in_words(covered_minors(spec))


def resolver_reason(text: str) -> str | None:
    """The note for pip's refusal of a requirement, read from the versions it lists, its
    Requires-Python lines, the Python the text states and the release tables; None when the
    text does not say which of them is the cause."""
    head = text[:MAX_TEXT]
    different = _DIFFERENT_PYTHON.search(head)
    found = list(_NO_VERSION.finditer(head))
    if not found:
        if different is None:
            return None
        spec = _spec(different.group(3))
        if spec is None:
            return None
        return (f"{different.group(1)} requires Python {_in_words(spec)} (its Requires-Python "
                f"'{different.group(3)}') and pip runs under Python {different.group(2)}: use an "
                f"interpreter in that range, or a release of {different.group(1)} that supports "
                f"Python {different.group(2)}.")
    m = found[-1]
    try:
        req = Requirement(re.sub(r"\s+", "", m.group(1)))
    except InvalidRequirement:
        return None
    name, spec = _name(req.name), req.specifier
    listed = _versions(m.group(3))
    python = stated_python(head)
    said = f"Python {python}" if python is not None else "this Python"
    if name == "python":
        return ("`python` in a requirements list names the interpreter, which pip cannot install "
                "(no such package exists on PyPI): remove that line and run pip under a Python "
                "of the version it asks for.")
    pin = _pinned(spec)
    ignored = _ignored(head)
    if _installed_later(head, m.end(), name):
        return None  # a later run installed it: the refusal is history
    if pin is not None and pin in ignored:
        needs, raw = ignored[pin]
        tail = (f", and this is Python {python}" if python is not None
                and not _admits(needs, python) else "")
        return (f"pip skipped {name} {pin} because it requires Python {_in_words(needs)} "
                f"(Requires-Python {raw}){tail}: use a Python in that range, or a release of "
                f"{name} that supports this Python.")
    if not listed:
        return _none_reason(head, name, spec, python)
    admitted = [v for v in listed if spec.contains(v, prereleases=True)]
    if admitted:
        if all(v.is_prerelease or v.is_devrelease for v in admitted):
            return (f"Only pre-releases of {name} satisfy {spec or 'the request'} "
                    f"({', '.join(map(str, admitted[:3]))}): pip takes them only with `--pre` "
                    "or a pin that names one.")
        return None
    if not spec:
        return None
    anchors = _anchors(spec)
    if not anchors:
        return None
    finals = [v for v in listed if not (v.is_prerelease or v.is_devrelease)] or listed
    lo, hi = min(finals), max(finals)
    wanted = str(pin) if pin is not None else f"{name}{spec}"
    what = f"{name} {pin}" if pin is not None else f"{name}{spec}"
    release = release_python(name, pin or max(anchors))
    if all(a < lo for a in anchors):
        return _outside_reason("older", what, wanted, name, release, python, finals, lo, hi, head)
    if all(a > hi for a in anchors):
        return _outside_reason("newer", what, wanted, name, release, python, finals, lo, hi, head)
    return _between_reason(what, name, pin, listed, said)


def _installed_later(text: str, after: int, name: str) -> bool:
    """Whether pip reports installing the package after the refusal ("Successfully installed
    torch-2.2.0 ...")."""
    word = "[-_.]".join(re.escape(p) for p in name.split("-"))
    return re.search(rf"(?im)^\s*Successfully installed\b[^\n]*?(?<![\w.-]){word}-\d",
                     text[after:]) is not None


def _move_to(release: SpecifierSet, python: Version) -> str:
    """Which way the Python must move for the release: "Python 3.10 or older" / "Python 3.9
    or newer"."""
    minors = covered_minors(release)
    if not minors:
        return f"a Python in {release}"
    if (python.major, python.minor) > minors[-1]:
        return f"Python {minors[-1][0]}.{minors[-1][1]} or older"
    return f"Python {minors[0][0]}.{minors[0][1]} or newer"


def _platform_words(text: str) -> str:
    os_, arch = stated_platform(text)
    if os_ is None and arch is None:
        return ""
    parts = [p for p in ({"linux": "Linux", "mac": "macOS", "windows": "Windows"}.get(os_ or ""),
                         arch) if p]
    return f" (the text states {' on '.join(parts)})"


def listed_pythons(name: str, listed: list[Version]) -> set[tuple[int, int]] | None:
    """The Python minors this interpreter can be: pip lists only releases with a file for it,
    so its Python is in every listed release's range (the release tables'); None when the
    table has a row for none of them."""
    here: set[tuple[int, int]] | None = None
    for series in {(v.major, v.minor) for v in listed}:
        spec = release_python(name, Version(f"{series[0]}.{series[1]}"))
        if spec is None:
            continue
        minors = set(covered_minors(spec))
        here = minors if here is None else here & minors
    return here


def _outside_reason(direction: str, what: str, wanted: str, name: str,
                    release: SpecifierSet | None, python: Version | None, listed: list[Version],
                    lo: Version, hi: Version, text: str) -> str:
    """The note when the request lies below ("older") or above ("newer") every listed
    version."""
    edge = (f"the oldest {name} pip lists for this interpreter is {lo}" if direction == "older"
            else f"the newest {name} pip lists for this interpreter is {hi}")
    here = listed_pythons(name, listed)
    if python is not None and here is not None and (python.major, python.minor) not in here:
        python = None  # the stated Python is not the one pip ran under
    if release is not None:
        covers = covered_minors(release)
        words = minors_in_words(covers)
        if python is not None and not _admits(release, python):
            return (f"{what} has no wheel for Python {_minor(python)} (its wheels cover Python "
                    f"{words}); {edge}: use {_move_to(release, python)} for {what}, or a "
                    f"{name} from the list.")
        if python is not None:
            return (f"{what} has wheels for Python {words}, the stated {_minor(python)} among "
                    f"them, yet {edge}: none of its wheels fits this platform (OS or CPU)"
                    f"{_platform_words(text)}.")
        if here and not here & set(covers):
            return (f"{what} has no wheel for this interpreter's Python: its wheels cover Python "
                    f"{words}, while this interpreter is Python {minors_in_words(sorted(here))} "
                    f"(the Pythons every {name} pip lists, {lo} to {hi}, has wheels for). Use a "
                    f"Python {what} supports, or a {name} from the list.")
        if here and here <= set(covers):
            return (f"{what} has wheels for Python {words}, and this interpreter is Python "
                    f"{minors_in_words(sorted(here))} (the Pythons every {name} pip lists, {lo} "
                    f"to {hi}, has wheels for), yet {edge}: none of its wheels fits this "
                    f"platform (OS or CPU){_platform_words(text)}.")
        return (f"{what} has wheels for Python {words} only, and {edge}: this Python is "
                f"{'newer' if direction == 'older' else 'outside the range'} than {what} "
                "supports (or the platform has none of its wheels).".replace(
                    "outside the range than", "outside what"))
    said = f"Python {python}" if python is not None else "this interpreter"
    if direction == "older":
        return (f"pip lists {name} {lo} to {hi} for {said}, all newer than the requested "
                f"{wanted}: that release has no wheel for this Python (one newer than it "
                "supports) or platform.")
    stated = f" (the text states Python {python})" if python is not None else ""
    return (f"{what} is newer than every {name} pip lists for this interpreter (up to {hi})"
            f"{stated}: that release does not exist, or it needs a newer Python or another "
            "platform.")


def _between_reason(what: str, name: str, pin: Version | None, listed: list[Version],
                    said: str) -> str | None:
    if pin is None:
        return None
    label = pin.local or ""
    public = Version(pin.public)
    if _LOCAL_LABEL.match(label) and public in {Version(v.public) for v in listed} \
            and name in ("torch", "torchvision", "torchaudio"):
        return (f"pip lists {name} {public} for {said} but not {pin}: the +{label} build is "
                f"on PyTorch's own index only; install it with `--index-url "
                f"https://download.pytorch.org/whl/{label}` (or drop the +{label} suffix).")
    below = max((v for v in listed if v < pin), default=None)
    above = min((v for v in listed if v > pin), default=None)
    if below is None or above is None:
        return None
    return (f"pip lists {name} {below} and {above} for {said} but no {pin}: that release does "
            "not exist (check the number), or it has no wheel for this Python or platform.")


def _none_reason(text: str, name: str, spec: SpecifierSet, python: Version | None) -> str | None:
    if _UNREACHED.search(text):
        return None
    indexes = " ".join(m.group(1) for m in _INDEX.finditer(text))
    if indexes and not any(k in indexes for k in _KNOWN_INDEXES):
        return None  # a private index or mirror: what it carries is not known here
    if python is None:
        return None
    first, tabled = first_release_for(name, python)
    if tabled and first is None:
        newest = _newest_python(name)
        if newest is None or (python.major, python.minor) <= newest:
            return None
        return (f"No {name} release has wheels for Python {_minor(python)} (the newest Python "
                f"any release in rules/matrices supports is {newest[0]}.{newest[1]}): pip "
                f"finds none. Use Python {newest[0]}.{newest[1]} or older.")
    if tabled and first is not None:
        pin = _pinned(spec)
        release = release_python(name, pin) if pin is not None else None
        if release is not None and not _admits(release, python):
            return (f"{name} {pin} has no wheel for Python {_minor(python)} (its wheels cover "
                    f"Python {_in_words(release)}), and pip lists no {name} at all for this "
                    f"interpreter: also check it is 64-bit and on a platform {name} publishes "
                    "wheels for.")
        return (f"{name} has wheels for Python {_minor(python)} only from {first} on "
                f"(rules/matrices), and pip lists no {name} at all for this interpreter: the "
                f"index it read had no {name} {first} or newer yet (a log from before that "
                f"release, or a stale mirror), or this Python is 32-bit or on an OS/CPU {name} "
                "publishes no wheels for. Use an older Python, or a 64-bit one with a current pip "
                f"and {name} {first} or newer.")
    return (f"pip found no {name} file at all for Python {_minor(python)} on this platform "
            f"(`from versions: none`): no {name} release publishes a wheel for it (or the index "
            f"does not carry {name}). Use a Python that {name}'s releases support, or a release "
            f"with wheels for Python {_minor(python)}.")


# ---------------------------------------------------------------- the platform the text states
_WHEEL_OR_URL = re.compile(r"\S{0,300}\.whl\b|https?://\S{1,500}|\S{0,200}\.(?:tar\.gz|zip)\b")
_OS = {
    "windows": re.compile(r"\bWindows\b|\bWin ?1[01]\b|(?<![\w/])[A-Z]:\\(?!\\)|\bcmd\.exe\b|"
                          r"\bPowerShell\b|\bAppData\b"),
    "mac": re.compile(r"(?i)\bmac ?OS\b|\bOS X\b|\bDarwin\b|\bMacBook|(?<![\w.])/Users/\w|"
                      r"\bApple M[1-4]\b|\bM[1-4] (?:Pro|Max|Ultra|Mac|chip)\b"),
    "linux": re.compile(r"(?i)\bLinux\b|\bUbuntu\b|\bDebian\b|\bCentOS\b|\bFedora\b|\bRHEL\b|"
                        r"\bRocky\b|(?<![\w.])/home/\w|(?<![\w.])/usr/(?:local/)?lib/python|"
                        r"\bJetson\b|\bWSL\b|\bRaspberry Pi\b"),
}
_ARCH = {
    "aarch64": re.compile(r"(?i)\baarch64\b|\barm64\b|\bApple M[1-4]\b|\bM[1-4] (?:Pro|Max|Ultra|"
                          r"Mac|chip)\b|\bJetson\b|\bGraviton|\bARMv8"),
    "x86_64": re.compile(r"(?i)\bx86[_-]64\b|\bamd64\b|\bx64\b"),
}


def stated_platform(text: str) -> tuple[str | None, str | None]:
    """(OS, CPU) the text states outside wheel names and URLs: "linux" / "mac" / "windows" and
    "x86_64" / "aarch64", each None when the text states none or two."""
    head = _WHEEL_OR_URL.sub(" ", text[:MAX_TEXT])
    oses = [k for k, rx in _OS.items() if rx.search(head)]
    arches = [k for k, rx in _ARCH.items() if rx.search(head)]
    return (oses[0] if len(oses) == 1 else None), (arches[0] if len(arches) == 1 else None)


# ---------------------------------------------------------------- a refused wheel's tags
_REFUSED = re.compile(r"([^\s/\\'\"`:]{3,300}\.whl) is not a supported wheel on this platform")


def _wheel_platform(platform: str) -> tuple[str | None, set[str]]:
    """(OS, CPUs) of a platform tag; (None, set()) for ``any``."""
    if platform == "any":
        return None, set()
    if platform.startswith("win"):
        return "windows", {"win32": {"x86"}, "win_amd64": {"x86_64"},
                           "win_arm64": {"aarch64"}}.get(platform, set())
    if platform.startswith("macosx"):
        cpu = platform.rsplit("_", 1)[-1]
        cpus = {"arm64": {"aarch64"}, "x86_64": {"x86_64"}, "universal2": {"aarch64", "x86_64"},
                "intel": {"x86_64", "x86"}}.get(cpu, {cpu})
        return "mac", cpus
    if platform.startswith(("manylinux", "musllinux", "linux")):
        cpu = re.sub(r"^(?:many|musl)?linux(?:_\d+_\d+|1|2010|2014)?_", "", platform)
        return "linux", {"aarch64" if cpu == "aarch64" else cpu}
    return None, set()


def _tag_errors(tags: Any) -> str | None:
    """A tag no interpreter accepts, whatever the machine."""
    for t in tags:
        if re.fullmatch(r"(?:many|musl)?linux(?:_\d+_\d+|1|2010|2014)?_arm64", t.platform):
            return (f"The wheel's platform tag `{t.platform}` fits no Linux: Linux names this CPU "
                    "aarch64 (`linux_aarch64`, `manylinux…_aarch64`), so pip on an Arm Linux "
                    "machine refuses it; the wheel was named wrongly, or built for another system.")
        if t.platform.startswith("macosx") and t.platform.endswith("_aarch64"):
            return (f"The wheel's platform tag `{t.platform}` fits no Mac: macOS names Apple "
                    "silicon arm64 (`macosx_11_0_arm64`), so pip refuses it; the build named the "
                    "CPU as Linux does.")
        m = re.fullmatch(r"cp3(\d{1,2})m", t.abi)
        if m and int(m.group(1)) >= 8:
            return (f"The wheel's ABI tag `{t.abi}` fits no interpreter: Python 3.8 dropped the "
                    f"`m` ABI flag, so CPython 3.{m.group(1)} accepts `cp3{m.group(1)}`, not "
                    f"`{t.abi}`; the wheel was named wrongly (rename it with the ABI tag "
                    f"`cp3{m.group(1)}` only if it was built for that CPython).")
    return None


def refused_wheel_reason(text: str) -> str | None:
    """The note when the tags of the wheel pip refused name another Python, OS or CPU than the
    text states (or a tag no interpreter accepts); None when they fit what it states or it
    states nothing to compare."""
    head = text[:MAX_TEXT]
    m = _REFUSED.search(head)
    if m is None:
        return None
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename
    filename = m.group(1)
    try:
        _, _, _, tags = parse_wheel_filename(filename)
    except (InvalidWheelFilename, InvalidVersion):
        return None
    wrong = _tag_errors(tags)
    if wrong:
        return wrong
    parts: list[str] = []
    python = stated_python(head.replace(m.group(0), " "))
    cps = {t.interpreter for t in tags}
    if python is not None and all(re.fullmatch(r"cp\d{2,3}", c) for c in cps):
        wants = f"cp{python.major}{python.minor}"
        abi3 = [c for c in cps if any(t.abi == "abi3" and t.interpreter == c for t in tags)]
        fits = wants in cps or any(_version(f"{c[2]}.{c[3:]}") is not None
                                   and (python.major, python.minor) >= (int(c[2]), int(c[3:]))
                                   for c in abi3)
        if not fits:
            built = sorted(cps)[0]
            parts.append(f"its `{built}` tag is CPython {built[2]}.{built[3:]} and the text "
                         f"states Python {_minor(python)}")
    os_, arch = stated_platform(head)
    plats = [_wheel_platform(t.platform) for t in tags]
    wheel_oses = {o for o, _ in plats if o}
    wheel_cpus = {c for _, cs in plats for c in cs}
    names = {"linux": "Linux", "mac": "macOS", "windows": "Windows"}
    if os_ is not None and wheel_oses and os_ not in wheel_oses:
        parts.append(f"it is built for {'/'.join(names[o] for o in sorted(wheel_oses))} and the "
                     f"text states {names[os_]}")
    elif arch is not None and wheel_cpus and arch not in wheel_cpus:
        parts.append(f"it is built for {'/'.join(sorted(wheel_cpus))} CPUs and the text states "
                     f"an {arch} machine")
    if not parts:
        return None
    if len(parts) == 1 and parts[0].startswith("its `cp"):
        from envdoctor.explain.wheeltags import wheel_python_reason
        same = wheel_python_reason(head)
        if same is not None:
            return same  # the note a yield to EPIP001 carries: said once
    return (f"pip refused {filename} because {'; '.join(parts)}: take the wheel built for this "
            "interpreter and machine (`python -m pip debug --verbose` lists the tags it accepts).")


# ---------------------------------------------------------------- conda's solver
_CONDA_ASKED = re.compile(r"(?m)^\s{0,8}(?:Package python conflicts for:\s*\n\s{0,8}"
                          r"python ?[=<>]{1,2} ?|Your python: python ?=?=?)"
                          r"(\d\.\d{1,2}(?:\.\d{1,2})?)\b")
_CONDA_CHAIN = re.compile(r"(?m)^\s{0,8}(?:- )?([\w.-]{1,80})(?:[=<>]{1,2}([\w.*]{1,40}))? -> "
                          r"python\[version='([^'\n]{1,4000})'")


def _conda_spec(part: str) -> SpecifierSet | None:
    part = part.strip()
    if not part:
        return None
    if part[0].isdigit():
        part = "==" + part
    return _spec(part)


def conda_python_reason(text: str) -> str | None:
    """The note when conda's solver lists the Pythons a package's builds need and the Python
    asked for is none of them."""
    head = text[:MAX_TEXT]
    asked = _CONDA_ASKED.search(head)
    if asked is None:
        return None
    python = _version(asked.group(1))
    if python is None:
        return None
    for m in _CONDA_CHAIN.finditer(head):
        specs = [s for s in (_conda_spec(p) for p in m.group(3).split("|")) if s is not None]
        if not specs:
            continue
        minors = sorted({mm for s in specs for mm in covered_minors(s)})
        if (python.major, python.minor) in minors:
            continue
        package = f"{m.group(1)} {m.group(2)}" if m.group(2) else m.group(1)
        return (f"{package}'s builds in these channels are for Python {minors_in_words(minors)} "
                f"and the environment asks for Python {python}: create it with a Python in that "
                f"list, or take {package} from a channel that builds it for {python}.")
    return None


PATTERNS = (*_PIP_PYTHON, *_SHOWN_PYTHON, _NO_VERSION, _IGNORED, _IGNORED_ENTRY,
            _IGNORED_END, _DIFFERENT_PYTHON, _UNREACHED, _INDEX, _WHEEL_OR_URL, *_OS.values(),
            *_ARCH.values(), _REFUSED, _CONDA_ASKED, _CONDA_CHAIN)
