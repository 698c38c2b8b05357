"""The facts an error text states about itself, read by structure rather than by wording.

``text_facts(text) -> TextFacts`` is the typed API that both ``explain`` and the report
parsers (``check --from``) call on a pasted text: the exceptions raised (type and module),
the shared libraries and symbols named (``lib*.so.N``, ``undefined symbol: X``,
``GLIBCXX_3.4.N``, ``version 'X' not found``), the versions stated (torch, CUDA, cuDNN,
driver, Python, jax, jaxlib, the JAX plugin…), the GPUs and compute capabilities (``sm_61``,
"compute capability 6.1"), the warnings, and whether a traceback was cut before its final
exception line (then the cause is in the warnings and frames above the cut).

Facts are normalised so that one rule covers a family of wordings: case, punctuation, a
terminal's line wrapping, and near-misses of the names of well-known libraries typed by hand
(``lidcuda.so`` is ``libcuda.so``: a bounded edit distance against ``KNOWN_LIBRARIES``, never
a regex per typo). A text that does not mention a fact says nothing about it: every field is
"what the text states", never "absent" (see DESIGN.md section 1).

Every pattern here is linear (``tests/test_explain_textfacts.py`` audits them with
``engine.redos``) and a text is read at most ``MAX_TEXT`` characters deep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MAX_TEXT = 4 << 20      # a pasted text; a big log's facts come from its first 4 MB
MAX_ITEMS = 64          # of each kind of fact
MAX_NAME = 64           # longest library name compared with the known ones

# Shared libraries that deep-learning errors name. Near-misses of these (one or two edits,
# depending on length) are read as these; unknown names are kept as written.
KNOWN_LIBRARIES = (
    "libcuda.so", "libcudart.so", "libcublas.so", "libcublasLt.so", "libcudnn.so",
    "libcudnn_ops_infer.so", "libcudnn_cnn_infer.so", "libcudnn_ops.so", "libcudnn_cnn.so",
    "libcudnn_graph.so", "libcudnn_adv.so", "libcufft.so", "libcurand.so", "libcusparse.so",
    "libcusolver.so", "libcupti.so", "libnccl.so", "libnvrtc.so", "libnvJitLink.so",
    "libnvidia-ml.so", "libnvinfer.so", "libnvinfer_plugin.so", "libnvToolsExt.so",
    "libtorch.so", "libtorch_cuda.so", "libtorch_cpu.so", "libtorch_python.so", "libc10.so",
    "libc10_cuda.so", "libtensorflow_framework.so", "libtpu.so", "libstdc++.so", "libgomp.so",
    "libgcc_s.so", "libc.so", "libm.so", "libdl.so", "libpthread.so", "libGL.so",
    "libmxnet.so", "libpaddle.so", "libamdhip64.so", "librocblas.so", "libMIOpen.so",
    "libze_loader.so", "libomp.so", "libiomp5.so", "libmkl_rt.so", "libopenblas.so",
)
_KNOWN_LOWER = {name.lower(): name for name in KNOWN_LIBRARIES}

# A library-like token: letters, digits, _ + - then ".so", ".dll" or ".dylib", and a version.
# A comma for the dot (``libcudart,so.11.0``, typed by hand) is read only for known names.
_LIB = re.compile(r"(?<![\w.+-])([A-Za-z][\w+-]{1,40})([.,])(so|SO|dll|DLL|dylib)((?:\.\d+){0,4})"
                  r"(?![\w])")
# A known name typed with its ".so" run into the stem and a version after it
# (``libcudartso.11.0``): read only when the stem is a known library's.
_LIB_RUN = re.compile(r"(?<![\w.+-])(lib[A-Za-z][\w+-]{1,40})so((?:\.\d+){1,4})(?![\w])")
_SYMBOL = re.compile(r"(?i)undefined symbol:?\s+([A-Za-z_][\w$@.]{0,200})"
                     r"(?:,? version (\S{1,80}))?")
_SYMBOL_IN = re.compile(r"\bsymbol ([A-Za-z_]\w{0,200}),? version (\S{1,80}) not defined")
_VERSION_NOT_FOUND = re.compile(r"version [`'\"]([A-Za-z_][\w.]{0,100})['\"] not found")
_GLIBCXX = re.compile(r"\b(GLIBCXX|GLIBC|CXXABI)_(\d+(?:\.\d+){0,3})\b")
_SM = re.compile(r"\b(?:sm|compute)_(\d{2,3})[a-z]?\b")
# "compute capability 6.1", "GPU with CUDA capability 7 0", "your GPU has capability (6, 1)";
# a requirement ("requires capability > (8, 0)") has an operator before the number: not read
_CC = re.compile(r"(?i)\b(?:compute|cuda|gpu has) capability(?: is)?[: ]{0,3}\(?(\d{1,2})"
                 r"(?:[.,] ?| )(\d)\b")
# a ROCm build of torch answers its CUDA-capability warning with the AMD chip's GCN/RDNA
# architecture ("Found GPU0 Vega 10 XT [Radeon RX Vega 64] which is of cuda capability 3.0"): on
# such a line the number is no compute capability
_AMD_GPU_NAMED = re.compile(r"(?i)\b(?:radeon|ellesmere|polaris|baffin|fiji|vega|navi|instinct|"
                            r"firepro|gfx\d{3,4})\b")
_GPU = re.compile(r"(?i)\b((?:NVIDIA |GeForce |Tesla |Quadro |RTX |GTX )+"
                  r"[A-Z]{0,4} ?\d{1,4}[A-Za-z]{0,3}(?: Ti| SUPER| Ti SUPER)?)\b"
                  r"|\b((?:Tesla |NVIDIA )?[AHVTLPBK]\d{1,3}[A-Za-z]?(?:-SXM\d|-PCIE)?"
                  r"(?:-\d{1,3}GB)?)(?= |$|,)")
# the same names typed run together or in lower case ("RTX8000", "rtx2080ti", "GTX1080Ti",
# "NvidiaTeslaP100"), read as the spaced name (``_gpu_run_name``)
_GPU_RUN = re.compile(r"(?i)(?<![a-z0-9])(?:nvidia ?|geforce ?)?(rtx|gtx|tesla|quadro ?rtx|quadro)"
                      r"([a-z]?\d{2,4})(ti|super)?(?![a-z0-9])")
# a GeForce model number written after the word "GPU" ("GPU 2080Ti", "GPU2080", "GPU 3090", as
# READMEs and reports name the card): the 9xx/10xx/16xx GTX and 20xx-50xx RTX numbers only, read
# as the GTX/RTX name (``_gpu_word_name``)
_GPU_WORD_NUM = re.compile(r"(?i)(?<![a-z0-9])gpu ?((?:9[5-9]|10[5-8]|16[56]|20[6-8]|30[5-9]|40[6-9]"
                           r"|50[6-9])0)( ?ti| ?super)?(?![a-z0-9])")
_EXC = re.compile(r"^\s*(?:\[rank\d+\]:?\s*)?((?:[A-Za-z_]\w*\.){0,6})([A-Za-z_]\w*"
                  r"(?:Error|Exception|Exit|Interrupt|Failure|Fault))(?::\s?(.{0,300}))?$")
_WARN = re.compile(r"\b([A-Z]\w{0,40}Warning):\s?(.{0,300})")
_FRAME = re.compile(r'^\s*File "([^"]{1,400})", line (\d{1,7})(?:, in (\S{1,200}))?')
# IPython / Jupyter: "File ~/env/site-packages/mxnet/base.py:356, in _load_lib()" (newer, the
# arguments' values may follow) and "/usr/lib/python3/dist-packages/keras/x.py in <module>()"
_FRAME_IPY = re.compile(r"^\s*(?:File )?(~?[\w./\\:-]{1,400}\.py)(?::(\d{1,7}))?"
                        r"(?:,? in ([\w<>.]{1,200})(?:\([^\n]{0,400})?)?\s*$")
_TRACEBACK = "Traceback (most recent call last)"
# "torch 2.4.0", "PyTorch version: 2.4.0+cu121", "jaxlib==0.4.30", "CUDA Version: 12.2",
# "jax.__version__ = '0.4.30'", a wheel's or folder's name ("tensorflow-2.16.1-cp311…")
_VERSION_OF = re.compile(
    r"(?i)(?<![\w-])(pytorch|torch|torchvision|torchaudio|tensorflow(?:-gpu)?|tf|jax|jaxlib"
    r"|jax[-_]cuda\d{2}[-_](?:plugin|pjrt)|keras|tf[-_]keras|cuda|cudnn|driver|python|numpy"
    r"|paddlepaddle(?:-gpu)?|paddle|mxnet(?:-cu\d{2,3})?|mindspore|flash[-_]attn|xformers"
    r"|bitsandbytes|vllm|triton|nccl|libtpu(?:-nightly)?)"
    r"(?:\.__version__\)?|(?: build| runtime| api)?(?: version)?(?: used to build pytorch)?)"
    r"[ \t]{0,40}(?:==|=|:|-|\bv|\bis\b)?[ \t]{0,8}['\"]?v?(\d{1,4}(?:\.\d{1,6}){1,3})"
    r"(\+[\w.]{1,20})?")
# a version another package pins, not the one installed: pip's "torchvision 0.13.0 has
# requirement torch==1.12.0, but you'll have torch 1.13.1" (the installed torch is the second),
# "requires torch==…", the resolver's "depends on torch==…"
_PINNED_BY = re.compile(r"(?i)(?:has requirement|requires|depends on)\s{1,3}$")
# pip show: "Name: jaxlib" then "Version: 0.4.31" on the next line
_PIP_NAME = re.compile(r"^\s*Name: ([A-Za-z][\w.-]{0,60})\s*$")
_PIP_VERSION = re.compile(r"^\s*Version: (\d{1,4}(?:\.\d{1,6}){1,3})")
# nvidia-container-cli's refusal of an image: "unsatisfied condition: cuda>=12.8" (the image's
# NVIDIA_REQUIRE_CUDA), read as the version "image_cuda" (the host's CUDA is "cuda")
_REQUIRE_CUDA = re.compile(r"unsatisfied condition: cuda ?>= ?(\d{1,2}\.\d{1,2})\b")
# The Windows build a WSL report states ("Microsoft Windows [Version 10.0.19045.2728]", "OS Build
# 18363.1256"), read as the version "windows_build": GPU compute in WSL starts at 19044
_WINDOWS_BUILD = re.compile(r"(?i)(?:\bOS Build ?|\bWin(?:dows)?\b[^\n]{0,60}\bbuild |"
                            r"(?<![\d.])10\.0\.)(\d{5})\b")
# ... or its release name ("Windows 10 Pro 20H2", "Win10 2004"): the build each one starts at
_WINDOWS_RELEASE = re.compile(r"(?i)\bWin(?:dows)? ?10\b[^\n]{0,40}?\b(1803|1809|1903|1909|2004|"
                              r"20H2|21H1|21H2|22H2)\b")
_RELEASE_BUILD = {"1803": "17134", "1809": "17763", "1903": "18362", "1909": "18363",
                  "2004": "19041", "20h2": "19042", "21h1": "19043", "21h2": "19044",
                  "22h2": "19045"}
_CANON = {"pytorch": "torch", "tensorflow-gpu": "tensorflow", "tf": "tensorflow",
          "paddlepaddle": "paddle", "paddlepaddle-gpu": "paddle", "tf-keras": "tf_keras",
          "flash-attn": "flash_attn", "libtpu-nightly": "libtpu"}


_RUN_PREFIX = {"rtx": "RTX", "gtx": "GTX", "tesla": "Tesla", "quadro": "Quadro"}


def _gpu_run_name(m: re.Match[str]) -> str:
    """``rtx2080ti`` -> ``RTX 2080 Ti``; ``QuadroRTX8000`` -> ``Quadro RTX 8000``."""
    prefix = " ".join(_RUN_PREFIX[w] for w in m.group(1).lower().replace("rtx", " rtx").split())
    suffix = {"ti": " Ti", "super": " SUPER"}.get((m.group(3) or "").lower(), "")
    return f"{prefix} {m.group(2).upper()}{suffix}"


@dataclass(frozen=True)
class ExceptionLine:
    """``jax.errors.JaxRuntimeError: message`` -> module ``jax.errors``, type, message."""

    module: str
    type: str
    message: str
    line: int
    raised_in: str = ""   # the file of the innermost frame above it ("" outside a traceback)
    stack: tuple[str, ...] = ()  # the files of every frame of its traceback, outermost first


@dataclass(frozen=True)
class Frame:
    path: str
    line: int
    function: str


@dataclass(frozen=True)
class TextFacts:
    """What one text states (every tuple is in order of first mention, without repeats)."""

    exceptions: tuple[ExceptionLine, ...] = ()
    libraries: tuple[str, ...] = ()          # normalised sonames: "libcuda.so.1"
    corrected: tuple[tuple[str, str], ...] = ()  # (as typed, as read): near-miss names
    symbols: tuple[str, ...] = ()            # undefined / not defined symbols
    symbol_versions: tuple[str, ...] = ()    # "GLIBCXX_3.4.29", "libcublasLt.so.11"
    versions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    gpus: tuple[str, ...] = ()
    compute_capabilities: tuple[str, ...] = ()  # "6.1", "8.0" (from sm_61 or stated)
    warnings: tuple[tuple[str, str], ...] = ()  # (category, message)
    frames: tuple[Frame, ...] = ()           # of the last traceback
    truncated: bool = False                  # a traceback with no exception line after it

    def version(self, name: str) -> str | None:
        """The first version stated for ``name`` (``torch``, ``cuda``, ``jaxlib``…)."""
        found = self.versions.get(name.lower())
        return found[0] if found else None

    @property
    def exception_types(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.type for e in self.exceptions))

    @property
    def last_exception(self) -> ExceptionLine | None:
        return self.exceptions[-1] if self.exceptions else None


# ---------------------------------------------------------------------------- library names
def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of ``a`` and ``b``, or ``limit + 1`` once it exceeds ``limit``
    (early exit once a row exceeds it; names longer than MAX_NAME are never compared)."""
    if abs(len(a) - len(b)) > limit or len(a) > MAX_NAME or len(b) > MAX_NAME:
        return limit + 1  # no library name is that long: nothing to compare
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [limit + 1] * len(b)
        lo, hi = max(1, i - limit), min(len(b), i + limit)
        for j in range(lo, hi + 1):
            cost = 0 if ca == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]


def nearest_library(name: str) -> str | None:
    """The known library (``libcuda.so``) a typed stem (``lidcuda.so``) is a near-miss of, or
    None. One edit for names up to 10 characters, two for longer ones; a tie between two
    known names is no answer (the typo is ambiguous)."""
    low = name.lower()
    if low in _KNOWN_LOWER:
        return _KNOWN_LOWER[low]
    limit = 1 if len(low) <= 10 else 2
    best: list[tuple[int, str]] = []
    for known_low, known in _KNOWN_LOWER.items():
        d = edit_distance(low, known_low, limit)
        if d <= limit:
            best.append((d, known))
    if not best:
        return None
    best.sort()
    if len(best) > 1 and best[0][0] == best[1][0]:
        return None
    return best[0][1]


def _library(stem: str, sep: str, ext: str, suffix: str) -> tuple[str, str | None]:
    """(normalised name, the typed name when it was a near-miss); ``sep`` is the character
    typed before the extension (a comma for the dot is a typo of a known name only)."""
    typed = f"{stem}{sep}{ext}"
    if ext not in ("so", "SO"):
        return typed + suffix, None
    known = nearest_library(f"{stem}.so")
    if known is None or (known == typed and sep == "."):
        return typed + suffix, None
    return known + suffix, typed + suffix


def _run_together(stem: str, suffix: str) -> str | None:
    """``libcudartso`` + ``.11.0`` -> ``libcudart.so.11.0`` when ``libcudart.so`` is a known
    library (or a near-miss of one), else None."""
    known = nearest_library(f"{stem}.so")
    return known + suffix if known else None


def correct_library_names(text: str) -> str:
    """The text with near-miss names of known libraries written as the loader prints them
    (the text itself when it has none): ``lidcuda.so.1`` -> ``libcuda.so.1``,
    ``libcudartso.11.0`` -> ``libcudart.so.11.0``."""
    def fix(m: re.Match[str]) -> str:
        name, typed = _library(m.group(1), m.group(2), m.group(3), m.group(4))
        return name if typed else m.group(0)

    def fix_run(m: re.Match[str]) -> str:
        return _run_together(m.group(1), m.group(2)) or m.group(0)
    head, tail = text[:MAX_TEXT], text[MAX_TEXT:]
    if "so." in head:
        head = _LIB_RUN.sub(fix_run, head)
    if ".so" not in head and ",so" not in head and ".SO" not in head:
        return head + tail
    return _LIB.sub(fix, head) + tail


# ---------------------------------------------------------------------------- facts
def _capability(sm: str) -> str:
    return f"{sm[:-1]}.{sm[-1]}"


def text_facts(text: str) -> TextFacts:
    """Read the facts one text states (see the module docstring)."""
    text = text[:MAX_TEXT]
    exceptions: list[ExceptionLine] = []
    libraries: dict[str, None] = {}
    corrected: dict[tuple[str, str], None] = {}
    symbols: dict[str, None] = {}
    sym_versions: dict[str, None] = {}
    versions: dict[str, dict[str, None]] = {}
    gpus: dict[str, None] = {}
    ccs: dict[str, None] = {}
    warnings: dict[tuple[str, str], None] = {}
    frames: list[Frame] = []
    in_traceback = False
    pip_name = ""  # the package a "Name:" line named, whose "Version:" may follow

    def add(bucket: dict[Any, None], key: object) -> None:
        if len(bucket) < MAX_ITEMS:
            bucket.setdefault(key, None)

    for no, line in enumerate(text.splitlines(), 1):
        if len(line) > 16_384:
            line = line[:16_384]
        if _TRACEBACK in line:
            in_traceback, frames = True, []
            continue
        frame = _FRAME.match(line)
        if frame is None and in_traceback and ".py" in line:
            frame = _FRAME_IPY.match(line)
        if frame:
            if len(frames) < MAX_ITEMS:
                frames.append(Frame(frame.group(1), int(frame.group(2) or 0),
                                    frame.group(3) or ""))
            continue
        exc = _EXC.match(line)
        if exc and (in_traceback or not line[:1].isspace()):
            if len(exceptions) < MAX_ITEMS:
                exceptions.append(ExceptionLine(
                    exc.group(1).rstrip("."), exc.group(2), (exc.group(3) or "").strip(), no,
                    frames[-1].path if in_traceback and frames else "",
                    tuple(f.path for f in frames) if in_traceback else ()))
            in_traceback = False
        if ".so" in line or ".dll" in line or ".dylib" in line or ",so" in line or ".SO" in line:
            for m in _LIB.finditer(line):
                name, typed = _library(m.group(1), m.group(2), m.group(3), m.group(4))
                if typed is None and m.group(2) == ",":
                    continue  # "foo,so" that is no known library: a comma in prose
                add(libraries, name)
                if typed:
                    add(corrected, (typed, name))
        for m in _LIB_RUN.finditer(line) if "so." in line else ():
            known = _run_together(m.group(1), m.group(2))
            if known:
                add(libraries, known)
                add(corrected, (m.group(0), known))
        if "symbol" in line:
            for m in _SYMBOL.finditer(line):
                add(symbols, m.group(1).split("@")[0].rstrip(",."))
                if m.group(2):
                    add(sym_versions, m.group(2).rstrip(",."))
            for m in _SYMBOL_IN.finditer(line):
                add(symbols, m.group(1))
                add(sym_versions, m.group(2).rstrip(","))
        if "version" in line:
            for m in _VERSION_NOT_FOUND.finditer(line):
                add(sym_versions, m.group(1))
        if "GLIBC" in line or "CXXABI" in line:
            for m in _GLIBCXX.finditer(line):
                add(sym_versions, f"{m.group(1)}_{m.group(2)}")
        low = line.lower()
        if "sm_" in low or "compute_" in low:
            for m in _SM.finditer(low):
                add(ccs, _capability(m.group(1)))
        if "capability" in low and not _AMD_GPU_NAMED.search(line):
            for m in _CC.finditer(line):
                add(ccs, f"{m.group(1)}.{m.group(2)}")
        for m in _GPU.finditer(line):
            add(gpus, " ".join((m.group(1) or m.group(2)).split()))
        if "rtx" in low or "gtx" in low or "tesla" in low or "quadro" in low:
            for m in _GPU_RUN.finditer(line):
                add(gpus, _gpu_run_name(m))
        if "gpu" in low:
            for m in _GPU_WORD_NUM.finditer(line):
                add(gpus, _gpu_word_name(m))
        if "warning" in low:
            for m in _WARN.finditer(line):
                add(warnings, (m.group(1), m.group(2).strip()))
        if "build" in low or "10.0." in low:
            for m in _WINDOWS_BUILD.finditer(line):
                add(versions.setdefault("windows_build", {}), m.group(1))
        if "win" in low:
            for m in _WINDOWS_RELEASE.finditer(line):
                add(versions.setdefault("windows_build", {}), _RELEASE_BUILD[m.group(1).lower()])
        if "unsatisfied condition" in low:
            for m in _REQUIRE_CUDA.finditer(line):
                add(versions.setdefault("image_cuda", {}), m.group(1))
        pairs = [(m.group(1), m.group(2)) for m in _VERSION_OF.finditer(line)
                 if not _PINNED_BY.search(line, max(0, m.start() - 24), m.start())]
        pip = _PIP_VERSION.match(line) if pip_name else None
        if pip and pip_name:
            pairs.append((pip_name, pip.group(1)))
        named = _PIP_NAME.match(line) if "Name: " in line else None
        pip_name = named.group(1) if named and _VERSION_OF.match(named.group(1) + " 0.0") else ""
        for raw, version in pairs:
            name = raw.lower().replace("_", "-")
            name = _CANON.get(name, name)
            if name == "python" and not version.startswith(("2.", "3.")):
                continue  # "…different python version: 1.5.0 Requires-Python": a package's
            if name.startswith(("jax-cuda", "jax_cuda")):
                name = "jax_plugin"
            elif name.startswith("mxnet"):
                name = "mxnet"
            add(versions.setdefault(name, {}), version)
    return TextFacts(
        exceptions=tuple(exceptions), libraries=tuple(libraries), corrected=tuple(corrected),
        symbols=tuple(symbols), symbol_versions=tuple(sym_versions),
        versions={k: tuple(v) for k, v in versions.items()}, gpus=tuple(gpus),
        compute_capabilities=tuple(ccs), warnings=tuple(warnings),
        frames=tuple(frames), truncated=in_traceback and bool(frames))


def _gpu_word_name(m: re.Match[str]) -> str:
    """``GPU2080`` -> ``RTX 2080``; ``GPU 1080Ti`` -> ``GTX 1080 Ti``."""
    number = m.group(1)
    prefix = "RTX" if number[:2] in ("20", "30", "40", "50") else "GTX"
    suffix = {"ti": " Ti", "super": " SUPER"}.get((m.group(2) or "").strip().lower(), "")
    return f"{prefix} {number}{suffix}"


PATTERNS = (_LIB, _LIB_RUN, _SYMBOL, _SYMBOL_IN, _VERSION_NOT_FOUND, _GLIBCXX, _SM, _CC, _GPU,
            _GPU_RUN, _GPU_WORD_NUM, _EXC,
            _WARN, _FRAME, _FRAME_IPY, _VERSION_OF, _PIP_NAME, _PIP_VERSION, _REQUIRE_CUDA,
            _WINDOWS_BUILD)


def stated_gpu_cc(name: str) -> str | None:
    """The compute capability of a GPU as a text names it: the name table's, else the one
    capability its usual full names agree on ("RTX 8000" is the Quadro RTX 8000, "T4" the
    Tesla T4); None when the table does not know it or the full names disagree ("RTX 6000":
    the Quadro, Turing, or the RTX 6000 Ada)."""
    from envdoctor.engine.knowledge.gpu import gpu_cc_of
    from envdoctor.facts import Gpu
    known = gpu_cc_of(Gpu(name=name))
    if known is not None:
        return str(known)
    spaced = re.sub(r"(?i)(?<=\d)(ti|super)$", lambda m: " Ti" if m.group(1).lower() == "ti"
                    else " SUPER", name)  # "RTX 2080Ti" is the RTX 2080 Ti
    if spaced != name:
        return stated_gpu_cc(spaced)
    ccs = {str(cc) for cc in (gpu_cc_of(Gpu(name=f"{p} {name}")) for p in ("Quadro", "Tesla",
                                                                            "NVIDIA"))
           if cc is not None}
    if not ccs:
        return None
    other = gpu_cc_of(Gpu(name=f"{name} Ada Generation"))
    if other is not None:
        ccs.add(str(other))
    return next(iter(ccs)) if len(ccs) == 1 else None
