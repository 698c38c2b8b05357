"""The Python a refused wheel was built for, against the Python the text states.

pip refuses a wheel file ("X-1.0-cp312-cp312-manylinux_2_35_x86_64.whl is not a supported wheel
on this platform") when any of its tags is not one this interpreter accepts: the CPython
version (``cp312``), the ABI, or the platform (``manylinux_2_35`` needs glibc 2.35). The name
alone cannot say which; the text often can: "pip3.10 install ...", "Python 3.8", a
``python3.8/site-packages`` path. A ``cpXY`` tag for another Python than the stated one is the
cause, whatever the platform tag asks for, so a glibc reading yields to "no wheel for this
Python" (``[[yields_to]] wheel_python_differs = true``).
"""

from __future__ import annotations

import re

# the file pip refused: name-version-pythontag-abitag-platformtag.whl
_REFUSED = re.compile(r"-cp(\d)(\d{1,2})-(cp\d{2,3}[mdu]{0,3}|abi3|none)-[\w.]{1,300}\.whl"
                      r" is not a supported wheel on this platform")
# the interpreter the text names: "pip3.10 install", "python3.8 -m pip", "Python 3.8.8",
# ".../python3.8/site-packages/..."
_STATED = re.compile(r"(?i)(?<![\w.])(?:pip|python) ?(3)\.(\d{1,2})(?![\d])")


def refused_wheel_python(text: str) -> tuple[str, bool] | None:
    """("3.12", is_abi3) of the first refused wheel's CPython tag, or None."""
    m = _REFUSED.search(text[:1 << 20])
    if m is None:
        return None
    return f"{m.group(1)}.{m.group(2)}", m.group(3) == "abi3"


def stated_pythons(text: str) -> tuple[str, ...]:
    """Every Python 3.X the text names, in order, without repeats."""
    return tuple(dict.fromkeys(f"{a}.{b}" for a, b in _STATED.findall(text[:1 << 20])))


def _minor(version: str) -> int:
    return int(version.split(".")[1])


def wheel_python_reason(text: str) -> str | None:
    """The note when the refused wheel's CPython tag is not the Python the text states."""
    refused = refused_wheel_python(text)
    if refused is None:
        return None
    tag, abi3 = refused
    stated = [v for v in stated_pythons(text) if v != tag]
    if not stated or len(stated) != len(stated_pythons(text)):
        return None  # the text names no Python, or names the wheel's own one too
    python = stated[0]
    if abi3 and _minor(python) >= _minor(tag):
        return None  # an abi3 wheel serves every later Python
    return (f"The refused wheel is tagged cp{tag.replace('.', '')} (CPython {tag}) and the "
            f"text states Python {python}: pip takes only wheels built for its own Python.")


# Packages that publish Windows wheels (win_amd64) for every CPython they support, from their
# PyPI "Download files" pages: pip compiles one of them on Windows only when none of its wheels
# fits this interpreter (a Python the release asked for predates, a 32-bit or ARM Python), so
# the missing compiler is the symptom and the Python/wheel mismatch the cause.
WINDOWS_WHEEL_PACKAGES = frozenset({
    "aiohttp", "multidict", "yarl", "frozenlist", "numpy", "scipy", "pandas", "bottleneck",
    "numexpr", "scikit-learn", "matplotlib", "kiwisolver", "contourpy", "pillow", "lxml",
    "psutil", "pyyaml", "grpcio", "h5py", "greenlet", "regex", "tokenizers", "safetensors",
    "orjson", "pydantic-core", "cffi", "cryptography", "numba", "llvmlite", "sentencepiece",
    "msgpack", "ujson", "tiktoken", "xxhash", "zstandard", "pyarrow", "shapely", "onnx",
})
# the package pip builds from source: "Building wheel for aiohttp (pyproject.toml)", "Failed
# building wheel for numpy", "Failed to build scipy", numpy's build folder "src.win-amd64-3.9\numpy"
_BUILDING = re.compile(r"(?i)\b(?:building wheel for|failed building wheel for|failed to build)"
                       r" ([A-Za-z][\w.-]{0,60})|\bsrc\.win(?:32|-amd64)-3\.\d{1,2}\\(numpy|scipy)\b")
_WIN_PYTHON = re.compile(r"(?i)(?:\bPython ?|\bwin(?:32|-amd64)-(?:cpython-)?|\\Python)(3)\.?"
                         r"(\d{1,2})(?![\d])")


def built_wheel_package_reason(text: str) -> str | None:
    """The note when pip compiles, on Windows, a package that publishes Windows wheels."""
    text = text[:1 << 20]
    names = {(m.group(1) or m.group(2)).lower().replace("_", "-").rstrip(".")
             for m in _BUILDING.finditer(text)}
    known = sorted(n for n in names if n in WINDOWS_WHEEL_PACKAGES)
    if not known:
        return None
    pythons = {f"{m.group(1)}.{m.group(2)}" for m in _WIN_PYTHON.finditer(text)}
    python = f"Python {next(iter(pythons))}" if len(pythons) == 1 else "this Python"
    return (f"pip compiles {known[0]} from source, and {known[0]} publishes Windows wheels: none "
            f"of the release asked for fits {python} (a Python that release predates or has "
            f"dropped, or a 32-bit/ARM interpreter). Use a Python that release has wheels for, or a release "
            f"with wheels for {python}; the build tools would only let pip compile it.")


PATTERNS = (_REFUSED, _STATED, _BUILDING, _WIN_PYTHON)
