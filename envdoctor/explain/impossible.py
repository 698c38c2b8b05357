"""The impossibility a text states without an error line: the GPU and the build it names cannot
go together, or the Python it names has no wheel of the framework it installs.

A title or a paragraph often says all there is ("RTX 5090 not detected by PyTorch
2.2.0+cu121", "Cuda13 images do not work with my V100, they are SM70", "Python 3.14 …
pip install tensorflow … no matching distribution"). Those facts feed the same tables the
checks read for a probed machine (gpus.toml, torch.toml, tensorflow.toml), marked in the note
as stated in the text. An answer is given only when the text is unambiguous: one GPU
architecture, and every build it states impossible for it (a build the GPU can run, or a second
GPU, is no answer); one Python version, one framework, and a statement that the install found
nothing. ds_report's own lines naming the torch that runs and another torch its DeepSpeed wheel
was compiled with are the same kind of statement (EBUILD005), and so is a question about the GPU under
WSL on a Windows build that predates GPU compute there (EWSL004), and so is a text that states
the glibc a wheel or binary needs and an older glibc on its system (ESYS004), and so is a CuPy text
that states the CUDA of the NVRTC compiling its kernels and a GPU (or an architecture named as the
machine's GPU) that CUDA cannot compile for (ECUDA018). Only texts that no signature
explained are read this way (``diagnose_text``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from envdoctor.explain.gpustated import BOARD as _BOARD
from envdoctor.explain.gpustated import SM_WORD as _SM_WORD
from envdoctor.explain.gpustated import boards as _boards
from envdoctor.explain.gpustated import gpu_cc as _gpu_cc
from envdoctor.explain.gpustated import ver_key
from envdoctor.explain.textfacts import stated_gpu_cc

if TYPE_CHECKING:
    from envdoctor.explain.textfacts import TextFacts

MAX_TEXT = 1 << 18  # a title and its paragraphs: a long log has its own error lines

# builds a text states: a wheel tag ("cu118", "+cu121"), a CUDA release named as a build
# ("CUDA 13 image", "cuda13 images", "CUDA 11.8 and the corresponding Torch", "CUDA 12.1,
# PyTorch cu118"); nvidia-smi's "CUDA Version:" is the driver's ceiling, never a build
_WHEEL_TAG = re.compile(r"(?i)(?<![\w.])\+?cu(1\d{2}|[89]\d|1[0-3]\d)(?![\w.])")
_CUDA_BUILD = re.compile(r"(?i)(?<![\w-])cuda[ -]?(1[0-3]|[89])(?:\.(\d))?"
                         r"(?![\d.]*\s*(?:\(|driver))(?=\+|\s*(?:images?|containers?|"
                         r"builds?|toolkit|wheels?|and the|,\s*py ?torch|$))")
# a torch wheel named by its CUDA tag alone: "torch (cu128)", "torch cu126", "the cu128 torch",
# "cu128 PyTorch": every release of that variant is meant
_TORCH_TAG = re.compile(r"(?i)(?<![\w-])(?:py)?torch(?![\w-])[ '’s(]{0,5}\(?\+?cu(1\d{2})(?![\w.])"
                        r"|(?<![\w.])cu(1\d{2})[ -](?:py)?torch(?![\w-])")
# an install that found nothing, in pip's, uv's or the reporter's words
_NOTHING_FOUND = re.compile(r"(?i)no matching distribution|could not find a version that "
                            r"satisfies|has no wheels? with a matching python|from versions: "
                            r"none|cannot be installed|can't be installed|can't install|unable to "
                            r"install|(?:fails?|failed|failing) to install|\binstall\w{0,3}"
                            r"[^\n]{0,40}?\b(?:fails|failed|failing|errors? out)\b|(?:does not|"
                            r"doesn't|don't|do not|won't|will not) (?:work|install|resolve)"
                            r"|doesn't have a source distribution or wheel")
_PYTHON = re.compile(r"(?i)\b(?:c)?python(?: version)?[\s:*=-]{0,6}(3)\.(\d{1,2})(?:\.\d{1,2})?"
                     r"\b|\bcp3(\d{1,2})\b")
# "those versions have wheels only for cp310, cp311, cp312": the tags the text says exist
_ONLY_WHEELS = re.compile(r"(?i)\b(?:wheels? (?:are |is )?(?:only )?(?:available |published |"
                          r"built )?(?:only )?for|only (?:have|has|ships?|provides?) wheels? "
                          r"for|wheels? only for)\b([^\n]{0,80})")
_CP_TAG = re.compile(r"(?i)\bcp3(\d{1,2})\b")
# a pin of the framework the text installs: torch==2.1.0, "torch >= 2.2.0, < 2.5"
_PIN = {name: re.compile(rf"(?i)(?<![\w-]){word}\s{{0,2}}([<>=!~]=?\s{{0,2}}\d[\d.*]{{0,10}}"
                         rf"(?:\s{{0,2}},\s{{0,2}}[<>=!~]=?\s{{0,2}}\d[\d.*]{{0,10}}){{0,2}})")
        for name, word in (("torch", "(?:py)?torch"), ("tensorflow", "tensorflow"))}
_FRAMEWORK = {"tensorflow": re.compile(r"(?i)(?<![\w-])tensorflow(?![\w-])"),
              "torch": re.compile(r"(?i)(?<![\w-])(?:py)?torch(?![\w-])")}


# a torch pre-release or source build as the text prints it ("1.10.0a0+git36449ea", NGC's
# "2.1.0a0+32f93b1", a nightly's "2.6.0.dev20241112"): its builder chose its own arch list
_TORCH_PRERELEASE = re.compile(r"(?i)(?<![\w.])\d{1,2}\.\d{1,3}\.\d{1,3}(?:a\d{1,3}|\.dev\d{1,8}|"
                               r"rc\d{1,2})(?:\+[\w.]{1,40})?|\+git[0-9a-f]{6,40}\b")


# a GPU named by its architecture only ("with Blackwell", "on a Hopper GPU", "my Ampere card"):
# the machine's GPU, never a sentence about the architecture ("Blackwell support", "since Ampere")
_ARCH_WORD = re.compile(r"(?i)(?:\b(?:on|with|using|for|my|our|an?|the)\s{1,3}(?:nvidia\s)?"
                        r"(Kepler|Maxwell|Pascal|Volta|Turing|Ampere|Ada|Hopper|Blackwell)"
                        r"(?!\s(?:support|architecture support|and\b))\b(?![-\w])"
                        r"|\b(Kepler|Maxwell|Pascal|Volta|Turing|Ampere|Hopper|Blackwell)"
                        r"\s(?:GPU|card|graphics card)s?\b)")
# CuPy in the text (its import, its frames, its packages): its kernels are compiled at run time
# by NVRTC, the CUDA the text states for it is the compiler's
_CUPY = re.compile(r"(?i)(?<![\w-])cupy(?=[\s/\\.,:_-]|$)")
# the CUDA of the NVRTC CuPy loads, as a text states it: the pip NVRTC/runtime wheel's version
# (nvidia-cuda-nvrtc-cu12==12.6.77), a cupy wheel for one CUDA release (cupy-cuda110, not the
# major-only cupy-cuda12x), cupy.show_config()'s "NVRTC Version : (11, 2)" and "CUDA Runtime
# Version : 11020", and CuPy's issue template's "CUDA: 11.2" / "- CUDA version 9.0" on a line of
# its own (never nvidia-smi's "CUDA Version:" beside "Driver Version:", the driver's ceiling)
_NVRTC_WHEEL = re.compile(r"(?i)(?<![\w-])nvidia-cuda-(?:nvrtc|runtime)-cu\d{2}\s{0,2}==\s{0,2}"
                          r"(\d{2})\.(\d)\.\d{1,3}")
_CUPY_WHEEL = re.compile(r"(?i)(?<![\w-])cupy-cuda(\d{1,2})(\d)(?![\dx\w])")
_NVRTC_TUPLE = re.compile(r"(?i)\bNVRTC Version\s{0,20}:\s{0,4}\((\d{1,2}),\s?(\d)\)")
_CUDA_RUNTIME_INT = re.compile(r"(?i)\bCUDA Runtime Version\s{0,20}:\s{0,4}(\d{1,2})0(\d)0\b")
_CUDA_KEYED = re.compile(r"(?im)^[ \t]{0,4}(?:[-*][ \t]{1,3})?CUDA(?:[ \t]{0,4}[:=]|[ \t]version"
                         r"[ \t]{0,4}[:=]?)[ \t]{0,4}v?(\d{1,2})\.(\d)(?:\.\d{1,3})?[ \t]*$")
# conda's CUDA for CuPy: "cudatoolkit=11.8.0", "cuda-version=12.6"
_CONDA_CUDA = re.compile(r"(?i)(?<![\w-])(?:cudatoolkit|cuda-version)\s{0,2}={1,2}\s{0,2}(\d{1,2})\.(\d)"
                         r"(?![\d])")


def _family_ccs(text: str) -> tuple[str, list[str]] | None:
    """(architecture, its GPUs' compute capabilities) when the text names the machine's GPU only
    by one architecture (the GPU table's rows of that name, Jetson and Tegra boards aside)."""
    words = {(m.group(1) or m.group(2)).capitalize() for m in _ARCH_WORD.finditer(text)}
    if len(words) != 1:
        return None
    word = next(iter(words))
    from envdoctor.engine.knowledge.impossible import architecture_ccs
    ccs = architecture_ccs(word)
    return (word, ccs) if ccs else None


def _nvrtc_cudas(text: str) -> set[str]:
    """The CUDA releases a CuPy text states for the NVRTC that compiles its kernels."""
    found = {f"{m.group(1)}.{m.group(2)}" for pat in (_NVRTC_WHEEL, _CUPY_WHEEL, _NVRTC_TUPLE,
                                                      _CUDA_RUNTIME_INT, _CONDA_CUDA)
             for m in pat.finditer(text)}
    found.update(f"{m.group(1)}.{m.group(2)}" for m in _CUDA_KEYED.finditer(text))
    return found


def nvrtc_reason(facts: TextFacts, text: str) -> tuple[str, str] | None:
    """(ECUDA018, note) when a CuPy text states the CUDA its NVRTC is of, and the one GPU (or
    GPU architecture) it names is one that CUDA cannot compile for: too new for it (Blackwell
    under CUDA 12.6) or dropped by it (a Kepler sm_30 board under CUDA 11.x)."""
    if not _CUPY.search(text):
        return None
    cudas = _nvrtc_cudas(text)
    if not cudas:
        return None
    gpu_cc = _gpu_cc(facts, text)
    from envdoctor.engine.knowledge.impossible import cuda_build_lacks
    if gpu_cc is not None:
        gpu, cc = gpu_cc
        if not all(cuda_build_lacks(c, cc) for c in cudas):
            return None
        what = f"a {gpu} (compute capability {cc})"
    else:
        if facts.gpus or facts.compute_capabilities or _boards(text):
            return None  # a GPU it names that the table does not place: no guess from a word
        family = _family_ccs(text)
        from envdoctor.engine.knowledge.impossible import cuda_builds_for_none
        if family is None or not all(cuda_builds_for_none(c, family[1]) for c in cudas):
            return None
        what = f"a {family[0]} GPU (compute capability {', '.join(sorted(set(family[1]), key=ver_key))})"
    stated = ", ".join(f"CUDA {c}" for c in sorted(cudas, key=ver_key))
    return "ECUDA018", (f"The text states CuPy with the NVRTC of {stated} and {what}: that "
                        "CUDA's runtime compiler cannot generate code for this GPU's architecture.")


def _cuda_builds(text: str) -> set[str]:
    builds = {f"{t[:-1]}.{t[-1]}" for t in (m.group(1) for m in _WHEEL_TAG.finditer(text))}
    builds.update(f"{m.group(1)}.{m.group(2) or 0}" for m in _CUDA_BUILD.finditer(text))
    return builds


# PaddlePaddle's GPU wheels are built for one CUDA and load that CUDA's libraries: its own notice
# ("Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.1, Runtime API
# Version: 10.2", PaddlePaddle/PaddleNLP#348) and an environment block's CUDA line of its own
# ("cuda 10.2", "CUDA：11.1") state the build's CUDA in a Paddle text that names no torch
_PADDLE = re.compile(r"(?i)(?<![\w-])(?:paddle(?:paddle)?(?:-gpu)?|飞桨)(?![\w-])")
_TORCH_WORD = re.compile(r"(?i)(?<![\w-])(?:py)?torch(?![\w-])")
_RUNTIME_API = re.compile(r"\bRuntime API Version: (\d{1,2})\.(\d)\b")
_CUDA_LINE = re.compile(r"(?im)^[ \t]{0,4}(?:[-*][ \t]{1,3})?CUDA(?:[ \t]{0,4}[:=：]|[ \t]version"
                        r"[ \t]{0,4}[:=：]?|[ \t])[ \t]{0,4}v?(\d{1,2})\.(\d)(?:\.\d{1,3})?[ \t]*$")


def _paddle_cudas(text: str) -> set[str]:
    if not _PADDLE.search(text) or _TORCH_WORD.search(text):
        return set()
    # Paddle's own runtime line outranks an environment block's CUDA (the system toolkit)
    said = {f"{m.group(1)}.{m.group(2)}" for m in _RUNTIME_API.finditer(text)}
    return said or {f"{m.group(1)}.{m.group(2)}" for m in _CUDA_LINE.finditer(text)}


def gpu_build_reason(facts: TextFacts, text: str) -> tuple[str, str] | None:
    """(code, note) when the one GPU the text names cannot run any build it states."""
    gpu_cc = _gpu_cc(facts, text)
    if gpu_cc is None:
        return None
    gpu, cc = gpu_cc
    from envdoctor.engine.knowledge.impossible import cuda_build_lacks, torch_build_lacks
    from envdoctor.explain.stated import stated_torch_builds
    tagged = [(v, b[2:]) for v, b in stated_torch_builds(text)
              if b.startswith("cu") and len(b) >= 5]  # "+cu12" in a title names no wheel
    tagged = [(v, f"{b[:-1]}.{b[-1]}") for v, b in tagged]
    cudas = (_cuda_builds(text) | _paddle_cudas(text)) - {c for _, c in tagged}
    torch = facts.version("torch")
    official = _TORCH_PRERELEASE.search(text[:1 << 20]) is None
    verdicts: list[bool | None] = [torch_build_lacks(v, c, cc, official) for v, c in tagged]
    variants = [] if tagged or torch is not None else sorted(
        {f"{t[:-1]}.{t[-1]}" for m in _TORCH_TAG.finditer(text) for t in m.groups() if t})
    if variants:  # "torch (cu128)": the variant's releases, not the CUDA toolkit's reach
        from envdoctor.engine.knowledge.impossible import torch_variant_lacks
        cudas -= set(variants)
        verdicts += [torch_variant_lacks(c, cc) for c in variants]
    if not tagged and torch is not None and not cudas:
        verdicts.append(torch_build_lacks(torch, None, cc, official))
    verdicts += [cuda_build_lacks(c, cc) for c in sorted(cudas)]
    tf_builds = _tensorflow_builds(facts)
    verdicts += [cuda_build_lacks(c, cc) for _, c in tf_builds]
    if not verdicts or not all(verdicts):
        return None
    builds = [f"torch {v}+cu{c.replace('.', '')}" for v, c in tagged] + \
        [f"torch's cu{c.replace('.', '')} wheels" for c in variants] + \
        ([f"torch {torch}"] if not tagged and torch is not None and not cudas else []) + \
        [f"CUDA {c}" for c in sorted(cudas)] + \
        [f"TensorFlow {v} (built with CUDA {c})" for v, c in tf_builds]
    code = "ECUDA004" if tagged or variants or torch is not None else "ECUDA003"
    return code, (f"The text states a {gpu} (compute capability {cc}) and {', '.join(builds)}: "
                  f"no such build carries code for compute capability {cc}.")


def _tensorflow_builds(facts: TextFacts) -> list[tuple[str, str]]:
    """(version, CUDA) of each TensorFlow release the text states, its CUDA from the tested
    build configurations (tensorflow.toml): the CUDA its kernels were compiled with. A release
    the table does not know makes the list empty (no verdict rests on a guess)."""
    from envdoctor.engine.knowledge.impossible import tf_release_cuda
    out = []
    for v in facts.versions.get("tensorflow", ()):
        cuda = tf_release_cuda(v)
        if cuda is None:
            return []
        out.append((v, cuda))
    return out


def _listed_wheels(text: str) -> set[str]:
    """The Pythons the text says wheels exist only for ("wheels only for cp310, cp311")."""
    found: set[str] = set()
    for m in _ONLY_WHEELS.finditer(text):
        if "only" in m.group(0).lower():
            found.update(f"3.{t.group(1)}" for t in _CP_TAG.finditer(m.group(1)))
    return found


def _pin(text: str, framework: str) -> str | None:
    """The one version pin the text states for the framework, spaces removed (None: none or two)."""
    pins = {re.sub(r"\s", "", m.group(1)).rstrip(",.") for m in _PIN[framework].finditer(text)}
    if len(pins) > 1:
        # a resolver's log restates the pin as a range ("torch==2.3.0" typed, "Adding direct
        # dependency: torch>=2.3.0, <2.3.0+" in uv's debug log): the one exact pin is the ask
        exact = {p for p in pins if p.startswith("==") and "," not in p}
        return next(iter(exact)) if len(exact) == 1 else None
    return next(iter(pins)) if pins else None


def python_wheel_reason(text: str) -> tuple[str, str] | None:
    """(code, note) when the one Python the text states is outside every release of the one
    framework it installs (every release its pin admits), or outside the wheel tags the text
    says exist, and the text says the install found nothing or does not work."""
    if not _NOTHING_FOUND.search(text):
        return None
    listed = _listed_wheels(text)
    prose = {f"3.{m.group(2)}" for m in _PYTHON.finditer(text) if m.group(2)}
    pythons = prose if listed and prose else \
        {f"3.{m.group(2) or m.group(3)}" for m in _PYTHON.finditer(text)}
    frameworks = [name for name, pat in _FRAMEWORK.items() if pat.search(text)]
    if len(pythons) != 1 or len(frameworks) != 1:
        return None
    python, framework = next(iter(pythons)), frameworks[0]
    ordered = sorted(listed, key=ver_key)  # "cp38-cp312", "cp310 to cp312": a span
    if listed and not ver_key(ordered[0]) <= ver_key(python) <= ver_key(ordered[-1]):
        tags = ", ".join(f"cp{p.replace('.', '')}" for p in ordered)
        return "EPIP001", (f"The text states Python {python} and that the {framework} "
                           f"wheels it asks for exist only for {tags}.")
    pin = _pin(text, framework)
    from envdoctor.engine.knowledge.impossible import python_outside_releases
    if not python_outside_releases(framework, python, pin):
        return None
    which = f"release admitted by {framework}{pin}" if pin else "release"
    return "EPIP001", (f"The text states Python {python} and {framework}: no {framework} "
                       f"{which} in envdoctor's table has wheels for Python {python}.")


# ds_report's two lines: the torch that runs and the torch DeepSpeed's wheel was compiled with
# ("torch version .... 1.13.1+cu117", "deepspeed wheel compiled w. ...... torch 1.9, cuda 11.1");
# "torch 0.0" is a wheel built with no torch at hand (no ops prebuilt), which says nothing
_DS_TORCH = re.compile(r"(?i)\btorch version \.{3,}\s{0,4}(\d{1,2})\.(\d{1,3})")
_DS_WHEEL = re.compile(r"(?i)\bdeepspeed wheel compiled w\. \.{3,}\s{0,4}torch "
                       r"(\d{1,2})\.(\d{1,3})")


def deepspeed_wheel_reason(text: str) -> tuple[str, str] | None:
    """(code, note) when ds_report states a torch release other than the one its wheel was
    compiled with (each stated once)."""
    running = {m.groups() for m in _DS_TORCH.finditer(text)}
    built = {m.groups() for m in _DS_WHEEL.finditer(text)} - {("0", "0")}
    if len(running) != 1 or len(built) != 1 or running == built:
        return None
    have, want = (".".join(next(iter(v))) for v in (running, built))
    return "EBUILD005", (f"ds_report states torch {have} running and a DeepSpeed wheel compiled "
                         f"with torch {want}: its prebuilt ops are for the other torch.")


# the glibc a binary needs, in words: "the glibc version of this wheel is 2.23", "the wheels
# are for 2.35+", "requires glibc 2.28", "built against glibc 2.27", a manylinux_2_X tag
_GLIBC_NEED = re.compile(
    r"(?i)\bglibc\b[^\n]{0,20}?\b(?:of|for|in|by|used by|needed by|required by) (?:this|the|"
    r"these|your|its|that) (?:wheels?|binar(?:y|ies)|packages?|builds?|releases?|librar(?:y|ies))"
    r"\b[^\n]{0,20}?\b2\.(\d{1,2})\b"
    r"|\b(?:wheels?|binar(?:y|ies)|builds?) (?:(?:are|is) )?(?:only )?(?:built )?for (?:glibc ?)?"
    r"2\.(\d{1,2}) ?(?:\+|or (?:newer|later|higher|above))"
    r"|\b(?:requires?|needs?|built (?:against|with|on|for)|linked against)\s(?:a\s|the\s)?"
    r"(?:newer\s|higher\s)?glibc\s?(?:version\s)?(?:of\s|>=?\s?)?(?:at least\s)?2\.(\d{1,2})\b"
    r"|\bmanylinux_2_(\d{1,2})(?!\d)")
# the glibc the system has: "CentOS with glibc 2.17", "we have glibc 2.28", "my GLIBC version
# (2.17)", ldd's banner
_GLIBC_HAVE = re.compile(
    r"(?i)\b(?:CentOS|RHEL|Red Hat|Rocky|Alma ?Linux|Ubuntu|Debian|Oracle Linux|SUSE|system|"
    r"server|cluster|machine|host|we have|I have|my|our)\b[^\n]{0,30}?\bglibc\s?(?:version\s)?"
    r"(?:is\s|of\s)?(?:only\s)?\(?2\.(\d{1,2})\b"
    r"|\bldd \([^)\n]{1,30}\) 2\.(\d{1,2})\b")


def _glibc_minors(pattern: re.Pattern[str], text: str) -> set[int]:
    return {int(next(g for g in m.groups() if g is not None)) for m in pattern.finditer(text)}


def glibc_reason(text: str) -> tuple[str, str] | None:
    """(code, note) when the text states the glibc a binary needs and a system glibc older than
    every one of those (each read from the text's own words)."""
    if "glibc" not in text.lower():
        return None
    need, have = _glibc_minors(_GLIBC_NEED, text), _glibc_minors(_GLIBC_HAVE, text)
    if not need or not have or min(need) <= max(have):
        return None
    return "ESYS004", (f"The text states a binary built for glibc 2.{min(need)} and a system "
                       f"with glibc 2.{max(have)}: glibc is older than the binary needs.")


# a question or report about whether the package runs on the GPU: "does flash attention
# support the RTX 8000", "vLLM fails on my P100", "是否支持"
_RUNS_ON = re.compile(r"(?i)\bsupport|\bcompatib|\b(?:not|n't|never) (?:work|run)|\berror|\bfail"
                      r"|支持|兼容|报错|不能用|无法")
# FlashAttention 1.x runs on Turing (sm_75): a text that asks about it is not below a floor
_FLASH_V1 = re.compile(r"(?i)flash[-_ ]?att(?:n|ention)[-_ ]?(?:v|version ?|==)?1(?:\.\d|\b|\.x)")


def floor_reason(facts: TextFacts, text: str, signatures: Any) -> tuple[str, str] | None:
    """(code, note) when the text names a package with an architecture floor (the
    ``package``/``gpu_below`` of a signature's yields_to table), every GPU it states is below
    that floor, and it asks or says whether the package runs there."""
    if not _RUNS_ON.search(text):
        return None
    from envdoctor.explain.stated import yield_reason
    seen = set()
    for sig in signatures or ():
        for table in sig.extra.get("yields_to", ()):
            key = (table.get("package"), table.get("gpu_below"))
            if key[1] is None or key in seen:
                continue
            seen.add(key)
            if key[0] == "flash_attn" and _FLASH_V1.search(text) and \
                    all(ver_key(cc) >= (7, 5) for cc in _ccs(facts)):
                continue
            reason = yield_reason(table, facts, text)
            if reason is not None:
                return str(table["code"]), reason
    # any other package of rules/matrices/arch_floors.toml (sglang, RAPIDS, bitsandbytes …)
    from envdoctor.explain.stated import arch_floors_reason
    reason = arch_floors_reason(facts, text)
    if reason is not None and not (_FLASH_V1.search(text) and "flash" in reason[:40].lower()):
        return "ECUDA016", reason
    return None


def _ccs(facts: TextFacts) -> list[str]:
    return [cc for cc in (stated_gpu_cc(g) for g in facts.gpus) if cc is not None] or \
        list(facts.compute_capabilities)


# a text about GPU compute under WSL: "WSL2", "WSL 2", the WSL kernel's name, its driver folder
_WSL = re.compile(r"(?i)\bwsl ?2?\b|-microsoft-standard\b|/usr/lib/wsl/")
_GPU_WORD = re.compile(r"(?i)\b(?:cuda|gpus?|nvidia(?:-smi)?|tensorflow-gpu|directml)\b")
WSL_GPU_BUILD = 19044  # Windows 10 21H2: the first generally released build with GPU compute


def wsl_build_reason(facts: TextFacts, text: str) -> tuple[str, str] | None:
    """(code, note) when the text is about the GPU under WSL and every Windows build it states
    predates GPU compute in WSL (a release name reads as its first build: 20H2 -> 19042)."""
    builds = [int(b) for b in facts.versions.get("windows_build", ())]
    if not builds or max(builds) >= WSL_GPU_BUILD or min(builds) < 10240:
        return None
    if not (_WSL.search(text) and _GPU_WORD.search(text)):
        return None
    return "EWSL004", (f"The text states WSL and Windows build {max(builds)}: GPU compute in WSL "
                       f"needs Windows 10 build {WSL_GPU_BUILD} (21H2) or later, or Windows 11 "
                       "(earlier builds had it only as an Insider preview).")


# TensorFlow after 2.10 on native Windows (the WIN001 check): the text names native Windows,
# TensorFlow and a release after 2.10 ("2.12.0", "tensorflow==2.16", "after 2.10", "2.11+"), and
# says TensorFlow finds no GPU, in any of the languages reporters write. TensorFlow's install
# page: "TensorFlow 2.10 was the last TensorFlow release that supported GPU on native-Windows"
# (https://www.tensorflow.org/install/pip#windows-native). A text about WSL, Linux, Docker,
# Colab, macOS or the DirectML plugin, or one with a traceback (an error of its own), is no answer.
_WINDOWS = re.compile(r"(?i)\bwin(?:dows)?[ -]?(?:10|11|7|8(?:\.1)?|server)\b|\bwin(?:32|64)\b"
                      r"|\bnative[ -]windows\b|\bwindows[ -]native\b|\bon windows\b"
                      r"|(?<![\w])[A-Z]:\\\\(?:Users|Program|ProgramData|anaconda\d?|miniconda\d?|Python\d*)\\\\")
_NOT_NATIVE = re.compile(r"(?i)\bwsl ?2?\b|\bubuntu\b|\blinux\b|\bdocker\b|\bcolab\b|\bmac ?os\b"
                         r"|\bdirectml\b|-microsoft-standard\b|\bdebian\b|\bcentos\b|\bkaggle\b")
_TF_AFTER_210 = re.compile(r"(?i)\b(?:after|beyond|newer than|later than|higher than|greater than|"
                           r"above|nach|après|despu[eé]s de|depois d[ao]|после)\s{1,2}(?:tf|tensorflow)?"
                           r"\s?(?:version\s)?2\.10\b(?![.\d])|(?<![\w.])2\.1[1-9]\+|>\s?2\.10\b(?![.\d])")
# a TensorFlow release as a text states it: "TensorFlow 2.16.2", "tf 2.16", "tensorflow==2.12.0",
# the issue template's "### TensorFlow version" followed by "v2.12.0-rc1-12-g0db597d0d75 2.12.0"
_TF_RELEASE = re.compile(r"(?i)(?<![\w-])(?:tensorflow|tf)(?:[ _-]?version\??)?[\s#:*=>]{0,12}"
                         r"(?:v\d[\w.-]{0,40}\s{1,3})?v?(2\.\d{1,2}(?:\.\d{1,2})?)(?![\d.]*\+)\b")
_TF_NO_GPU = re.compile(
    r"(?i)\b(?:no|not|can'?t|cannot|couldn'?t|could not|doesn'?t|does not|don'?t|unable to|fails? to)"
    r"\b[^\n.]{0,30}\b(?:gpus?|cuda)\b|\b(?:gpus?|cuda)\b[^\n.]{0,30}\b(?:not (?:found|detected|"
    r"recogni[sz]ed|available|used|visible|working)|is not|isn'?t|NOT AVAILABLE)\b"
    r"|\bGPU Available:?\s*\[\]|Num GPUs Available:?\s*0\b"
    r"|\bGPU\b[^\n]{0,30}\b(?:nicht (?:erkannt|gefunden|verfügbar|genutzt|benutzt)|wird nicht)"
    r"|\bkeine (?:GPU|Grafikkarte)\b|\bne (?:détecte|trouve|reconnaît|voit|utilise) pas (?:le |la |ma |mon )?(?:GPU|carte)"
    r"|\bno (?:detecta|reconoce|encuentra|usa|utiliza|aparece)\b[^\n]{0,20}\b(?:GPU|gr[aá]fica)"
    r"|\bn[aã]o (?:detecta|reconhece|encontra|usa)\b[^\n]{0,20}\bGPU"
    r"|не (?:видит|находит|использует|обнаруживает)[^\n]{0,20}(?:GPU|видеокарт)"
    r"|GPU[^\n]{0,10}(?:が認識され|が見つから|を認識し|が使え)|GPU(?:를|가) (?:인식|찾)"
    r"|(?:检测不到|找不到|识别不到|认不到|无法使用|用不了|不能使用|没有使用|调用不了|无法调用)[^\n]{0,6}(?:GPU|显卡)")


def _tf_after_210(facts: TextFacts, text: str) -> str | None:
    """The TensorFlow release after 2.10 the text states (the highest), "after 2.10" when it
    says so in words, or None."""
    def key(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", v)[:3])
    stated = {*facts.versions.get("tensorflow", ()), *_TF_RELEASE.findall(text)}
    after = [v for v in stated if key(v)[:1] == (2,) and len(key(v)) > 1 and key(v)[1] > 10]
    if after:
        return max(after, key=key)
    return "after 2.10" if _TF_AFTER_210.search(text) else None


def tf_windows_reason(facts: TextFacts, text: str) -> tuple[str, str] | None:
    """(WIN001, note) when the text states TensorFlow after 2.10 on native Windows finding no
    GPU."""
    if not (_FRAMEWORK["tensorflow"].search(text) and _WINDOWS.search(text)
            and _TF_NO_GPU.search(text)) or _NOT_NATIVE.search(text) \
            or "Traceback (most recent call last)" in text:
        return None
    release = _tf_after_210(facts, text)
    if release is None:
        return None
    return "WIN001", (f"The text states TensorFlow {release} on native Windows and TensorFlow "
                      "finding no GPU: 2.10 was the last release with GPU support there.")


def _check_diagnosis(code: str, note: str, release: str) -> Any:
    """The diagnosis of a check the text's facts make fire (its own title, why and fix)."""
    from envdoctor.engine.checks import evaluate_one, example_facts, load_checks
    from envdoctor.engine.expr import BUILTINS
    from envdoctor.engine.vocabulary import names_for
    check = next((c for c in load_checks() if c.code == code), None)
    if check is None:
        return None
    version = release if release[:1].isdigit() else "2.11"
    facts = example_facts({"host": {"os": "Windows"},
                           "frameworks": {"tensorflow": {"version": version}}})
    result = evaluate_one(check, {**BUILTINS, **names_for(facts, "gpu")}, "gpu", merged=True)
    if result.finding is None:
        return None
    found = result.finding
    title = found.title if release[:1].isdigit() else \
        found.title.replace(f"TensorFlow {version} ", f"TensorFlow {release} ", 1)
    from envdoctor.explain.rank import Diagnosis
    return Diagnosis(code=found.code, id=found.id, title=title, category="environment",
                     confidence="medium", evidence=(), why=found.why.strip(),
                     fix=found.fix.strip(), references=tuple(found.references), notes=(note,))


def stated_impossibility(text: str, signatures: Any = None) -> tuple[str, str] | None:
    """(signature code, note) for the impossibility the text states, or None."""
    text = text[:MAX_TEXT]
    from envdoctor.explain.textfacts import text_facts
    facts = text_facts(text)
    return nvrtc_reason(facts, text) or gpu_build_reason(facts, text) or python_wheel_reason(text) or \
        deepspeed_wheel_reason(text) or floor_reason(facts, text, signatures) or \
        wsl_build_reason(facts, text) or glibc_reason(text) or tf_windows_reason(facts, text)


def diagnosis_for(text: str, signatures: Any) -> Any:
    """The diagnosis of the stated impossibility (the signature's own title, why and fix, with
    the stated facts as a note), or None."""
    found = stated_impossibility(text, signatures)
    if found is None:
        return None
    code, note = found
    if code == "WIN001":  # a check's cause: its diagnosis comes from the check itself
        from envdoctor.explain.textfacts import text_facts
        release = _tf_after_210(text_facts(text[:MAX_TEXT]), text[:MAX_TEXT]) or "after 2.10"
        return _check_diagnosis(code, note, release)
    sig = next((s for s in signatures if s.code == code), None)
    if sig is None:
        return None
    from envdoctor.explain.rank import Diagnosis
    return Diagnosis(code=sig.code, id=sig.id, title=sig.title, category=sig.category,
                     confidence="medium", evidence=(), why=sig.why, fix=sig.fix,
                     references=tuple(sig.references), notes=(note,), signature=sig)


PATTERNS = (_BOARD, _ARCH_WORD, _CUPY, _NVRTC_WHEEL, _CUPY_WHEEL, _NVRTC_TUPLE, _CUDA_RUNTIME_INT,
            _CUDA_KEYED, _CONDA_CUDA, _PADDLE, _TORCH_WORD, _RUNTIME_API, _CUDA_LINE, _TORCH_TAG, _TORCH_PRERELEASE, _RUNS_ON, _FLASH_V1, _WHEEL_TAG, _CUDA_BUILD, _SM_WORD, _NOTHING_FOUND, _PYTHON, _ONLY_WHEELS, _CP_TAG,
            *_FRAMEWORK.values(), *_PIN.values(), _DS_TORCH, _DS_WHEEL, _WSL, _GPU_WORD, _GLIBC_NEED, _GLIBC_HAVE,
            _WINDOWS, _NOT_NATIVE, _TF_AFTER_210, _TF_RELEASE, _TF_NO_GPU)
