"""What a text states about its AMD GPUs and ROCm, and the two readings built on it.

A ROCm crash often prints nothing but "Segmentation fault" (TensorFlow-ROCm on an RX 5600 XT,
a torch wheel on an RX 6700 XT): the cause is in the facts around it, the GPU and the ROCm
release the text states. ``unlisted_reason`` names it when every AMD GPU the text states is one
AMD's list for the stated release does not name (rules/matrices/rocm.toml: the gfx table from
5.0, the README lists before it), and ``override_reason`` when HSA_OVERRIDE_GFX_VERSION names
another target than the one the GPU needs. Both are read only through a signature that matched
a concrete line (a crash, an override value): a report that states a GPU and a release and no
failure says nothing here (a distribution's or a source build of ROCm carries targets AMD's own
lists lack: a healthy Gentoo RX 5700 XT stays healthy).

GPUs are read by structure: a gfx target where a tool prints the device's (``Name: gfx1010``,
``ISA: gfx803``, ``gpu_type=gfx1031``, ``(gfx1100)``), not in a list of what a build supports,
and product names (``RX 5600XT``, ``7900 XTX``, ``MI210``) through the matrix's names. The
release: ``ROCm version: 4.0.0``, ``ROCm 5.5.0``, ``/opt/rocm-5.4.0``, a torch ``+rocm5.7`` or the
wheel index it comes from (``download.pytorch.org/whl/rocm5.1.1``)
(the wheel's own ROCm wins), ``ROCM used to build PyTorch: 6.3``, an issue form's "rocm Version"
heading with the version under it. Two different releases and no torch wheel: undecided.

Every pattern is linear (bounded repeats, no nested quantifiers); a text is read at most
``MAX_TEXT`` characters deep.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from packaging.version import Version

MAX_TEXT = 1 << 20

_GFX = re.compile(r"(?<![\w-])gfx(\d{3,4}[a-f]?)(?::[a-z]{1,8}[+-])*(?![\w.])")
# where a tool prints the device's own target (rocminfo, TF, ollama, hipinfo, rocBLAS)
_GFX_OWN = re.compile(r"(?i)(?:\bName:\s{0,40}|\bISA:?\s{0,4}|amdhsa--|\bgpu_type=|\bgfx="
                      r"|GPU arch ?: ?|gcnArchName:\s{0,4}|AMDGPU (?:version|ISA)\s?:?\s?"
                      r"|\(|\bcompute=)gfx(\d{3,4}[a-f]?)")
# a line that lists what a build or a tool supports, not the device
_LIST_LINE = re.compile(r"(?i)supported[ _]types|supported AMDGPU versions|Supported "
                        r"architectures|AMDGPU_TARGETS|offload-arch|PYTORCH_ROCM_ARCH|List of "
                        r"available|HSA_OVERRIDE_GFX_VERSION|minimum required")
_RX = re.compile(r"(?i)(?<![\w.])(?:radeon(?:\(tm\)|\u2122)?\s{1,3})?RX\s?(\d{3,4})"
                 r"(?:\s?(XTX|XT|GRE))?(?![\w])")
_BARE = re.compile(r"(?<![\w./-])(\d{4})\s?(XTX|XT|GRE)(?![\w])")
_VEGA = re.compile(r"(?i)\bRX\s?Vega\s?(56|64)\b")
_VII = re.compile(r"(?i)\bradeon\s?(?:pro\s)?VII\b")
# an APU's integrated GPU as lspci names it ("[AMD/ATI] Barcelo (rev c1)")
_APU = re.compile(r"(?i)(?:\[AMD/ATI\]|\bAMD)\s{1,3}(Renoir|Lucienne|Cezanne|Barcelo)\b")
# an APU's integrated Radeon as AMD names it ("Radeon 780M", "AMD Radeon(TM) 890M Graphics",
# "Radeon 8060S"); names the GPU matrix does not know (680M) are skipped
_IGPU = re.compile(r"(?i)\bRadeon(?:\(tm\)|\u2122)?\s{1,3}(\d{3}M|\d{4}S)\b")
# a Radeon Pro board ("Radeon PRO W6600", "Radeon (TM) Pro WX 7100", "Radeon Pro 5600M"): read
# only where no tool printed the device's target (an issue form's GPU field can name another
# board than the rocminfo pasted under it)
_PRO = re.compile(r"(?i)\bRadeon(?:\s?\(tm\)|\u2122)?\s{1,3}Pro\s{1,3}(W\d{4}|WX\s?\d{4}|\d{4}M|V\d{3})(?![\w])")
# a Ryzen APU named by its model number ("Ryzen 9 5900HX", "5900HX iGPU", "Ryzen 5 5600G"): its
# integrated GPU, read only where the text speaks of that GPU (_IGPU_WORD) and the line names
# Ryzen or the iGPU and no Intel part
# a bare workstation number ("W6600 (Navi 23)", "W6800 and ROCm"), on a line that says Radeon,
# Pro, Navi or ROCm
_PRO_BARE = re.compile(r"(?<![\w-])(W[5-7]\d00)(?![\w])")
_PRO_LINE = re.compile(r"(?i)radeon|\bpro\b|\bnavi|\brocm")
_RYZEN = re.compile(r"(?i)(?<![\w-])(?:Ryzen\s{1,3}(?:[3579]\s{1,3})?(?:PRO\s{1,3})?)?([45]\d{3})"
                    r"\s?(HX|HS|H|U|GE|G)(?![\w])")
_IGPU_WORD = re.compile(r"(?i)\bi-?GPU|\bintegrated\s(?:AMD\s)?(?:gpu|graphics|radeon)|\bAPU\b"
                        r"|\bVega\s?\d{1,2}\b")
_INTEL_LINE = re.compile(r"(?i)\bintel\b|\bcore\s?i[3579]\b|\bi[3579]-\d")
_MI = re.compile(r"(?i)(?<![\w])(?:Instinct\s)?MI(\d{2,3}[AXH]?)(?![\w])")
_RELEASE = re.compile(r"(?i)(?<![\w/.-])(?:\+|/opt/)?rocm(?:/miopen)?(?: version| ver\.?)?"
                      r"\s{0,3}[:=]?\s{0,3}(?:rocm-)?v?(\d{1,2}\.\d{1,2})(?:\.\d{1,5})?(?![\d])")
# the HIP runtime's soname carries its ROCm release: libamdhip64.so.5.4.22804 is ROCm 5.4's;
# libamdhip64.so.5 alone says only the major
_HIP_SONAME = re.compile(r"\blibamdhip64\.so\.(\d{1,2})(?:\.(\d{1,2})\.\d{4,6})?(?![\d.])")
_TORCH_ROCM = re.compile(r"\+rocm(\d{1,2}\.\d{1,2})")
_BUILT = re.compile(r"ROCM used to build PyTorch: (\d{1,2}\.\d{1,2})")
# PyTorch's ROCm wheel index the text installs from ("--extra-index-url https://download.pytorch.org/
# whl/rocm5.1.1", ".../whl/nightly/rocm6.2"): the wheel's ROCm, like its +rocmX.Y tag
_WHEEL_INDEX = re.compile(r"download\.pytorch\.org/whl/(?:nightly/|test/)?rocm(\d{1,2}\.\d{1,2})"
                          r"(?:\.\d{1,3})?(?![\d.])")
_HEADING = re.compile(r"(?i)^\W{0,6}rocm version\W{0,4}$")
_VERSION_LINE = re.compile(r"^\s{0,8}v?(\d{1,2}\.\d{1,2})(?:\.\d{1,5})?\s*$")
# torch's CUDA device named as an AMD Radeon (the line ComfyUI, Fooocus and Forge print at start,
# "Device: cuda:0 AMD Radeon RX 6600 : native") is a HIP build: a CUDA build sees no AMD GPU.
# ZLUDA (Windows) prints the same line with "[ZLUDA]" after the name.
_CONTEXT = re.compile(r"(?i)\brocm|\bhip\b|hip[A-Z_]|\bmiopen|\brocblas|rocminfo|\bhsa_"
                      r"|\bamdgpu|tensorflow-rocm|\bollama\b"
                      r"|Device: cuda:\d{1,2} AMD Radeon(?![^\n]{0,80}ZLUDA)")
# Windows named, or what only it has: a drive path, PowerShell, an .exe, the HIP SDK (AMD's
# Windows ROCm), ollama's Windows probe, cmd's `set VAR=value`, setx, PowerShell's $env:
_WINDOWS = re.compile(r"(?i)(?<![\w])[a-z]:\\\\?[\w$ .-]{1,60}\\|\bwindows\b|\bPS C:|\.exe\b"
                      r"|\bwin ?1[01]\b|\bHIP SDK\b|\bamd_windows\.go\b"
                      r"|\bset HSA_OVERRIDE_GFX_VERSION=|\bsetx HSA_OVERRIDE|\$env:HSA_OVERRIDE")
_OVERRIDE = re.compile(r"HSA_OVERRIDE_GFX_VERSION(?!_\d)\W{0,6}(\d{1,2})\.(\d)\.(\d{1,2})(?!\d)")
# a failure or a complaint in the reporter's words (not inside a URL: ".../issues/3158")
_COMPLAINT = re.compile(r"(?i)segmentation fault|seg ?fault|core dump|crash|memory access fault"
                        r"|(?<![/\w])(?:error|fail\w{0,4}|issues?|problems?|wrong|hangs?)\b"
                        r"|not work|doesn.?t work|does not work|harmful"
                        r"|\bruns? (?:\d{1,3} ?% )?on (?:the )?cpu\b|fall\w{0,3} back to (?:the )?cpu")
# what an override that did nothing looks like on Windows: the GPU unsupported or unused, the
# libraries without its kernels (an out-of-memory or a crash elsewhere is not read as it)
_WIN_SYMPTOM = re.compile(r"(?i)not supported|unsupported|\bruns? (?:\d{1,3} ?% )?on (?:the )?cpu\b"
                          r"|fall\w{0,3} back to (?:the )?cpu|\bno (?:compatible |usable )?(?:gpus?|devices?)\b"
                          r"|rocBLAS error|TensileLibrary|invalid device function|NoBinaryForGpu"
                          r"|no kernel image|not work|doesn.?t work|no effect|ignor(?:ed|es)\b")
# ollama's probe with the variable set (any value, "10.3.0" or "gfx1102") skips its gfx check;
# on Windows (discover/amd_windows.go) that leaves its list of supported types empty, so every
# GPU is then "not supported (supported types:[])": the override, not the libraries
_OLLAMA_SKIPPED = re.compile(r"skipping rocm gfx compatibility check\W{1,12}(?:with )?"
                             r"HSA_OVERRIDE_GFX_VERSION\W{1,3}[\w\\\"]")
_EMPTY_TYPES = re.compile(r"amdgpu is not supported \(supported types: ?\[\]\)")
# a line that does not set it: commented out, or unset / removed
# the override exported from a shell's start-up file, which only an interactive shell reads ...
_PROFILE_EXPORT = re.compile(r"(?im)^[ \t]{0,12}export[ \t]{1,4}HSA_OVERRIDE_GFX_VERSION=")
_PROFILE_FILE = re.compile(r"(?<![\w-])\.(?:bashrc|bash_profile|profile|zshrc|zprofile)\b")
# ... while the program runs as a systemd service (its unit, its journal, systemctl on it)
_SERVICE = re.compile(r"(?i)\bjournalctl\b[^\n]{0,20}(?:-u|--unit)\b|\bsystemctl[ \t]{1,4}(?:status|restart|start|enable)\b"
                      r"|\b[\w-]{2,40}\.service\b|systemd\[\d{1,7}\]: Started ")
# the unit itself carries it (Environment="HSA_OVERRIDE_GFX_VERSION=..." or `systemctl edit`)
_UNIT_SETS = re.compile(r"(?i)Environment=\W{0,2}HSA_OVERRIDE_GFX_VERSION|\bsystemctl[ \t]{1,4}edit\b"
                        # or the server's own log shows that the value reached it
                        r"|skipping rocm gfx compatibility check|HSA_OVERRIDE_GFX_VERSION:\W{0,2}\d")
# the GPU left unused (the reporter's words)
_UNUSED = re.compile(r"(?i)\b(?:only|just) (?:uses? |using |runs? on |on )?(?:the )?cpu\b"
                     r"|\bruns? (?:\d{1,3} ?% )?on (?:the )?cpu\b|\bnot (?:using|use) (?:the |my )?(?:amd )?gpu"
                     r"|\bnot using it\b|doesn.?t help|does not help|no compatible (?:amd)?gpus?"
                     r"|fall\w{0,3} back to (?:the )?cpu|\b(?:gpu|radeon)\b[^\n]{0,40}\bnot (?:detected|used|found)")
_NOT_SET = re.compile(r"(?i)^\s{0,12}(?:#|//|;|rem\s)|\bunset\s|-u\s{1,3}HSA_OVERRIDE")


def _head(text: str) -> str:
    return text[:MAX_TEXT]


def gpu_targets(text: str) -> tuple[tuple[str, str], ...]:
    """(as the text names it, gfx target) for each AMD GPU the text states, in order."""
    from envdoctor.engine.knowledge import rocm as rocm_knowledge
    found: dict[str, str] = {}
    lines = _head(text).splitlines()
    own: list[tuple[str, str]] = []
    bare: dict[str, None] = {}
    pro: list[tuple[str, str]] = []
    igpu_text = _IGPU_WORD.search(_head(text)) is not None
    for line in lines:
        if "gfx" in line:
            listing = _LIST_LINE.search(line) is not None or len(set(_GFX.findall(line))) >= 3
            for m in _GFX_OWN.finditer(line):
                if not listing or "=" in m.group(0):
                    own.append((f"gfx{m.group(1)}", f"gfx{m.group(1)}"))
            if not listing:
                for m in _GFX.finditer(line):
                    bare.setdefault(f"gfx{m.group(1)}", None)
        low = line.lower()
        if "rx" in low or "xt" in low or "gre" in low:
            for m in _RX.finditer(line):
                name = f"Radeon RX {m.group(1)}" + (f" {m.group(2).upper()}" if m.group(2) else "")
                own.append((name, rocm_knowledge.gfx_of_name(name) or ""))
            for m in _BARE.finditer(line):
                name = f"Radeon RX {m.group(1)} {m.group(2).upper()}"
                own.append((name, rocm_knowledge.gfx_of_name(name) or ""))
        if "vega" in low:
            for m in _VEGA.finditer(line):
                name = f"Radeon RX Vega {m.group(1)}"
                own.append((name, rocm_knowledge.gfx_of_name(name) or ""))
        if "vii" in low:
            for _ in _VII.finditer(line):
                own.append(("Radeon VII", rocm_knowledge.gfx_of_name("Radeon VII") or ""))
        if "amd" in low:
            for m in _APU.finditer(line):
                name = m.group(1).capitalize()
                own.append((name, rocm_knowledge.gfx_of_name(name) or ""))
        if "radeon" in low:
            for m in _IGPU.finditer(line):
                name = f"AMD Radeon {m.group(1).upper()}"
                own.append((name, rocm_knowledge.gfx_of_name(name) or ""))
        if "pro" in low:
            for m in _PRO.finditer(line):
                name = "Radeon Pro " + " ".join(m.group(1).upper().replace("WX", "WX ").split())
                pro.append((name, rocm_knowledge.gfx_of_name(name) or ""))
        if "w" in low and _PRO_LINE.search(line):
            for m in _PRO_BARE.finditer(line):
                name = f"Radeon Pro {m.group(1).upper()}"
                pro.append((name, rocm_knowledge.gfx_of_name(name) or ""))
        if igpu_text and ("ryzen" in low or _IGPU_WORD.search(line)) and not _INTEL_LINE.search(line):
            for m in _RYZEN.finditer(line):
                target = rocm_knowledge.gfx_of_ryzen(m.group(1)[0], m.group(2))
                if target:
                    own.append((f"the integrated GPU of a Ryzen {m.group(1)}{m.group(2).upper()}",
                                target))
        if "mi" in low:
            for m in _MI.finditer(line):
                name = f"AMD Instinct MI{m.group(1).upper()}"
                target = rocm_knowledge.gfx_of_name(name)
                if target:
                    own.append((name, target))
    if not any(_GFX_OWN.search(line) for line in lines if "gfx" in line):
        own += pro
    for name, target in own:
        if not target:
            continue
        same = [n for n, t in found.items() if t == target]
        if not same:
            found[name] = target
        elif same[0] == target and name != target:  # "gfx1100" read first, then its product
            del found[same[0]]
            found[name] = target
    if not found and len(bare) == 1:
        target = next(iter(bare))
        found[target] = target
    return tuple(found.items())


def stated_release(text: str) -> Version | None:
    """The ROCm release whose libraries ran: a torch wheel's ``+rocmX.Y``, else the one
    release the text states (None when it states none, or two different ones)."""
    from packaging.version import Version
    head = _head(text)
    wheel = {m.group(1) for m in _TORCH_ROCM.finditer(head)}
    wheel |= {m.group(1) for m in _BUILT.finditer(head)}
    if "whl/" in head:
        wheel |= {m.group(1) for m in _WHEEL_INDEX.finditer(head)}
    if len(wheel) == 1:
        return Version(next(iter(wheel)))
    if wheel:
        return None
    stated = {m.group(1) for m in _RELEASE.finditer(head)}
    if "libamdhip64" in head:
        stated |= {f"{m.group(1)}.{m.group(2)}" for m in _HIP_SONAME.finditer(head) if m.group(2)}
    lines = head.splitlines()
    for i, line in enumerate(lines):
        if "ersion" in line and _HEADING.match(line):
            for nxt in lines[i + 1:i + 4]:
                m = _VERSION_LINE.match(nxt)
                if m:
                    stated.add(m.group(1))
                    break
                if nxt.strip():
                    break
    return Version(next(iter(stated))) if len(stated) == 1 else None


def stated_major(text: str) -> int | None:
    """The one ROCm major the HIP runtime's bare soname states (``libamdhip64.so.5``), for a
    text that states no release; None otherwise."""
    head = _head(text)
    if "libamdhip64" not in head:
        return None
    majors = {int(m.group(1)) for m in _HIP_SONAME.finditer(head)}
    return next(iter(majors)) if len(majors) == 1 else None


def _unlisted_in_major(target: str, major: int) -> bool:
    """No release of that ROCm major (minors 0-9) that AMD's lists speak for names the target,
    and at least one speaks."""
    from packaging.version import Version

    from envdoctor.engine.knowledge import rocm as rocm_knowledge
    verdicts = [rocm_knowledge.gfx_listed_in(target, Version(f"{major}.{minor}"))
                for minor in range(10)]
    return False in verdicts and True not in verdicts


def rocm_context(text: str) -> bool:
    return _CONTEXT.search(_head(text)) is not None


def on_windows(text: str) -> bool:
    return _WINDOWS.search(_head(text)) is not None


def _unlisted(text: str) -> tuple[str, str, str] | None:
    """(the GPU as shown, its target, where AMD's lists leave it out) when the text states
    ROCm, AMD GPUs, and every one of them is a target AMD's list for the stated release does not
    name (with no release: one no release lists); None otherwise, and None when the text
    already sets the HSA_OVERRIDE_GFX_VERSION that runs each GPU's family as a listed target.
    The Linux lists say nothing for a Windows text (the HIP SDK has its own)."""
    from envdoctor.engine.knowledge import rocm as rocm_knowledge
    if not rocm_context(text) or on_windows(text):
        return None
    gpus = [(name, target) for name, target in gpu_targets(text) if target]
    if not gpus:
        return None
    # the override that runs this family as a listed target is already set: the missing code
    # for the target is not what failed
    values = set(override_values(text))
    if values and all((row := rocm_knowledge.gfx_override_row(target)) is not None
                      and row.get("value") in values for _, target in gpus):
        return None
    release = stated_release(text)
    major = stated_major(text) if release is None else None
    for _, target in gpus:
        if release is not None:
            listed = rocm_knowledge.gfx_listed_in(target, release)
        elif major is not None and rocm_knowledge.gfx_listed_by_any(target):
            listed = False if _unlisted_in_major(target, major) else None
        else:
            listed = True if rocm_knowledge.gfx_listed_by_any(target) else False
        if listed is not False:
            return None
    name, target = gpus[0]
    shown = name if name == target else f"{name} ({target})"
    first, last = rocm_knowledge.gfx_listed_span(target)
    if release is not None:
        where = f"AMD's list for ROCm {release.major}.{release.minor} does not name {target}"
        if first is not None and first > release:
            where += f" (AMD lists it from ROCm {first})"
        elif last is not None and last < release:
            where += f" (the last ROCm release AMD listed it for is {last})"
    elif major is not None and rocm_knowledge.gfx_listed_by_any(target):
        where = (f"its HIP runtime (libamdhip64.so.{major}) is ROCm {major}, and no ROCm "
                 f"{major} list AMD published names {target}")
    else:
        where = f"no ROCm release AMD documents lists {target}"
    return shown, target, where


def _override_words(target: str) -> str:
    from envdoctor.engine.knowledge import rocm as rocm_knowledge
    row = rocm_knowledge.gfx_override_row(target)
    return (f"; HSA_OVERRIDE_GFX_VERSION={row['value']} runs it as {row['runs_as']}"
            if row is not None else "")


def unlisted_reason(text: str) -> str | None:
    """The note when the text states ROCm, AMD GPUs, and every one of them is a target AMD's
    list for the stated release does not name (``_unlisted``), read against a crash. None
    where the torch the text states is a CUDA build and no ROCm build is stated: that build
    has no AMD code at all, so AMD's list for a ROCm release says nothing yet (the wheel is the
    cause, ``cuda_torch_reason``)."""
    if cuda_torch_build(text) is not None and not rocm_torch_stated(text):
        return None
    found = _unlisted(text)
    if found is None:
        return None
    shown, target, where = found
    return (f"The text states {shown} and the crash comes from ROCm: {where}, so that "
            f"release is neither built nor tested for it{_override_words(target)}. If this "
            f"ROCm is a distribution's or your own build for {target}, look elsewhere.")


def support_answer(text: str) -> str | None:
    """The answer to a question whether ROCm supports the AMD GPU the text states, when AMD's
    list for the stated release (no release: any release) does not name it (``_unlisted``):
    the release AMD lists it from, the last one that listed it, or the override that runs its
    family. None when the list names it, or the text states nothing to decide by."""
    found = _unlisted(text)
    if found is None:
        return None
    shown, target, where = found
    row_words = _override_words(target)
    tail = (f"{row_words} (not supported by AMD, but the family's listed chip runs the same "
            f"code)" if row_words else "; no override runs it as a listed chip")
    return (f"The text asks whether ROCm supports {shown}: {where}, so AMD's ROCm binaries "
            f"(and the ROCm torch wheels) carry no tested code for it{tail}.")


# what says the code that ran may lack the GPU's target although AMD lists the GPU: a build of
# its own (a build system, the targets it was given, a package built from source), or a package
# whose ROCm builds carry a target list of their own (bitsandbytes, flash-attn, xformers, a
# llama.cpp binding built by pip)
_OWN_BUILD = re.compile(r"(?i)\bcmake\b|(?m:^\W{0,4}make\b)|\bmake -j|\bhipcc\b|\bninja\b"
                        r"|AMDGPU_TARGETS|GPU_TARGETS|PYTORCH_ROCM_ARCH|offload-arch|HCC_AMDGPU_TARGET"
                        r"|HIP_ARCHITECTURES|\bHIPBLAS\b|LLAMA_HIPBLAS|GGML_HIP|CMAKE_ARGS|setup\.py"
                        r"|Building wheels? for|pip install (?:-e\b|--no-binary|\.)|\bcompil(?:ed|ing)\b"
                        r"|from source\b|\bself[- ]built\b|\bbuilt with\b|\bbitsandbytes|flash[_-]?attn"
                        r"|\bxformers|\bapex\b|\bdeepspeed|\bvllm\b|\bexllama|gptq|llama[_-]cpp[_-]python"
                        r"|\bctranslate2|\bonnxruntime|\btriton\b")
# the runtime or a tool saying that some device has no code: a device besides the stated one
# (an iGPU), or a build for other targets
_LACKS_CODE = re.compile(r"(?i)NoBinaryForGpu|find code object|No compatible code objects|Missing CO\b"
                         r"|Cannot find CO\b|is not supported|supported[ _]types|Ignoring visible gpu"
                         r"|minimum required AMDGPU|shared object initialization failed|INVALID_ISA"
                         r"|TensileLibrary|amdgpu too old")


def _listed(target: str, releases: set[str], major: int | None) -> bool:
    """Whether AMD's Linux list names the target for every release the text states (none:
    for its ROCm major, or for the current list)."""
    from packaging.version import Version

    from envdoctor.engine.knowledge import rocm as rocm_knowledge
    if releases:
        return all(rocm_knowledge.gfx_listed_in(target, Version(r)) is True for r in releases)
    if not rocm_knowledge.gfx_listed_now(target):
        return False
    if major is None:
        return True
    return any(rocm_knowledge.gfx_listed_in(target, Version(f"{major}.{minor}")) is True
               for minor in range(10))


def listed_gpu_reason(text: str) -> str | None:
    """The note when a ROCm text on Linux states AMD GPUs and every one of them is a target
    AMD's list names for each ROCm release the text states (none stated: the current list),
    sets no HSA_OVERRIDE_GFX_VERSION, and shows nothing that could lack the target: no build
    of its own (cmake, AMDGPU_TARGETS, a pip build) and no package with a target list of its
    own (bitsandbytes, flash-attn). The ROCm builds AMD, PyTorch and the applications ship
    carry code for a listed target, so "no code for this GPU" is not what the text shows; a
    kernel the application's own release launches wrongly (a regression) prints the same
    "invalid device function". None otherwise."""
    head = _head(text)
    if not rocm_context(text) or on_windows(text) or override_values(text):
        return None
    if _OWN_BUILD.search(head) is not None or _LACKS_CODE.search(head) is not None:
        return None
    found = gpu_targets(text)
    gpus = [(name, target) for name, target in found if target]
    if not gpus or len(gpus) != len(found):
        return None
    # a gfx target the text names besides its GPUs' own may be what the code was built for
    own = {target for _, target in gpus}
    if any(f"gfx{m.group(1)}" not in own for m in _GFX.finditer(head)):
        return None
    release = stated_release(text)
    if release is not None:
        releases = {f"{release.major}.{release.minor}"}
    else:
        releases = {m.group(1) for m in _RELEASE.finditer(head)}
        releases |= {m.group(1) for m in _TORCH_ROCM.finditer(head)}
    major = stated_major(text) if not releases else None
    if not all(_listed(target, releases, major) for _, target in gpus):
        return None
    name, target = gpus[0]
    shown = name if name == target else f"{name} ({target})"
    which = (f"ROCm {', '.join(sorted(releases))}" if releases
             else "the current ROCm release")
    return (f"The text states {shown}, a target AMD's list names for {which}, sets no "
            f"HSA_OVERRIDE_GFX_VERSION and shows no build of its own: the ROCm builds shipped "
            f"for this GPU carry its code, so the text does not show a build without it.")


# a text that says the GPU does run (a user's own ROCm build that carries gfx803)
_RUNS = re.compile(r"(?i)\bworks? (?:fine|perfectly|great|well)\b|\bis working\b|\bruns? (?:fine|perfectly|great)\b")


def gfx8_dropped_reason(text: str) -> str | None:
    """The note when every AMD GPU the text states is a GFX8 one (gfx803: Polaris RX 470-590,
    Fiji) in a ROCm text that states no ROCm release: AMD's list has not named gfx803 since
    ROCm 4.0, and the ROCm builds applications ship now (ollama's, torch's wheels) carry no
    code for it. None where a release is stated (``unlisted_reason`` reads that), an
    HSA_OVERRIDE_GFX_VERSION is set, or the text says the GPU runs."""
    head = _head(text)
    if not rocm_context(text) or _RUNS.search(head) is not None or override_values(text):
        return None
    gpus = [(name, target) for name, target in gpu_targets(text) if target]
    if not gpus or any(target != "gfx803" for _, target in gpus):
        return None
    if stated_release(text) is not None or stated_major(text) is not None:
        return None
    name, target = gpus[0]
    shown = name if name == target else f"{name} ({target})"
    return (f"The text states {shown}: AMD's ROCm list has not named {target} (Polaris, Fiji) "
            "since ROCm 4.0, and the ROCm builds applications ship now (ollama's and its AMD "
            "forks' ROCm 6 builds, torch's ROCm wheels) have no code for it. Only a build made "
            "for gfx803 (an older ROCm 5.x package of the application, a community build) runs it.")


def override_values(text: str) -> tuple[str, ...]:
    """The HSA_OVERRIDE_GFX_VERSION values the text states ("10.3.0"), in order."""
    found: dict[str, None] = {}
    for line in _head(text).splitlines():
        if "HSA_OVERRIDE_GFX_VERSION" not in line or _NOT_SET.search(line):
            continue
        for m in _OVERRIDE.finditer(line):
            found.setdefault(".".join(m.groups()), None)
    return tuple(found)


def override_reason(text: str) -> str | None:
    """The note when an HSA_OVERRIDE_GFX_VERSION the text states is not the one its GPU
    needs: the GPU is natively listed (the override only spoofs it), its family's override
    names another value, or the override crosses a major version; with a failure or complaint
    in the text. None otherwise (an override that matches the GPU's family is the fix)."""
    from envdoctor.engine.knowledge import rocm as rocm_knowledge
    head = _head(text)
    if _OLLAMA_SKIPPED.search(head) is not None and _EMPTY_TYPES.search(head) is not None:
        return ("ollama skipped its gfx check because HSA_OVERRIDE_GFX_VERSION is set, and then "
                "listed no supported types at all: its Windows probe reads no library list when "
                "the variable is set (the HIP SDK's runtime ignores the override anyway), so "
                "every GPU is 'not supported'. Remove the variable from the system environment.")
    values = override_values(text)
    if values and (_PROFILE_EXPORT.search(head) is not None and _PROFILE_FILE.search(head) is not None
                   and _SERVICE.search(head) is not None and _UNIT_SETS.search(head) is None
                   and _UNUSED.search(head) is not None):
        return (f"The text exports HSA_OVERRIDE_GFX_VERSION={values[0]} from a shell start-up "
                f"file (.bashrc / .profile), but the program runs as a systemd service: a service "
                f"never reads a user's shell files, so the server still sees the GPU as its own "
                f"target and, where that target is not listed, falls back to the CPU. Set it in the unit "
                f"(`sudo systemctl edit ollama.service` -> [Service] "
                f"Environment=\"HSA_OVERRIDE_GFX_VERSION={values[0]}\"), then "
                f"`sudo systemctl daemon-reload && sudo systemctl restart ollama`; or run "
                f"the server from that shell.")
    if not values or _COMPLAINT.search(_head(text)) is None:
        return None
    if on_windows(text) and _WIN_SYMPTOM.search(_head(text)) is not None:
        # the HIP SDK's runtime never reads it: whatever the value, nothing is spoofed there
        return (f"The text sets HSA_OVERRIDE_GFX_VERSION={values[0]} on Windows, where the HIP "
                f"SDK's runtime does not read it (it is a setting of ROCr, the Linux runtime): "
                f"the GPU still runs as its own target, so libraries without that target's "
                f"kernels (rocBLAS, a build for another gfx) still fail or fall back to the CPU.")
    gpus = [(n, t) for n, t in gpu_targets(text) if t]
    # a release that no longer lists the GPU (gfx803 after ROCm 4): not "lists it itself"
    release = stated_release(text)
    for value in values:
        spoofed = rocm_knowledge.gfx_of_override(value)
        if spoofed is None:
            continue
        for name, target in gpus:
            if target == spoofed:
                continue
            shown = name if name == target else f"{name} ({target})"
            row = rocm_knowledge.gfx_override_row(target)
            if row is not None and row.get("value") == value:
                continue
            if row is not None:
                return (f"The text sets HSA_OVERRIDE_GFX_VERSION={value} (runs as {spoofed}) "
                        f"on {shown}: its family runs as {row['runs_as']} with "
                        f"HSA_OVERRIDE_GFX_VERSION={row['value']}.")
            listed = (rocm_knowledge.gfx_listed_in(target, release) if release is not None
                      else rocm_knowledge.gfx_listed_by_any(target))
            if listed:
                return (f"The text sets HSA_OVERRIDE_GFX_VERSION={value} (runs as {spoofed}) "
                        f"on {shown}, a target ROCm lists itself: the override only makes "
                        f"it load another GPU's code. Unset it.")
            if target[3:-2] != spoofed[3:-2]:
                return (f"The text sets HSA_OVERRIDE_GFX_VERSION={value} (runs as {spoofed}) "
                        f"on {shown}, another GPU generation: its code does not run there.")
    return None


PATTERNS: tuple[re.Pattern[str], ...] = (_GFX, _GFX_OWN, _LIST_LINE, _RX, _BARE, _VEGA, _VII, _MI, _RELEASE, _TORCH_ROCM,
            _BUILT, _HEADING, _VERSION_LINE, _CONTEXT, _WINDOWS, _OVERRIDE, _COMPLAINT, _NOT_SET,
            _APU, _HIP_SONAME, _WHEEL_INDEX, _PRO, _PRO_BARE, _PRO_LINE, _RYZEN, _IGPU_WORD, _INTEL_LINE, _WIN_SYMPTOM,
            _OLLAMA_SKIPPED, _EMPTY_TYPES, _PROFILE_EXPORT, _PROFILE_FILE, _SERVICE, _UNIT_SETS, _UNUSED,
            _OWN_BUILD, _LACKS_CODE)
# (extended below the CUDA-build readings with their own patterns)


# A CUDA build of torch the text states: its +cuXYZ tag where torch's version is printed (pip's
# wheel name, collect_env's "PyTorch version:", a UI footer's "torch: 2.0.0+cu117", a JSON
# sysinfo's "torch": "2.4.1+cu121", torch.__version__), collect_env's "CUDA used to build
# PyTorch: 11.7", torch.version.cuda's value. torchvision / torchaudio tags are not torch's.
_TORCH_CUDA_TAG = re.compile(r"(?i)(?<![\w-])(?:py)?torch(?!\w|-[a-z])(?:\.__version__)?[\s:=\"'`(),-]{0,12}"
                             r"(?:version(?: is)?[\s:=\"'`]{0,4})?v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)"
                             r"(?:[.a-z]{1,4}\d{0,8})?(?:\+|%2B)cu(\d{2,3})(?![\d])")
_CUDA_BUILT = re.compile(r"CUDA used to build PyTorch: (\d{1,2}\.\d{1,2})")
_TORCH_VERSION_CUDA = re.compile(r"torch\.version\.cuda\W{0,12}(\d{1,2}\.\d{1,2})")
# a ROCm build stated anyway: its +rocm tag, collect_env's ROCm / HIP lines, torch.version.hip's value
_ROCM_BUILD = re.compile(r"\+rocm\d|%2Brocm\d|ROCM used to build PyTorch: \d|HIP runtime version: \d"
                         r"|torch\.version\.hip\W{0,20}\d")
# an NVIDIA GPU named beside the AMD one: the CUDA build may be that GPU's
_NVIDIA_GPU = re.compile(r"(?i)\bgeforce|\bRTX ?\d|\bquadro|\btesla [a-z]?\d|NVIDIA-SMI \d|\bGTX ?\d"
                         r"|\bNVIDIA (?:[A-Z]\d{2,4}|GPU|card|driver version)\b|\bGPU \d+: NVIDIA\b")


def cuda_torch_build(text: str) -> tuple[str, str] | None:
    """(torch version or "", CUDA release) of the CUDA torch build the text states; None when it
    states none, or two different CUDA releases for it."""
    head = _head(text)
    found: dict[str, str] = {}
    for m in _TORCH_CUDA_TAG.finditer(head):
        cuda = f"{m.group(2)[:-1]}.{m.group(2)[-1]}"
        found.setdefault(cuda, m.group(1))
    for pattern in (_CUDA_BUILT, _TORCH_VERSION_CUDA):
        for m in pattern.finditer(head):
            found.setdefault(m.group(1), "")
    if len(found) != 1:
        return None
    cuda, version = next(iter(found.items()))
    return version, cuda


def rocm_torch_stated(text: str) -> bool:
    return _ROCM_BUILD.search(_head(text)) is not None


def cuda_torch_reason(text: str) -> str | None:
    """The note when the torch the text states is a CUDA build (+cuXYZ, "CUDA used to build
    PyTorch", torch.version.cuda), no ROCm build is stated, every GPU the text states is AMD's
    and none is NVIDIA's, on Linux: the wheel has no code for any AMD GPU, so the ROCm build of
    the stated torch release is the fix (its download.pytorch.org index from the wheel table).
    None otherwise (Windows has no ROCm wheel on that index: the signature's own fix speaks)."""
    build = cuda_torch_build(text)
    if build is None or rocm_torch_stated(text) or on_windows(text):
        return None
    if _NVIDIA_GPU.search(_head(text)) is not None:
        return None
    gpus = [(name, target) for name, target in gpu_targets(text) if target]
    if not gpus:
        return None
    version, cuda = build
    name, target = gpus[0]
    shown = name if name == target else f"{name} ({target})"
    what = f"torch {version}+cu{cuda.replace('.', '')}" if version else f"a torch built with CUDA {cuda}"
    note = (f"The text states {what}, a CUDA (NVIDIA) build, and its GPU is AMD's ({shown}): that "
            "build carries no code for any AMD GPU, so ROCm's GPU list does not matter until a "
            "ROCm build is installed.")
    from envdoctor.engine.knowledge import rocm as rocm_knowledge
    index = rocm_knowledge.rocm_wheel_for_torch(version) if version else None
    if index is not None:
        pin, rocm = index
        note += (f" In the app's environment: `pip uninstall -y torch torchvision torchaudio`, then "
                 f"`pip install torch=={pin} torchvision torchaudio --index-url "
                 f"https://download.pytorch.org/whl/{rocm}` (`--index-url`, so PyPI's CUDA wheel "
                 f"cannot win), and check that `python -c \"import torch; print(torch.version.hip)\"` "
                 f"prints a version.")
    row_words = _override_words(target)
    if row_words and not rocm_knowledge.gfx_listed_by_any(target):
        note += (f" Once the ROCm build is in: no ROCm release AMD documents lists {target}"
                 f"{row_words}.")
    return note


PATTERNS = PATTERNS + (_TORCH_CUDA_TAG, _CUDA_BUILT, _TORCH_VERSION_CUDA, _ROCM_BUILD, _NVIDIA_GPU)
