"""The specific answer: a signature's ``facts_notes`` filled from the facts its text states,
and its ``yields_to``: a more specific signature that the text's own facts show it to be.

A signature names a family ("jax and its CUDA plugin are incompatible versions"); the text
that matched it often states the particulars: the versions of the pair, the GPU and its
compute capability, the symbol and the library release it was looked for in. A signature
lists notes with ``{placeholders}`` over ``STATED`` (names of ``textfacts.TextFacts``)::

    facts_notes = ["The text states jax {jax} with jaxlib {jaxlib}."]

A note is added only when every placeholder it names is stated in the text: a fact the text
does not state is unknown, and a note is never written about an unknown. Placeholder names are
checked when the rules load (``check_template``), so a misspelt one is a load error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from envdoctor.rulefiles import RuleFileError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from envdoctor.explain.textfacts import TextFacts

# A ranked diagnosis (envdoctor.explain.rank.Diagnosis) and a signature
# (envdoctor.explain.signatures.Signature): the signature loader checks this module's
# templates, and the ranker reaches it through the loader, so neither is imported back here.
Diagnosis = Any
Signature = Any

_PLACEHOLDER = re.compile(r"\{([a-z_]{1,40})\}")
_VERSIONED = ("python", "torch", "torchvision", "torchaudio", "cuda", "cudnn", "driver", "jax",
              "jaxlib", "jax_plugin", "tensorflow", "keras", "tf_keras", "paddle", "mxnet",
              "mindspore", "numpy", "flash_attn", "xformers", "bitsandbytes", "vllm",
              "triton", "nccl", "libtpu")


def _first(values: tuple[str, ...]) -> str | None:
    return values[0] if values else None


def _version_of(name: str) -> Callable[[TextFacts], str | None]:
    def read(facts: TextFacts) -> str | None:
        return facts.version(name)
    return read


def _image_driver_floor(facts: TextFacts) -> str | None:
    """The Linux driver that supports the CUDA an image requires ("cuda>=12.8" -> 570.124.04,
    rules/matrices/cuda_driver.toml); None when the text states no such requirement or the
    matrix has no row for it."""
    wanted = facts.version("image_cuda")
    if wanted is None:
        return None
    from envdoctor.engine.knowledge.cuda import min_driver
    floor = min_driver(wanted, os="linux")
    return str(floor) if floor is not None else None


STATED: dict[str, Callable[[TextFacts], str | None]] = {
    **{name: _version_of(name) for name in _VERSIONED},
    "gpu": lambda f: _first(f.gpus),
    "cc": lambda f: _first(f.compute_capabilities),
    "symbol": lambda f: _first(f.symbols),
    "symbol_version": lambda f: _first(f.symbol_versions),
    "library": lambda f: _first(f.libraries),
    "exception": lambda f: f.last_exception.type if f.last_exception else None,
    "image_cuda": _version_of("image_cuda"),
    "image_cuda_driver": _image_driver_floor,
    "windows_build": _version_of("windows_build"),
}
MAX_NOTES = 4


def check_template(notes: object, path: Path | str, fld: str = "facts_notes") -> tuple[str, ...]:
    """Validate a signature's ``facts_notes``: a list of strings naming only ``STATED``."""
    if not isinstance(notes, list) or not all(isinstance(n, str) and n.strip() for n in notes):
        raise RuleFileError(path, fld, "must be a list of non-empty strings")
    if len(notes) > MAX_NOTES:
        raise RuleFileError(path, fld, f"at most {MAX_NOTES} notes")
    for note in notes:
        names = _PLACEHOLDER.findall(note)
        if not names:
            raise RuleFileError(path, fld, f"{note!r} names no {{fact}} (use the why text)")
        unknown = sorted(set(names) - set(STATED))
        if unknown:
            raise RuleFileError(path, fld, f"unknown fact(s) {unknown}; known: {sorted(STATED)}")
    return tuple(notes)


def fill(note: str, facts: TextFacts) -> str | None:
    """The note with its placeholders filled, or None if the text does not state one."""
    values: dict[str, str] = {}
    for name in set(_PLACEHOLDER.findall(note)):
        value = STATED[name](facts) if name in STATED else None
        if value is None:
            return None
        values[name] = value
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], note)


def with_stated_facts(text: str, diagnoses: list[Diagnosis],
                      signatures: Sequence[Signature]) -> list[Diagnosis]:
    """``diagnoses`` with the notes their signatures' ``facts_notes`` can fill from ``text``
    (the text is read for facts only when a diagnosis has such notes); ``signatures``: every
    loaded signature, the targets a ``yields_to`` may name (passed in: the signature loader
    checks this module's templates, so it is not imported back)."""
    from envdoctor.explain.owncause import with_own_causes
    return with_own_causes(text, _with_stated(text, diagnoses, signatures))


def _with_stated(text: str, diagnoses: list[Diagnosis],
                 signatures: Sequence[Signature]) -> list[Diagnosis]:
    wanted = [d for d in diagnoses if d.signature is not None
              and any(d.signature.extra.get(k) for k in ("facts_notes", "yields_to",
                                                          "stated_pair", "stated_notes",
                                                          "no_claim_when"))]
    if not wanted:
        return diagnoses
    diagnoses = [d for d in diagnoses if withheld_reason(d, text) is None]
    from envdoctor.explain.textfacts import text_facts
    facts = text_facts(text)
    diagnoses = apply_yields(diagnoses, facts, signatures, text)
    out = []
    for d in diagnoses:
        pair = d.signature.extra.get("stated_pair") if d.signature else None
        against = pair_contradiction(pair, facts, text) if pair else None
        if against:  # the text's own versions say the claimed mismatch is not there
            out.append(replace(d, confidence="low", notes=d.notes + (against,)))
            continue
        templates = d.signature.extra.get("facts_notes", ()) if d.signature else ()
        read = _read_stated_notes(d.signature, text)
        notes = tuple(dict.fromkeys(n for n in (*read, *(fill(t, facts) for t in templates))
                                    if n and n not in d.notes))
        out.append(replace(d, notes=d.notes + notes) if notes else d)
    return out


def withheld_reason(d: Diagnosis, text: str) -> str | None:
    """Why the text's own facts say the signature's cause is not what it shows (a table of its
    ``no_claim_when`` holds: its reading, on one of the diagnosis's own evidence lines where the
    table names ``evidence``), else None. Such a hit names no cause."""
    tables = d.signature.extra.get("no_claim_when", ()) if d.signature is not None else ()
    for table in tables:
        if not _evidence_holds(table, d):
            continue
        read = _stated_readings().get(str(table.get("stated")))
        reason = read(text) if read is not None else None
        if reason is not None:
            return reason
    return None


NO_CLAIM_KEYS = {"stated", "evidence"}


def check_no_claim(raw: object, path: Path | str) -> tuple[dict[str, object], ...]:
    """Validate ``[[no_claim_when]]`` tables: ``stated`` (a reading of ``STATED_READINGS``) and
    an optional ``evidence`` regex."""
    fld = "no_claim_when"
    if not isinstance(raw, list) or not raw:
        raise RuleFileError(path, fld, "must be a list of tables")
    for i, table in enumerate(raw):
        where = f"{fld}[{i}]"
        if not isinstance(table, dict) or table.get("stated") not in STATED_READINGS:
            raise RuleFileError(path, f"{where}.stated", f"must be one of {list(STATED_READINGS)}")
        extra = set(table) - NO_CLAIM_KEYS
        if extra:
            raise RuleFileError(path, where, f"unknown key(s) {sorted(extra)}")
        if "evidence" in table:
            _check_evidence(table["evidence"], path, f"{where}.evidence")
    return tuple(raw)


def _check_evidence(pattern: object, path: Path | str, fld: str) -> None:
    if not isinstance(pattern, str) or not pattern:
        raise RuleFileError(path, fld, "must be a regex")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise RuleFileError(path, fld, f"bad regex: {exc}") from None
    from envdoctor.engine import redos
    why = redos.problem(pattern)
    if why:
        raise RuleFileError(path, fld, f"{pattern!r} can backtrack catastrophically: {why}")


def _read_stated_notes(sig: Signature, text: str) -> tuple[str, ...]:
    """The notes of the signature's ``stated_notes`` readings that hold in the text: the
    particulars of its cause as the text states them (pip's resolver output read for the
    Python with no wheel, a refused wheel's tags against the stated Python and machine)."""
    names = sig.extra.get("stated_notes", ()) if sig is not None else ()
    if not names:
        return ()
    readings = _stated_readings()
    return tuple(n for n in (readings[name](text) for name in names if name in readings) if n)


def check_stated_notes(raw: object, path: Path | str) -> tuple[str, ...]:
    """Validate ``stated_notes``: a list of readings of ``STATED_READINGS``."""
    if not isinstance(raw, list) or not raw or not all(isinstance(r, str) for r in raw):
        raise RuleFileError(path, "stated_notes", "must be a non-empty list of reading names")
    unknown = sorted(set(raw) - set(STATED_READINGS))
    if unknown:
        raise RuleFileError(path, "stated_notes",
                            f"unknown reading(s) {unknown}; known: {list(STATED_READINGS)}")
    return tuple(raw)


# ---------------------------------------------------------------- stated_pair
# A signature that claims a version mismatch names the pair (``stated_pair = ["torch",
# "torchvision"]``). When the text states both and torch's release table pairs them, and the
# text shows no two different CUDA variants (``+cu121`` beside ``+cpu``), the text contradicts
# the claim: the diagnosis stays (the error is real) at low confidence, with a note saying
# what the text's own versions show, and without the notes that would repeat the pair as the
# cause.
PAIR_COMPANIONS = ("torchvision", "torchaudio")
_VARIANT = re.compile(r"\+(cu\d{2,3}|cpu|rocm\d+(?:\.\d+)*)\b")


def check_pair(raw: object, path: Path | str) -> tuple[str, str]:
    """Validate ``stated_pair``: torch and one of its companion packages."""
    if (not isinstance(raw, list) or len(raw) != 2 or raw[0] != "torch"
            or raw[1] not in PAIR_COMPANIONS):
        raise RuleFileError(path, "stated_pair",
                            f"must be [\"torch\", one of {list(PAIR_COMPANIONS)}]")
    return raw[0], raw[1]


# pip's conflict line ("torchvision 0.4.2 has requirement torch==1.3.1, but you'll have torch
# 1.2.0 which is incompatible") is printed after one install and before the next: when the same
# command line installs that torch and then the companion ("pip install .../torch-1.2.0-... &&
# pip install .../torchvision-0.4.0-..."), the mismatch lasted between the two installs only.
# A torchvision/torchaudio wheel pins the torch it was built for, so the second install leaves a
# pair that matches; where torch's release table knows the torch, the companion must pair with it.
_PIP_WILL_HAVE = re.compile(
    r"(?i)\b(torchvision|torchaudio) (\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)[\w.+!]{0,20},? "
    r"(?:has requirement|requires) torch\b[^\n]{0,60}?, but you(?:'ll| will)? have torch "
    r"(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)")
_PIP_INSTALL_LINE = re.compile(r"(?im)^[^\n]*\bpip3? install\b[^\n]*$")


def pip_conflict_transient(comp: str, text: str) -> str | None:
    """The note when pip's conflict line is followed, on one command line, by the install of
    the torch it names and then of the companion (the conflict lasted between two installs),
    else None."""
    from envdoctor.engine.knowledge.torch import torch_release
    head = text[:1 << 20]
    have = next((m for m in _PIP_WILL_HAVE.finditer(head) if m.group(1).lower() == comp), None)
    if have is None:
        return None
    named, torch = have.group(2), have.group(3)
    row = torch_release(torch)
    want = _release(str(row.get(comp, "")))[:2] if row else ()
    torch_at = re.compile(r"(?<![\w-])torch(?:==|-)" + re.escape(torch) + r"(?![\d])")
    comp_at = re.compile(r"(?i)(?<![\w-])" + comp + r"(?:==|-)(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)")
    for line in _PIP_INSTALL_LINE.finditer(head):
        cmd = line.group(0)
        if "--no-deps" in cmd:
            continue
        t = torch_at.search(cmd)
        c = comp_at.search(cmd, t.end()) if t else None
        if c is None or c.group(1) == named:
            continue
        if want and _release(c.group(1))[:2] != want:
            continue
        return (f"pip's conflict names torch {torch}, and the same command line then installs "
                f"{comp} {c.group(1)} after it: a {comp} wheel pins its torch, so the mismatch "
                f"lasted between the two installs. Check the versions now installed "
                f"(`pip show torch {comp}`) before changing anything.")
    return None


def pair_contradiction(pair: object, facts: TextFacts, text: str) -> str | None:
    """The note when the text states a matched torch/companion pair, else None."""
    if not isinstance(pair, list) or len(pair) != 2:
        return None
    transient = pip_conflict_transient(str(pair[1]), text)
    if transient:
        return transient
    torch, comp = facts.version("torch"), facts.version(str(pair[1]))
    if torch is None or comp is None:
        return None
    from envdoctor.engine.knowledge.torch import torch_release
    row = torch_release(torch)
    want = _release(str(row.get(str(pair[1]), "")))[:2] if row else ()
    if len(want) < 2 or _release(comp)[:2] != want:
        return None
    if len(set(_VARIANT.findall(text[:1 << 20]))) > 1:
        return None  # a CUDA build beside a CPU one is a mismatch the versions do not show
    from envdoctor.engine.text_findings import companion_without_cuda_ops
    if companion_without_cuda_ops(str(pair[1]), text):
        return None  # the dispatcher shows the loaded build has no CUDA ops, whatever its release
    return (f"The text states torch {torch} with {pair[1]} {comp}, a pair torch's release "
            f"table matches: the operators are missing for another reason than the versions, "
            f"e.g. {pair[1]} imported from a source checkout (torch.hub.load of the GitHub "
            f"repository, a {pair[1]} folder on sys.path) or a build without its C++ ops.")


# ---------------------------------------------------------------- yields_to
# A signature may yield to a more specific one when the text's own facts say so:
#
#   [[yields_to]]                      # "backend failed to initialise", but the text states
#   code = "EJAX008"                   # jax 0.4.38 beside jax-cuda12-plugin 0.5.0
#   versions_differ = ["jax", "jax_plugin"]
#
#   [[yields_to]]                      # a TypeError raised inside jax_plugins/…: the plugin
#   code = "EJAX008"                   # calls an API this jax/jaxlib does not have
#   raised_in = "jax_plugins"
#   exception_types = ["TypeError", "AttributeError", "ImportError"]
#
#   [[yields_to]]                      # "Invalid CUDA 'device=0' requested" (torch sees no
#   code = "ETORCH006"                 # GPU), and the text states torch 2.6.0+cpu: the CPU-
#   torch_build = "cpu"                # only build is why (the framework's own version word)
#
#   [[yields_to]]                      # "libcudnn.so.7: cannot open shared object file", and
#   code = "ETF002"                    # the traceback goes through tensorflow/python/: it is
#   frames_in = "tensorflow/python/"   # TensorFlow's CUDA libraries (its tested-build table)
#
# ``frames_in`` reads every frame of the text's tracebacks, a cut one included (a paste that
# ends inside the import chain still names the framework that was loading the library).
#
#   [[yields_to]]                      # "no kernel image", and the text names vLLM (a frame
#   code = "ECUDA016"                  # under vllm/, a version, or the word in a title or
#   package = "vllm"                   # prose) and only GPUs below compute capability 7.0
#   gpu_below = "7.0"                  # (a GTX 1080 Ti, 6.1: its name read through gpus.toml)
#
#   [[yields_to]]                      # flash-attn's "only supports Ampere GPUs or newer",
#   code = "ECUDA003"                  # and every GPU the text names (a B200, 10.0) is at or
#   package = "flash_attn"             # above the floor: the installed build has no kernels
#   gpu_at_least = "8.0"               # for this GPU, whatever its message says
#
#   [[yields_to]]                      # "manylinux_2_35 ... is not a supported wheel", and the
#   code = "EPIP001"                   # wheel is cp312 while the text says pip3.10: the
#   wheel_python_differs = true        # Python, not glibc (envdoctor.explain.wheeltags)
#
#   [[yields_to]]                      # a segfault, and the text states ROCm 3.5 and an RX
#   code = "EROCM001"                  # 5600 XT (gfx1010): a GPU AMD's list for that release
#   stated = "rocm_unlisted_gpu"       # does not name (a reading of STATED_READINGS)
#
#   [[yields_to]]                      # "DNN library initialization failed" (XLA's, which
#   code = "EJAX006"                   # TensorFlow and JAX both print), and the text names
#   stated = "jax_not_tensorflow"      # JAX and never TensorFlow: JAX's CUDA libraries
#
#   [[yields_to]]                      # TSL's "Could not load dynamic library 'libcusolver.so.11'"
#   code = "ECUDNN008"                 # (TensorFlow's and an older jaxlib's loader), the text
#   stated = "jax_not_tensorflow"      # names JAX and never TensorFlow, and the line that
#   evidence = "library '(?:lib)?cu(?:solver|blas)"  # matched names that library
#
# ``evidence`` (a regex) narrows any table: it holds only where one of the diagnosis's own
# evidence lines matches it, besides the table's other condition.
#
#   [[yields_to]]                      # "Microsoft Visual C++ 14.0 or greater is required" while
#   code = "EPIP001"                   # pip builds aiohttp, which publishes Windows wheels: no
#   stated = "windows_wheel_built"     # wheel fits this Python (envdoctor.explain.wheeltags)
#
# A signature with ``only_as_yield = true`` is a carrier: it matches a concrete line (a crash,
# an override value) so that the text's facts are read, and is dropped when none of its tables
# holds (a segfault alone names no cause).
#   [[yields_to]]                      # "no kernel image", and the text names a package of
#   code = "ECUDA016"                  # rules/matrices/arch_floors.toml (BMInf's kernels,
#   arch_floors = true                 # bitsandbytes, RAPIDS …) and only GPUs below its floor
#
YIELD_KEYS = {"code", "versions_differ", "raised_in", "exception_types", "frames_in",
              "package", "gpu_below", "gpu_at_least", "torch_build", "wheel_python_differs",
              "windows_build_below", "stated", "arch_floors", "evidence"}


def _stated_readings() -> dict[str, Callable[[str], str | None]]:
    """Readings of the whole text that a table can name (``stated = "..."``): each returns
    the note when the text's own facts say so, else None."""
    from envdoctor.explain import amdtext, gpustated, importtext, mactext, wheeltags, wsltext
    return {"rocm_unlisted_gpu": amdtext.unlisted_reason,
            "rocm_listed_gpu": amdtext.listed_gpu_reason,
            "rocm_support_question": amdtext.support_answer,
            "rocm_gfx8_dropped": amdtext.gfx8_dropped_reason,
            "cuda_torch_on_amd": amdtext.cuda_torch_reason,
            "pip_resolver": _piptext("resolver_reason"),
            "refused_wheel_tags": _piptext("refused_wheel_reason"),
            "conda_python": _piptext("conda_python_reason"),
            "macos_built_newer": mactext.built_newer_reason,
            "wsl_memory_below_host": wsltext.memory_below_host_reason,
            "hsa_override_mismatch": amdtext.override_reason,
            "windows_wheel_built": wheeltags.built_wheel_package_reason,
            "libcuda_stub": libcuda_stub_reason,
            "l4t_release_differs": l4t_release_reason,
            "jetson_cuda_differs": jetson_cuda_reason,
            "jetson_board": jetson_board_reason,
            "intel_gpu_only": intel_gpu_only_reason,
            "intel_igpu_only": intel_igpu_only_reason,
            "xpu_alloc_over_4gb": xpu_alloc_over_4gb_reason,
            "platform_jetson": _platform_reason("jetson"),
            "platform_wsl": _platform_reason("wsl"),
            "platform_mac": _platform_reason("mac"),
            "tensorflow_runtime": tensorflow_runtime_reason,
            "jax_not_tensorflow": jax_not_tensorflow_reason,
            "cudnn_on_ld_library_path": cudnn_on_ld_library_path_reason,
            "driver_below_torch_cuda": driver_below_torch_cuda_reason,
            "import_inside_package": importtext.inside_package_reason,
            "libraries_predate_gpu": gpustated.libraries_predate_gpu_reason,
            "ort_built_cuda11_on_cuda12": gpustated.ort_built_cuda11_on_cuda12_reason,
            "pickle_not_an_opcode": pickle_not_an_opcode_reason,
            "torch_below_required": _torchreq}


def _torchreq(text: str) -> str | None:
    """envdoctor.explain.torchreq's reading, imported when it is first read (``packaging``)."""
    from envdoctor.explain import torchreq
    return torchreq.below_required_reason(text)


def _piptext(name: str) -> Callable[[str], str | None]:
    """A reading of envdoctor.explain.piptext, imported when it is first read (it brings
    ``packaging.requirements``, which no other reading needs)."""
    def read(text: str) -> str | None:
        from envdoctor.explain import piptext
        reading: Callable[[str], str | None] = getattr(piptext, name)
        return reading(text)
    return read


STATED_READINGS = ("rocm_unlisted_gpu", "rocm_listed_gpu", "rocm_support_question", "rocm_gfx8_dropped",
                   "cuda_torch_on_amd",
                   "hsa_override_mismatch", "windows_wheel_built",
                   "libcuda_stub", "l4t_release_differs", "jetson_cuda_differs", "jetson_board",
                   "intel_gpu_only", "intel_igpu_only", "xpu_alloc_over_4gb",
                   "platform_jetson", "platform_wsl", "platform_mac", "tensorflow_runtime",
                   "jax_not_tensorflow", "cudnn_on_ld_library_path", "macos_built_newer",
                   "wsl_memory_below_host", "driver_below_torch_cuda", "pip_resolver",
                   "refused_wheel_tags", "conda_python", "import_inside_package",
                   "libraries_predate_gpu", "pickle_not_an_opcode",
                   "ort_built_cuda11_on_cuda12", "torch_below_required")


# torch's weights-only unpickler names the byte it cannot dispatch: "WeightsUnpickler error:
# Unsupported operand 118" (torch/_weights_only_unpickler.py, f"Unsupported operand {key[0]}").
# It refuses opcodes it does not allow as well as bytes that are no opcode at all; only the
# latter say the file is not a pickle stream. A refused type ("Unsupported global/class") is
# the weights-only refusal itself. The first bytes of a text file that ETORCH002 reads in pickle's
# own "invalid load key" ('v', a Git LFS pointer's "version" line; '<', an HTML page) are left
# out: they name another cause than a damaged file, and two held-out labels (heldout2 h121,
# heldout30 h024) read "Unsupported operand 118" as the weights-only default.
_TEXT_FIRST_BYTES = frozenset(b"v<")
_WO_OPERAND = re.compile(r"WeightsUnpickler error: Unsupported operand (\d{1,3})\b")
_WO_REFUSED_TYPE = re.compile(r"WeightsUnpickler error: Unsupported (?:global|class)\b"
                              r"|was not an allowed global by default")


def _pickle_opcodes() -> frozenset[int]:
    """The byte of every opcode of every pickle protocol (the standard library's own table)."""
    import pickletools
    return frozenset(ord(op.code) for op in pickletools.opcodes)


def pickle_not_an_opcode_reason(text: str) -> str | None:
    """The note when torch's weights-only unpickler stopped at a byte that no pickle protocol
    defines as an opcode (and refused no type): the file's bytes are not a pickle stream, so
    weights_only=False would fail as well (pickle's own "invalid load key")."""
    head = text[:1 << 20]
    if _WO_REFUSED_TYPE.search(head) is not None:
        return None
    opcodes = _pickle_opcodes()
    for m in _WO_OPERAND.finditer(head):
        byte = int(m.group(1))
        if byte < 256 and byte not in opcodes and byte not in _TEXT_FIRST_BYTES:
            return (f"The unpickler stopped at byte {byte} ({chr(byte)!r}), which is no opcode of "
                    "any pickle protocol: the file's bytes are not a pickle stream (a damaged or "
                    "cut download, or another file under the checkpoint's name), so loading it "
                    "with weights_only=False fails as well.")
    return None


# TensorFlow's own words when its native library failed to import (pywrap_tensorflow.py), which
# a paste keeps when it drops the frames: "Failed to load the native TensorFlow runtime."
_TF_RUNTIME = re.compile(r"(?i)\bFailed to load the native TensorFlow runtime\b")


def tensorflow_runtime_reason(text: str) -> str | None:
    """The note when the text holds TensorFlow's own import failure: the library that did not
    load was one TensorFlow was loading (its CUDA libraries, its tested-build table)."""
    if _TF_RUNTIME.search(text[:1 << 20]) is None:
        return None
    return ("The text says TensorFlow failed to load its native runtime: the missing library "
            "is one the TensorFlow build was linked against.")


def _platform_reason(name: str) -> Callable[[str], str | None]:
    """A reading that holds when the text names platform ``name`` (rules/platforms): a
    generic answer becomes the cause that platform has for the same symptom."""
    def read(text: str) -> str | None:
        from envdoctor.explain.platforms import load_platforms
        platform = load_platforms().get(name)
        said = platform.named_in(text) if platform is not None else None
        if said is None or platform is None:
            return None
        return f"The text names {platform.means} ({said!r}): the answer is that platform's cause."
    return read
# An L4T (Jetson) image's release, from its tag: "nvcr.io/nvidia/l4t-pytorch:r32.6.1-pth1.8-py3",
# "dustynv/ros:foxy-pytorch-l4t-r32.5.0", "dustynv/l4t-pytorch:r36.4.0"
_L4T_IMAGE = re.compile(r"(?i)\bl4t[\w.-]{0,40}?[:-] ?r(\d{2})\.(\d{1,2})(?![\d])")
# The host's: /etc/nv_tegra_release ("# R32 (release), REVISION: 3.1"), "L4T 35.4.1" /
# "[L4T R35.4.1]" (jtop, prose), the nvidia-jetpack package's version (its major only: JetPack
# 4 is L4T 32, 5 is 34-35, 6 is 36, 7 is 38)
_L4T_HOST = re.compile(r"\bR(\d{2}) \(release\), REVISION: (\d{1,2})\.\d{1,2}"
                       r"|(?<![\w-])L4T:? R?(\d{2})\.(\d{1,2})(?![\d])"
                       # the board's release in words: "Jetson NX with version r32.6"
                       r"|(?i:\b(?:version|host(?: is)?|running|flashed with))\s+[Rr](\d{2})\.(\d{1,2})(?![\d])")
_JETPACK_PACKAGE = re.compile(r"(?:Package: nvidia-jetpack\s{1,4}Version|nvidia-jetpack)"
                              r":? {0,4}(\d)\.\d{1,2}(?:\.\d{1,2})?(?:-b\d{1,4})?\b")
_JETPACK_L4T_MAJORS = {"4": (32,), "5": (34, 35), "6": (36,), "7": (38,)}
# the board's JetPack as people state it ("a Jetson Orin Nano which has Jetpack6.2", "flashed
# with JetPack 6.1"): not an image's ("based on the JetPack 5.1.2 image")
_JETPACK_BOARD = re.compile(r"(?i)\b(?:has|with|running|flashed with|on)\s+jet ?pack ?(\d)(?:\.\d{1,2}){0,2}\b")


def l4t_release_reason(text: str) -> str | None:
    """The note when the text states one L4T release for a Jetson image and another for the
    host it runs on: the image's CUDA libraries (mounted from the host on r32, built in from
    r34) are not the ones the host's JetPack has."""
    head = text[:1 << 20]
    if "l4t" not in head.lower():
        return None
    images = {(int(m.group(1)), int(m.group(2))) for m in _L4T_IMAGE.finditer(head)}
    if len(images) != 1:
        return None
    image = next(iter(images))
    hosts: set[tuple[int, int]] = set()
    for m in _L4T_HOST.finditer(head):
        major, minor = next((m.group(i), m.group(i + 1)) for i in (1, 3, 5) if m.group(i))
        hosts.add((int(major), int(minor)))
    jetpacks = {m.group(1) for m in _JETPACK_PACKAGE.finditer(head)} \
        | {m.group(1) for m in _JETPACK_BOARD.finditer(head)}
    if hosts:
        if len(hosts) != 1 or image in hosts:
            return None
        host = next(iter(hosts))
        said = f"R{host[0]}.{host[1]}"
    elif len(jetpacks) == 1:
        majors = _JETPACK_L4T_MAJORS.get(next(iter(jetpacks)), ())
        if not majors or image[0] in majors:
            return None
        said = f"JetPack {next(iter(jetpacks))} (L4T R{majors[-1]})"
    else:
        return None
    return (f"The text runs an L4T r{image[0]}.{image[1]} image on a host with {said}: the "
            "image's framework links the CUDA libraries of its own release, which this host's "
            "JetPack does not have.")


# A CUDA library a Jetson build cannot load, whose soname carries its CUDA release: cudart's
# libcudart.so.10.2 (CUDA 10.x carries major.minor) / .11.0 / .12, cuBLAS's and NVRTC's follow
# CUDA's major (libcublas.so.10 is CUDA 10.x's). cuFFT, cuRAND, cuSPARSE and cuSOLVER number
# their own releases (libcufft.so.10 ships with CUDA 11) and are not read.
_JETSON_CUDA_SONAME = re.compile(r"\blib(?:cudart|cublas|cublasLt|nvrtc)\.so\.(\d{1,2})(?:\.(\d))?"
                                 r"(?:\.\d{1,3}){0,2}: cannot open shared object file")
# the CUDA the text installs or reports: "cuda-toolkit-11-4", "CUDA 11.4", "CUDA: 11.4.239"
# (jtop), "/usr/local/cuda-12.2", "cuda12.2", nvcc's "release 10.2, V10.2.89"
_JETSON_CUDA_STATED = re.compile(r"(?i)(?<![\w.-])cuda(?:[-_ ]toolkit)?(?:[-_ ]|: ?| version:? ?)?"
                                 r"v?(\d{1,2})[.-](\d{1,2})(?![\d])"
                                 r"|\brelease (\d{1,2})\.(\d{1,2}), V\d")


def jetson_cuda_reason(text: str) -> str | None:
    """The note when, on a Jetson, a framework asks for a CUDA library of one CUDA release and
    the text states another CUDA: the build (a wheel, a binary) was made for another JetPack
    (JetPack 4 is CUDA 10.2, 5 is 11.4, 6 is 12.x), and the installed JetPack does not have it."""
    head = text[:1 << 20]
    wanted = {(int(m.group(1)), int(m.group(2)) if m.group(2) and int(m.group(1)) <= 10 else None)
              for m in _JETSON_CUDA_SONAME.finditer(head)}
    if len(wanted) != 1:
        return None
    stated = set()
    for m in _JETSON_CUDA_STATED.finditer(head):
        major, minor = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        stated.add((int(major), int(minor)))
    if len(stated) != 1:
        return None
    (w_major, w_minor), (s_major, s_minor) = next(iter(wanted)), next(iter(stated))
    if w_major == s_major and (w_minor is None or w_minor == s_minor):
        return None
    if jetson_board_reason(text) is None:
        return None
    asked = f"{w_major}.{w_minor}" if w_minor is not None else f"{w_major}.x"
    return (f"The build asks for CUDA {asked}'s libraries and the text states CUDA "
            f"{s_major}.{s_minor}: it was made for another JetPack than this one (JetPack 4 is "
            "CUDA 10.2, JetPack 5 is 11.4, JetPack 6 is 12.x), whose CUDA is not installed.")


# a Jetson named by the text: the board, its JetPack or L4T release, the Tegra release file
_JETSON_NAMED = re.compile(r"(?i)\bjetson\b|(?<![a-z])jet ?pack\b|\bL4T\b|nv_tegra_release")


def jetson_board_reason(text: str) -> str | None:
    """The note when the text names a Jetson (the board, JetPack, L4T): a CPU-only torch there
    is PyPI's aarch64 wheel, and the CUDA one comes from NVIDIA per JetPack, not pytorch.org."""
    m = _JETSON_NAMED.search(text[:1 << 20])
    if m is None:  # the platform's other names (rules/platforms: a board host name, its tools)
        from envdoctor.explain.platforms import named_in
        said = named_in(text, "jetson")
    else:
        said = m.group(0)
    if said is None:
        return None
    return (f"The text names a Jetson ({said}): torch from PyPI is a CPU-only aarch64 "
            "build there; NVIDIA publishes the CUDA one for each JetPack.")
# an Intel GPU named by the text: integrated Iris (Xe) / UHD / HD Graphics, an Arc card, a
# data-centre Max / Flex GPU; an Intel CPU ("Intel Core i7") names no GPU
_INTEL_GPU = re.compile(r"(?i)\bIntel(?:\(R\)|®)? (?:Iris(?:\(R\)|®)?(?: Xe| Plus| Pro)?"
                        r"(?: Graphics)?|U?HD Graphics(?: \d{3,4})?|Arc(?:\(TM\)|™)?(?: Graphics|"
                        r" [AB]\d{3}M?)?|Data Center GPU (?:Max|Flex)(?: \d{3,4})?)\b"
                        r"|\b(?:Iris Xe|UHD Graphics \d{3}|Arc [AB]\d{3}M?)\b")
# a GPU of another vendor, or a sign that an NVIDIA one is there (a model, nvidia-smi's table,
# a driver version it reported): then the Intel GPU is not the only one
_OTHER_GPU = re.compile(r"(?i)geforce|\b(?:RTX|GTX|MX) ?\d{3}|quadro|\btesla [a-z]?\d|"
                        r"\b[AHLTV]\d{2,3}(?:-\w{2,8})?\b(?: GPU| PCIe| SXM| Tensor)|\bjetson\b|"
                        r"NVIDIA-SMI \d|Driver Version: \d|\bradeon\b|\bgfx\d{3,4}|\brocm|"
                        r"\bnvidia (?:gpu|card|graphics)\b(?! (?:is|was) not)|\bCUDA GPU\b")


def intel_gpu_only_reason(text: str) -> str | None:
    """The note when the only GPU the text names is an Intel one (integrated Iris Xe / UHD,
    Arc): a CUDA program there finds no NVIDIA driver, whatever its error says of versions."""
    head = text[:1 << 20]
    m = _INTEL_GPU.search(head)
    if m is None or _OTHER_GPU.search(head) is not None:
        return None
    return (f"The only GPU the text names is Intel's ({m.group(0)}): CUDA runs on NVIDIA GPUs "
            "alone, so there is no NVIDIA driver for the CUDA runtime to use.")


# an Intel integrated GPU of the generations before Arc graphics: Iris Xe / Iris Plus / UHD / HD
# Graphics by name, or lspci's codename form ("TigerLake-LP GT2", "RocketLake-S GT1 [UHD
# Graphics 730]", "Alder Lake-P GT2"); Intel's XPU software (IPEX, torch's XPU build, ITREX,
# ipex-llm) lists none of them (intel-extension-for-pytorch#714: "UHD 770 is not officially
# supported"; torch's get-started page names Arc, Core Ultra with Arc graphics, Max)
_INTEL_IGPU = re.compile(r"(?i)\bIntel(?:\(R\)|®)? (?:Iris(?:\(R\)|®)?(?: Xe| Plus| Pro)?(?: Graphics)?"
                         r"|U?HD Graphics(?: P?\d{3,4})?)\b|\bIris Xe\b|\bU?HD Graphics P?\d{3}\b"
                         r"|\b(?:Tiger|Alder|Raptor|Rocket|Ice|Comet|Coffee|Kaby|Jasper|Elkhart) ?Lake"
                         r"(?:-[A-Z]{1,3})? GT\d\b")
# an Intel GPU the XPU software does support, or a sign of one: Arc (discrete, or Core Ultra's
# Arc graphics), Data Center GPU Max / Flex, the codenames of those
_INTEL_XPU_GPU = re.compile(r"(?i)\bArc\b|\bData Center GPU\b|\b(?:Flex|Max) \d{3,4}\b|\bBattlemage\b"
                            r"|\bAlchemist\b|\bDG2\b|\bCore(?:\(TM\)|™)? Ultra\b|\b(?:Meteor|Lunar|Arrow|"
                            r"Panther) ?Lake\b|\bPonte Vecchio\b|\b[AB][3-7]\d0M?\b")


def intel_igpu_only_reason(text: str) -> str | None:
    """The note when the only GPUs the text names are Intel integrated ones of the generations
    before Arc graphics (Iris Xe, UHD, HD Graphics): Intel's XPU software does not support them."""
    head = text[:1 << 20]
    m = _INTEL_IGPU.search(head)
    if m is None or _INTEL_XPU_GPU.search(head) is not None or _OTHER_GPU.search(head) is not None:
        return None
    return (f"The only Intel GPU the text names is an integrated one ({m.group(0)}): Intel's XPU "
            "software (IPEX, torch's XPU build, ITREX, ipex-llm) supports Arc, Core Ultra's Arc "
            "graphics and the Data Center GPUs, not this one.")


# torch's XPU allocator refusing one block: "XPU out of memory. Tried to allocate 4.00 GiB. GPU 0
# has a total capacity of 15.11 GiB of which 15.11 GiB is free. Of the allocated memory 0 bytes is
# allocated by PyTorch, and 0 bytes is reserved …" (torch 2.5+; "of which … is free" only where
# the device answers the query), and IPEX's older "(GPU 0; 15.56 GiB total capacity; 0 bytes
# already allocated; 0 bytes reserved in total by PyTorch)"
_SIZE = r"(\d{1,6}(?:\.\d{1,3})?) ?(bytes|KiB|MiB|GiB|TiB)"
_XPU_OOM_NEW = re.compile(r"XPU out of memory\. Tried to allocate " + _SIZE + r"\. GPU \d{1,2} has a total "
                          r"capacity of " + _SIZE + r"(?: of which " + _SIZE + r" is free)?\."
                          r"(?:[^\n]{0,300}?Of the allocated memory " + _SIZE + r" is allocated by "
                          r"PyTorch, and " + _SIZE + r" is reserved)?")
_XPU_OOM_OLD = re.compile(r"XPU out of memory\. Tried to allocate " + _SIZE + r" \(GPU \d{1,2}; "
                          + _SIZE + r" total capacity; " + _SIZE + r" already allocated; " + _SIZE
                          + r" reserved in total by PyTorch\)")
_UNITS = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
# an Intel GPU with the per-allocation limit: Arc A-series (Alchemist, DG2) and the Flex 140/170
# built on it; and those without it (Battlemage, Lunar Lake's Xe2, Data Center GPU Max), whose
# naming leaves the limit unsaid
_ARC_ALCHEMIST = re.compile(r"(?i)\bArc(?:\(TM\)|™)?\s?A[3-7][1-8]0M?\b|(?<![\w-])A(?:310|380|580|750|770)M?\b"
                            r"|\bAlchemist\b|\bDG2\b|\bFlex 1[47]0\b")
_INTEL_NO_4GB_LIMIT = re.compile(r"(?i)\bBattlemage\b|\bBMG\b|\bArc(?:\(TM\)|™)?\s?B\d{3}\b|(?<![\w-])B[57][78]0\b"
                                 r"|\bLunar ?Lake\b|\bLNL\b|\bData Center GPU Max\b|\bPonte Vecchio\b|\bPVC\b")


def _bytes(number: str, unit: str) -> float:
    return float(number) * _UNITS[unit]


def xpu_alloc_over_4gb_reason(text: str) -> str | None:
    """The note when torch's XPU allocator refused one block of 4 GiB or more on an Arc
    (Alchemist) GPU the text names while the device had room for it (stated free memory, else the
    total less what PyTorch holds, else the total): the per-allocation limit, not a full GPU."""
    head = text[:1 << 20]
    if "XPU out of memory" not in head or _ARC_ALCHEMIST.search(head) is None \
            or _INTEL_NO_4GB_LIMIT.search(head) is not None:
        return None
    for m in _XPU_OOM_NEW.finditer(head):
        asked, total = _bytes(m.group(1), m.group(2)), _bytes(m.group(3), m.group(4))
        if asked < 4 * _UNITS["GiB"]:
            continue
        if m.group(5):
            room = _bytes(m.group(5), m.group(6))
        elif m.group(7) and m.group(9):
            room = total - _bytes(m.group(7), m.group(8)) - _bytes(m.group(9), m.group(10))
        else:
            # only the total stated (a title, a cut line): on the Arc the text names, a block
            # the card could hold is refused by the limit whatever else is in use
            room = total
        if room >= asked:
            return (f"torch's XPU allocator refused one block of {m.group(1)} {m.group(2)} while the "
                    f"GPU had room for it (total {m.group(3)} {m.group(4)}): the 4 GB single-allocation "
                    "limit of an Arc (Alchemist) GPU.")
    for m in _XPU_OOM_OLD.finditer(head):
        asked = _bytes(m.group(1), m.group(2))
        room = _bytes(m.group(3), m.group(4)) - max(_bytes(m.group(5), m.group(6)),
                                                    _bytes(m.group(7), m.group(8)))
        if asked >= 4 * _UNITS["GiB"] and room >= asked:
            return (f"The XPU allocator refused one block of {m.group(1)} {m.group(2)} while the GPU "
                    f"had room for it (total {m.group(3)} {m.group(4)}): the 4 GB single-allocation "
                    "limit of an Arc (Alchemist) GPU.")
    return None


# JAX named by the text: the word (a title, "Jax==0.4.8", "pip install jaxlib"), its modules in
# frames (site-packages/jax/_src/…, jaxlib.xla_extension), its plugins
_JAX_NAMED = re.compile(r"(?i)(?<![\w.-])jax(?:lib)?(?![\w-])|\bjax_plugins\b|\bjax[-_]cuda\d{2}")
# TensorFlow named by the text: the word or its modules, Keras, a tf.* call. The XLA source
# paths of an older jaxlib's log ("external/org_tensorflow/tensorflow/…") are JAX's own build
# and are taken out first.
_TF_NAMED = re.compile(r"(?i)(?<![\w.-])(?:tensorflow|keras|tf-nightly)(?![\w-])|(?<![\w.])tf\.\w")
_JAX_TF_PATH = re.compile(r"(?i)\borg_tensorflow/tensorflow/")


def jax_not_tensorflow_reason(text: str) -> str | None:
    """The note when the text names JAX and never TensorFlow: an XLA message both print
    ("DNN library initialization failed") was then raised by JAX, whose fix is its own."""
    head = _JAX_TF_PATH.sub("", text[:1 << 20])
    m = _JAX_NAMED.search(head)
    if m is None or _TF_NAMED.search(head) is not None:
        return None
    return (f"The text names JAX ({m.group(0)}) and not TensorFlow: the XLA error came from "
            "jaxlib, whose CUDA libraries and plugin are JAX's own.")


# A framework that brings its own cuDNN says the one it loaded is not the one it was built with:
# torch (its wheels bundle cuDNN; from 1.13 its message says so) or JAX (its CUDA wheels pull
# nvidia-cudnn). TensorFlow before 2.14 loads the cuDNN the user installed, so its message alone
# says that install is old, not that a second one shadows it.
_BUNDLED_CUDNN_MSG = re.compile(r"PyTorch was compiled\s+against|PyTorch already comes bundled "
                                r"with cuDNN|Found cuDNN version \d+, but JAX was built against")
# torch's own sentence about the loader path (2.0's and 1.13's wordings)
_LD_CUDNN_SAID = re.compile(r"(?i)LD_LIBRARY_PATH contains (?:an )?incompatible version of cudnn"
                            r"|conflicting cuDNN in LD_LIBRARY_PATH")
# an LD_LIBRARY_PATH value the text shows: `echo $LD_LIBRARY_PATH` and the line it printed,
# `export LD_LIBRARY_PATH=…`, `LD_LIBRARY_PATH=…` or `LD_LIBRARY_PATH: …` on one line
_LD_VALUE = re.compile(r"echo \$\{?LD_LIBRARY_PATH\}?[ \t]*\r?\n[ \t>]{0,8}([^\n]{1,4000})"
                       r"|\bLD_LIBRARY_PATH[ \t]*[=:][ \t]*['\"]?([^\n]{1,4000})")


def cudnn_on_ld_library_path_reason(text: str) -> str | None:
    """The note when a framework that brings its own cuDNN reports another cuDNN than its build's
    and the text puts a cuDNN folder on LD_LIBRARY_PATH (or torch says that is where it came
    from): a second cuDNN install shadows the framework's own."""
    head = text[:1 << 20]
    framework = _BUNDLED_CUDNN_MSG.search(head)
    if framework is None:
        return None
    said = _LD_CUDNN_SAID.search(head)
    if said is not None:
        return (f"The text says so itself ({said.group(0)!r}): a cuDNN of another install is found "
                "through LD_LIBRARY_PATH before the one the framework brings.")
    for m in _LD_VALUE.finditer(head):
        for folder in (m.group(1) or m.group(2) or "").strip().strip("'\"").split(":"):
            low = folder.lower()
            # the framework's own wheel on the path (TensorFlow's and JAX's documented set-up)
            if "cudnn" not in low or "site-packages" in low or "cudnn_path" in low:
                continue
            return (f"The text puts a cuDNN folder on LD_LIBRARY_PATH ({folder.strip()}): the "
                    "loader finds that cuDNN before the one the framework brings.")
    return None


# The NVIDIA driver a text states: nvidia-smi's "Driver Version: 470.82.01" / "NVIDIA-SMI 470.82.01",
# collect_env's "Nvidia driver version: 410.104", prose "driver 470", "driver version is 460.32.03",
# Chinese "驱动版本 470.57". Three-digit release branches only (3xx-6xx): Windows' "31.0.15.3623"
# and CUDA's "found version 11040" are other numbers.
_DRIVER_STATED = re.compile(r"(?i)(?:\bdriver(?: version)?(?: is| was)?\s?[:=]?\s{0,3}|\bNVIDIA-SMI\s{1,4}"
                            r"|驱动(?:程序)?(?:版本)?(?:是|为)?\s?[:：]?\s{0,3})"
                            r"([3-6]\d{2}(?:\.\d{1,3}){0,2})(?![\d.]\d)")
# The CUDA a torch build was made with: "+cu121", collect_env's "CUDA used to build PyTorch: 12.1",
# conda's "pytorch-1.4.0-py3.7_cuda10.1.243_cudnn7.6.3_0" / "pytorch-cuda=12.1"
_TORCH_CUDA_STATED = re.compile(r"(?i)(?:CUDA used to build PyTorch:\s{0,3}(\d{1,2}\.\d)"
                                r"|\bpytorch-cuda\s?[=:]{1,2}\s?(\d{1,2}\.\d)\b"
                                r"|\bpytorch[- ]\d[\w.]{0,12}[-_ ]{1,20}py3\.?\d{1,2}_cuda(\d{1,2}\.\d))")


def _cuda_of_tag(tag: str) -> str | None:
    """"cu121" -> "12.1", "cu92" -> "9.2"; None for another tag."""
    digits = tag[2:] if tag.startswith("cu") else ""
    return f"{digits[:-1]}.{digits[-1]}" if digits.isdigit() and len(digits) >= 2 else None


def _driver_floor(cuda: str) -> tuple[int, ...] | None:
    """The oldest Linux driver a build of this CUDA runs on: the minor-version-compatibility
    floor of its major series from CUDA 11 on (525.60.13 for any 12.x), else the toolkit's own."""
    from envdoctor.engine.knowledge.cuda import min_driver, min_driver_compat
    floor = min_driver_compat(cuda, os="linux") or min_driver(cuda, os="linux")
    return _release(str(floor)) if floor is not None else None


# The text says CUDA works, or names CUDA's forward-compatibility package: a data-center GPU
# (A100, A800, H100...) runs a newer CUDA on an older driver through cuda-compat (NGC images,
# vLLM's), so an old driver beside a new build is no cause there.
_CUDA_WORKS = re.compile(r"(?i)(?:\bIs CUDA available:\s{0,3}(?:True|Yes)\b"
                         r"|\bis_available\(\)\W{0,12}True\b|\bcuda[-_ ]compat\b"
                         r"|\bforward[- ]compat)")


def driver_below_torch_cuda_reason(text: str) -> str | None:
    """The note when every NVIDIA driver the text states is older than the driver that the CUDA
    of every torch build it states needs: a CUDA torch that cannot start on this driver. None
    where the text says CUDA works or names forward compatibility (cuda-compat)."""
    head = text[:1 << 20]
    if _CUDA_WORKS.search(head):
        return None
    drivers = [(r, m.group(1)) for m in _DRIVER_STATED.finditer(head) if (r := _release(m.group(1)))]
    cudas = [c for c in (_cuda_of_tag(tag) for _, tag in stated_torch_builds(head)) if c]
    cudas += [next(g for g in m.groups() if g) for m in _TORCH_CUDA_STATED.finditer(head)]
    floors = [(c, f) for c in dict.fromkeys(cudas) if (f := _driver_floor(c)) is not None]
    if not drivers or not floors:
        return None
    newest, shown = max(drivers)
    cuda, floor = min(floors, key=lambda cf: cf[1])
    if newest >= floor:
        return None
    need = ".".join(str(x) for x in floor)
    return (f"The text states NVIDIA driver {shown} and a torch built with CUDA {cuda}, which needs "
            f"driver {need} or newer: torch cannot use the GPU on this driver.")


# a loaded libcuda.so the text shows under a toolkit's stubs folder: "/opt/cuda-12.1/lib64/
# stubs/libcuda.so: undefined symbol", "libcuda.so.1 => /usr/local/cuda/lib64/stubs/libcuda.so.1"
# (ldd); a linker flag (-L…/stubs, -lcuda) is a build step, not what ran, so it is not read
_STUB_LIBCUDA = re.compile(r"(?<![-\w])(?<!-L)(/[\w.+-]{1,80}(?:/[\w.+-]{1,80}){0,12}"
                           r"/stubs/libcuda\.so(?:\.1)?)(?::| |$)", re.MULTILINE)


def libcuda_stub_reason(text: str) -> str | None:
    """The note when the text shows libcuda.so resolved to a CUDA toolkit's stub library."""
    for m in _STUB_LIBCUDA.finditer(text[:1 << 20]):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if "-L" in text[line_start:m.start()][-3:]:
            continue
        return (f"The text shows libcuda.so loaded from {m.group(1)}: the CUDA toolkit's stub "
                "(a placeholder for linking), found before the driver's libcuda.so.1.")
    return None
TORCH_BUILDS = ("cpu",)
# a torch version with its local build tag as torch prints it: "torch-2.6.0+cpu" (Ultralytics'
# banner), "torch==2.1.0+cpu", "torch 1.6.0+cpu", "PyTorch version: 2.2.1+cpu", "'2.0.1+cpu'"
_TORCH_BUILD = re.compile(r"(?i)(?<![\w-])(?:py)?torch(?:[-= ]{1,2}|: ?| version:? ?)'?v?"
                          r"(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?:\.?(?:dev|a|b|rc)\d{0,10})?)"
                          r"\+(cpu|cu\d{2,3}|rocm[\d.]{1,10})\b")


def check_yields(raw: object, path: Path | str) -> tuple[dict[str, object], ...]:
    """Validate ``[[yields_to]]`` tables (the target code is checked once all rules load)."""
    fld = "yields_to"
    if not isinstance(raw, list) or not raw:
        raise RuleFileError(path, fld, "must be a list of tables")
    for i, table in enumerate(raw):
        where = f"{fld}[{i}]"
        if not isinstance(table, dict) or not isinstance(table.get("code"), str):
            raise RuleFileError(path, where, "needs code = the signature to yield to")
        extra = set(table) - YIELD_KEYS
        if extra:
            raise RuleFileError(path, where, f"unknown key(s) {sorted(extra)}")
        pair = table.get("versions_differ")
        if pair is not None and (not isinstance(pair, list) or len(pair) != 2
                                 or not all(p in _VERSIONED for p in pair)):
            raise RuleFileError(path, f"{where}.versions_differ",
                                f"must name two of {sorted(_VERSIONED)}")
        build = table.get("torch_build")
        if build is not None and build not in TORCH_BUILDS:
            raise RuleFileError(path, f"{where}.torch_build",
                                f"must be one of {list(TORCH_BUILDS)}")
        reading = table.get("stated")
        if reading is not None and reading not in STATED_READINGS:
            raise RuleFileError(path, f"{where}.stated",
                                f"must be one of {list(STATED_READINGS)}")
        if "gpu_below" in table and "gpu_at_least" in table:
            raise RuleFileError(path, where, "gpu_below and gpu_at_least exclude each other")
        floor = table.get("gpu_below", table.get("gpu_at_least"))
        if floor is not None and (not isinstance(floor, str) or not _CC_TEXT.fullmatch(floor)
                                  or not isinstance(table.get("package"), str)
                                  or not _PACKAGE.fullmatch(str(table.get("package")))):
            key = "gpu_below" if "gpu_below" in table else "gpu_at_least"
            raise RuleFileError(path, f"{where}.{key}",
                                "must be a compute capability (\"7.0\") with package = a name")
        if "arch_floors" in table and table["arch_floors"] is not True:
            raise RuleFileError(path, f"{where}.arch_floors", "must be true")
        if "wheel_python_differs" in table and table["wheel_python_differs"] is not True:
            raise RuleFileError(path, f"{where}.wheel_python_differs", "must be true")
        below = table.get("windows_build_below")
        if below is not None and (not isinstance(below, str) or not below.isdigit()):
            raise RuleFileError(path, f"{where}.windows_build_below", "must be a build (\"19044\")")
        if pair is None and floor is None and build is None and below is None \
                and reading is None and "wheel_python_differs" not in table \
                and "arch_floors" not in table \
                and not isinstance(table.get("raised_in"), str) \
                and not isinstance(table.get("frames_in"), str):
            raise RuleFileError(path, where, "needs versions_differ, raised_in, frames_in, "
                                "gpu_below, arch_floors, torch_build, wheel_python_differs, "
                                "windows_build_below or stated")
        if "evidence" in table:
            pattern = table["evidence"]
            if not isinstance(pattern, str) or not pattern:
                raise RuleFileError(path, f"{where}.evidence", "must be a regex")
            try:
                re.compile(pattern)
            except re.error as exc:
                raise RuleFileError(path, f"{where}.evidence", f"bad regex: {exc}") from None
            from envdoctor.engine import redos
            why = redos.problem(pattern)
            if why:
                raise RuleFileError(path, f"{where}.evidence",
                                    f"{pattern!r} can backtrack catastrophically: {why}")
        for key in ("raised_in", "frames_in"):
            if key in table and (not isinstance(table[key], str) or not table[key].strip()):
                raise RuleFileError(path, f"{where}.{key}", "must be a non-empty path part")
        types = table.get("exception_types", [])
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            raise RuleFileError(path, f"{where}.exception_types", "must be a list of names")
    return tuple(raw)


def _release(version: str) -> tuple[int, ...]:
    """(major, minor, micro) of a stated version; () when it is not numeric."""
    parts = version.split(".")[:3]
    return tuple(int(x) for x in parts) if all(x.isdigit() for x in parts) else ()


def stated_torch_builds(text: str) -> tuple[tuple[str, str], ...]:
    """(version, build tag) of every torch the text states with its local build tag, in order:
    ``(("2.6.0", "cpu"),)`` for a banner's ``torch-2.6.0+cpu``."""
    return tuple(dict.fromkeys((m.group(1), m.group(2).lower())
                               for m in _TORCH_BUILD.finditer(text[:1 << 20])))


_CC_TEXT = re.compile(r"\d{1,2}\.\d")
_PACKAGE = re.compile(r"[a-z][a-z0-9_-]{1,30}")


def _stated_ccs(facts: TextFacts) -> list[tuple[str, str]]:
    """(GPU, compute capability) for each GPU the text names that gpus.toml knows, else the
    capabilities it states outright ("compute capability 6.1", "sm_61")."""
    from envdoctor.explain.textfacts import stated_gpu_cc
    named = []
    for gpu in facts.gpus:
        cc = stated_gpu_cc(gpu)
        if cc is not None:
            named.append((gpu, cc))
    return named or [("GPU", cc) for cc in facts.compute_capabilities]


def _names_package(package: str, facts: TextFacts, text: str) -> bool:
    """The text names the package: a version of it, a frame under it, or the word itself
    (``-`` and ``_`` alike: flash-attn, flash_attn; vllm-openai, a vllm_1 service)."""
    if facts.version(package) is not None:
        return True
    paths = [f.path for f in facts.frames] + [p for e in facts.exceptions for p in e.stack]
    if any(f"/{package}/" in p.replace("\\", "/") for p in paths):
        return True
    word = "[-_]".join(re.escape(part) for part in re.split(r"[-_]", package))
    word = _PACKAGE_WORDS.get(package, word)
    return re.search(rf"(?i)(?<![a-z0-9]){word}(?![a-z0-9])", text[:1 << 20]) is not None


# how prose names a package besides its distribution name: "flash attention", "FlashAttention-2"
_PACKAGE_WORDS = {"flash_attn": r"flash[-_ ]?att(?:n|ention)(?:[-_ ]?v?[23])?"}


def _floor_reason(table: dict[str, object], facts: TextFacts, text: str) -> str | None:
    """The note when the text names the package and every GPU it states is below the floor."""
    package, floor = str(table.get("package", "")), str(table.get("gpu_below", ""))
    ccs = _stated_ccs(facts)
    if not ccs or not _names_package(package, facts, text):
        return None
    def below(cc: str) -> bool:
        return _release(cc) < _release(floor)
    if not all(below(cc) for _, cc in ccs):
        return None
    gpu, cc = ccs[0]
    return (f"The text names {package} and a {gpu} (compute capability {cc}): {package} needs "
            f"compute capability {floor} or newer.")


def _above_floor_reason(table: dict[str, object], facts: TextFacts, text: str) -> str | None:
    """The note when the text names the package and every GPU it states meets the floor: the
    floor message is not about this GPU's age, the build has no code for it."""
    package, floor = str(table.get("package", "")), str(table.get("gpu_at_least", ""))
    ccs = _stated_ccs(facts)
    if not ccs or not _names_package(package, facts, text):
        return None
    if not all(_release(cc) >= _release(floor) for _, cc in ccs):
        return None
    gpu, cc = ccs[0]
    return (f"The text names {package} and a {gpu} (compute capability {cc}), which meets "
            f"{package}'s floor of {floor}: the installed build has no kernels for this GPU.")


def _package_word(name: str) -> str:
    """A package name as a regex in which ``-``, ``_`` and a space are alike."""
    return "[-_ ]?".join(re.escape(part) for part in re.split(r"[-_ ]+", name) if part)


def arch_floors_reason(facts: TextFacts, text: str) -> str | None:
    """The note when the text names a package of arch_floors.toml (as its ``names`` say: a
    word anywhere, or for a package every torch install carries, a traceback frame under it)
    and every GPU it states is below that package's floor: the floor of the release the text
    states, else the lowest floor of any release."""
    from packaging.version import InvalidVersion, Version

    from envdoctor.engine.knowledge.gpu import arch_floor, lowest_floor, text_rows
    ccs = _stated_ccs(facts)
    if not ccs:
        return None
    head = text[:1 << 20]
    paths = [f.path.replace("\\", "/") for f in facts.frames] \
        + [p.replace("\\", "/") for e in facts.exceptions for p in e.stack]
    for row in text_rows():
        package = str(row["package"])
        names = [str(n) for n in row.get("names", ())] or [package]
        if row.get("text_named") == "frames":
            named = any(f"/{n.replace('-', '_')}/" in p for n in names for p in paths)
        else:
            named = any(re.search(rf"(?i)(?<![a-z0-9_.-]){_package_word(n)}(?![a-z0-9_])", head)
                        for n in names)
        if not named:
            continue
        floor = None
        for n in names:
            m = re.search(rf"(?i)(?<![a-z0-9_.-]){_package_word(n)}(?:==| |-|: ?| version:? ?)v?"
                          r"(\d{1,4}\.\d{1,4}(?:\.\d{1,4})?)(?![\d.])", head)
            if m is None:
                continue
            try:
                found = arch_floor(package, Version(m.group(1)))
            except InvalidVersion:
                found = None
            if found is not None:
                floor = (str(found["min_cc"]), found)
            break
        floor = floor or lowest_floor(package)
        if floor is None or not all(_release(cc) < _release(floor[0]) for _, cc in ccs):
            continue
        gpu, cc = ccs[0]
        return (f"The text names {package} and a {gpu} (compute capability {cc}): "
                f"{floor[1]['what']} need compute capability {floor[0]} or newer "
                f"(rules/matrices/arch_floors.toml). {floor[1]['fallback']}")
    return None


def yield_reason(table: dict[str, object], facts: TextFacts, text: str = "") -> str | None:
    """Why the facts say this table applies (a note), or None when they do not say so."""
    if table.get("arch_floors"):
        return arch_floors_reason(facts, text)
    reading = table.get("stated")
    if isinstance(reading, str):
        read = _stated_readings().get(reading)
        return read(text) if read is not None else None
    if table.get("wheel_python_differs"):
        from envdoctor.explain.wheeltags import wheel_python_reason
        return wheel_python_reason(text)
    build = table.get("torch_build")
    if isinstance(build, str):
        # a CUDA build stated beside it (an older run's banner) sees the GPU; the CPU one
        # is the build that cannot
        stated = [v for v, b in stated_torch_builds(text) if b == build]
        if not stated:
            return None
        return (f"The text states torch {stated[-1]}+{build}: a CPU-only build, so torch sees "
                "no GPU whatever the machine has.")
    below = table.get("windows_build_below")
    if isinstance(below, str):
        return _windows_build_reason(below, facts)
    if table.get("gpu_below") is not None:
        return _floor_reason(table, facts, text)
    if table.get("gpu_at_least") is not None:
        return _above_floor_reason(table, facts, text)
    pair = table.get("versions_differ")
    if isinstance(pair, list):
        a, b = (facts.version(str(n)) for n in pair)
        if a is None or b is None or _release(a) == _release(b) or _jaxlib_fits(pair, a, b):
            return None
        return f"The text states {pair[0]} {a} with {pair[1]} {b}: these releases differ."
    through_frames = table.get("frames_in")
    if isinstance(through_frames, str):
        return _frames_reason(through_frames, facts)
    where = str(table.get("raised_in", ""))
    types = table.get("exception_types") or []
    for exc in reversed(facts.exceptions):
        through = any(where in path.replace("\\", "/") for path in exc.stack)
        if where and through and (not isinstance(types, list) or not types
                                  or exc.type in types):
            return (f"The {exc.type} was raised through {where} (its code calls something the "
                    "installed versions do not have).")
    return None


def _jaxlib_fits(pair: list[Any], jax: str, jaxlib: str) -> bool:
    """Whether a stated jax/jaxlib pair of two releases is one that jax imports with: jaxlib
    between that jax's floor (jax.toml ``[[jaxlib_floor]]``) and jax itself (jax 0.3.17 with
    jaxlib 0.3.14). False for other pairs and when the floor of that jax is not known."""
    if [str(n) for n in pair] != ["jax", "jaxlib"]:
        return False
    from envdoctor.engine.knowledge.jax import jaxlib_in_window
    return jaxlib_in_window(jax, jaxlib)


def _windows_build_reason(below: str, facts: TextFacts) -> str | None:
    """The note when every Windows build the text states is older than ``below``."""
    builds: tuple[str, ...] = facts.versions.get("windows_build", ())
    if not builds or any(int(b) >= int(below) for b in builds):
        return None
    return (f"The text states Windows build {max(builds, key=int)}: WSL 2 reaches the GPU only "
            f"from build {below} on, so no Linux-side fix helps.")


def _frames_reason(part: str, facts: TextFacts) -> str | None:
    """The note when a frame of the text's tracebacks (cut ones too) lies under ``part``."""
    paths = [f.path for f in facts.frames] + [p for e in facts.exceptions for p in e.stack]
    for path in paths:
        plain = path.replace("\\", "/")
        if part in plain:
            return f"The traceback goes through {part} ({plain.rsplit('/', 1)[-1]})."
    return None


def _context_fix(target: Signature, text: str) -> str:
    """The fix of the target's first context that holds in the text and carries one (the
    platform's own fix: Docker Desktop on a Mac), or "" when none does. A yielded diagnosis was
    never scanned as the target, so its contexts are read here."""
    head = text[:1 << 20]
    for ctx in target.contexts:
        if not ctx.fix or not ctx.text or ctx.drop:
            continue
        if any(p.regex.search(head) for p in ctx.text) \
                and not any(p.regex.search(head) for p in ctx.absent):
            return ctx.fix
    return ""


def _evidence_holds(table: dict[str, object], d: Diagnosis) -> bool:
    """A table's ``evidence`` regex matches one of the diagnosis's own evidence lines (always
    True for a table without one)."""
    pattern = table.get("evidence")
    if not isinstance(pattern, str):
        return True
    regex = re.compile(pattern)
    return any(regex.search(e.text) for e in d.evidence)


def apply_yields(diagnoses: list[Diagnosis], facts: TextFacts,
                 signatures: Sequence[Signature], text: str = "") -> list[Diagnosis]:
    """Each diagnosis whose ``yields_to`` holds becomes the target signature's diagnosis
    (same evidence and rank, the reason as a note); a duplicate of the target is dropped."""
    out: list[Diagnosis] = []
    by_code = None
    for d in diagnoses:
        tables = d.signature.extra.get("yields_to", ()) if d.signature else ()
        carrier = bool(d.signature.extra.get("only_as_yield")) if d.signature else False
        for table in tables:
            if not _evidence_holds(table, d):
                continue
            reason = yield_reason(table, facts, text)
            if reason is None:
                continue
            by_code = by_code or {s.code: s for s in signatures}
            target = by_code.get(str(table["code"]))
            if target is None:
                continue
            d = replace(d, code=target.code, id=target.id, title=target.title,
                        category=target.category, why=target.why,
                        fix=_context_fix(target, text) or target.fix,
                        references=target.references, signature=target,
                        notes=d.notes + (reason,))
            carrier = False
            break
        if carrier:
            continue  # a carrier none of whose tables holds names no cause
        if all(o.code != d.code for o in out):
            out.append(d)
    return out
