"""When the text shows the user's own configuration is the cause, a signature does not blame
the environment.

A signature reads an error line as an environment fault ("libnvinfer.so.8 cannot be found",
"Torch not compiled with CUDA enabled" on a Mac, "No module named 'mmcv._ext'"). The same
text often shows that the fault is in something the user set or wrote, and then "install
this" is a wrong answer:

- ``preload``: a dynamic-loader failure that comes from a library the user preloads
  (``LD_PRELOAD``): a shell (``/bin/bash: error while loading shared libraries: libnv…``),
  which links no CUDA library itself, reports it; or the ``LD_PRELOAD`` value the text sets is
  malformed (a space inside the file name, a name cut at its dot); or the library the loader
  could not open is the very path the text's own ``LD_PRELOAD`` names. Applies to every
  environment diagnosis whose evidence is a loader failure: by structure, not per signature.
- ``cuda_in_own_code``: the frame that called into ``torch.cuda`` is the user's own file (not
  under site-packages, dist-packages or the Python library) and its code line hard-codes
  CUDA (``.cuda()``, ``"cuda:0"``, ``device="cuda"``). Applies to the signatures that list it
  in ``own_cause`` (the platforms where CUDA cannot exist: EMPS021, a Mac).
- ``api_in_own_code``: a removed or renamed API (TF1 graph calls under TF2, ``torch._six``,
  NumPy 2's removed aliases) is called from the innermost frame, and that frame is the user's
  own file: the code is what must change (or be given its old release). The same error raised
  inside an installed package is a mismatch between two installed packages: an environment
  claim. Applies to the signatures that list it; their fix already names both ways.
- ``source_tree``: a package's frames come from a folder outside site-packages (its source
  checkout) while the text installs it non-editable (``pip install .``, ``setup.py install``)
  or puts that folder on ``PYTHONPATH`` / ``sys.path``: the checkout shadows the installed
  build (EBUILD008's "compiled ops missing").
- ``works_elsewhere``: the text says the same import works when Python starts in another
  directory, or that the failure goes away on leaving the source tree (``cd ..``): what Python
  finds depends on the working directory, so a folder there (the package's source checkout or
  build folder, or a folder named like the package) shadows the installed package. Not "not
  installed in this Python": another *environment*, terminal, notebook kernel or machine where
  it works is another interpreter, and that stays the environment answer.
- ``not_the_package``: "module 'tensorflow' has no attribute 'keras'" while the text states a
  release of the package that has the name (tf.keras from TensorFlow 1.4): what Python
  imported under the package's name is not that release (a script or folder named like it,
  or a broken install), so no other release is the answer.

The diagnosis keeps its code and evidence; its category becomes ``user_code``, its title and
fix say what the user's configuration does, and a note quotes what the text shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from envdoctor.rulefiles import RuleFileError

Diagnosis = Any  # envdoctor.explain.rank.Diagnosis (rank imports the loader, not this module)

MAX_TEXT = 1 << 20

# ---------------------------------------------------------------- preload
# a dynamic-loader failure as the loader (or a framework re-raising it) prints it
_LOADER_FAILURE = re.compile(r"cannot open shared object file|error while loading shared "
                             r"libraries|Library not loaded: |cannot be preloaded")
# a shell or core utility reporting that it cannot start: it links only the C library, so a
# CUDA/TensorRT/framework library it "needs" was injected by LD_PRELOAD
_SHELL_LOADER = re.compile(r"(?m)^\s{0,8}(?:/usr)?/bin/(?:ba|da|z|k|tc|c)?sh: error while "
                           r"loading shared libraries: (lib[\w+-]{1,60}\.so[\d.]{0,12})")
_C_RUNTIME = re.compile(r"^lib(?:c|m|dl|pthread|rt|tinfo|ncurses\w{0,4}|readline|selinux|pcre"
                        r"\w{0,4}|acl|attr|cap|gcc_s)\.so")
# LD_PRELOAD as a command, a Dockerfile or a compose file sets it ("LD_ PRELOAD" re-spaced
# by a translator); the value runs to the next space, a quote or the line's end
_PRELOAD_SET = re.compile(r"\bLD_ ?PRELOAD ?[=:] ?[\"']?([^\s\"']{1,300})([^\n]{0,12})")
_CUT_NAME = re.compile(r"(?:\.|\. {1,2}|\s{1,2}\.)(?:so|SO|So)\b")


def _preload_reason(text: str) -> str | None:
    shell = _SHELL_LOADER.search(text)
    if shell and not _C_RUNTIME.match(shell.group(1)):
        return (f"The shell itself cannot start because {shell.group(1)} is missing: a shell "
                "links no such library, so it comes from a library preloaded into every "
                "process (LD_PRELOAD), or from that library's own dependencies.")
    for m in _PRELOAD_SET.finditer(text):
        value, after = m.group(1), m.group(2)
        if value.endswith(".") or (after[:1] == " " and _CUT_NAME.match(after)):
            return (f"The LD_PRELOAD value the text sets ({value}{after.rstrip()}) is not one "
                    "file name: a space or a cut inside the path, so the loader preloads "
                    "something other than the library meant.")
        name = value.rsplit("/", 1)[-1]
        if "/" in value and ".so" in name and _failed_to_open(text, name):
            return (f"The library the loader cannot open, {name}, is the one the text's own "
                    f"LD_PRELOAD names ({value}): that path does not exist where it runs.")
    return None


def _failed_to_open(text: str, name: str) -> bool:
    quoted = re.escape(name)
    return re.search(rf"{quoted}['\"]?:? (?:cannot open shared object file|No such file)",
                     text) is not None


def _is_loader_failure(d: Diagnosis) -> bool:
    return any(_LOADER_FAILURE.search(e.text) for e in d.evidence)


# ---------------------------------------------------------------- cuda_in_own_code
_FRAME = re.compile(r'^\s{0,12}File "([^"]{1,400})", line (\d{1,7})')
_FRAME_IPY = re.compile(r"^\s{0,12}File (~?[\w./\\:-]{1,400}\.py):(\d{1,7})")
# the installed side of a traceback: a package, the standard library, a conda/pyenv Python
_INSTALLED = re.compile(r"[/\\](?:site|dist)-packages[/\\]|[/\\]lib(?:64)?[/\\]python\d"
                        r"[\d.]{0,5}[/\\]|\.egg[/\\]|<frozen |[/\\][Pp]ython\d{2,3}[/\\]"
                        r"[Ll]ib[/\\]")
_CUDA_LITERAL = re.compile(r"\.cuda\(\s{0,3}(?:\d{1,2}\s{0,3})?\)|[\"']cuda(?::\d{1,2})?[\"']"
                           r"|\bdevice\s{0,3}=\s{0,3}[\"']cuda")
_FRAMEWORK_CUDA = re.compile(r"[/\\]torch[/\\]cuda[/\\]|[/\\]torch[/\\]nn[/\\]modules[/\\]"
                             r"module\.py")


def _frames(text: str) -> list[tuple[str, int, str]]:
    """(path, line number, the code line printed under it) of every Python frame."""
    lines = text[:MAX_TEXT].splitlines()
    out = []
    for i, line in enumerate(lines):
        m = _FRAME.match(line) or _FRAME_IPY.match(line)
        if m is None:
            continue
        code = ""
        for follow in lines[i + 1:i + 3]:
            if _FRAME.match(follow) or not follow.strip() or set(follow.strip()) <= {"^", "~"}:
                break
            code = follow.strip().removeprefix("---->").lstrip("0123456789 ")
            break
        out.append((m.group(1), int(m.group(2)), code))
    return out


def _cuda_in_own_code_reason(text: str) -> str | None:
    frames = _frames(text)
    for i, (path, _, _) in enumerate(frames):
        if not _FRAMEWORK_CUDA.search(path) or i == 0:
            continue
        caller, no, code = frames[i - 1]
        if _INSTALLED.search(caller) or not _CUDA_LITERAL.search(code):
            return None
        name = caller.replace("\\", "/").rsplit("/", 1)[-1]
        return (f"The call that asked for CUDA is in the user's own code ({name}, line {no}: "
                f"`{code[:120]}`), not in an installed package: that line hard-codes CUDA.")
    return None


def _api_in_own_code_reason(text: str) -> str | None:
    frames = _frames(text)
    if not frames:
        return None
    path, no, code = frames[-1]  # Python prints the innermost frame last
    if _INSTALLED.search(path):
        return None
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    shown = f": `{code[:120]}`" if code else ""
    return (f"The call that failed is in the user's own code ({name}, line {no}{shown}), not "
            "in an installed package: that code was written for an older release of the API.")


# ---------------------------------------------------------------- source_tree
_MISSING_OPS = re.compile(r"No module named '([A-Za-z_]\w{0,40})\._\w{1,20}'")
_NON_EDITABLE = re.compile(r"(?m)\bpip3? install(?! -e\b)(?! --editable\b)(?:\s+-\S+)*\s+\.\s*$"
                           r"|\bsetup\.py install\b")
_ON_PATH = re.compile(r"\bPYTHONPATH\b|\bsys\.path\.(?:insert|append)\(")


def _source_tree_reason(text: str) -> str | None:
    missing = _MISSING_OPS.search(text[:MAX_TEXT])
    if missing is None:
        return None
    package = missing.group(1)
    inside = [p for p, _, _ in _frames(text)
              if f"/{package}/" in p.replace("\\", "/") and not _INSTALLED.search(p)]
    if not inside:
        return None
    if not (_NON_EDITABLE.search(text[:MAX_TEXT]) or _ON_PATH.search(text[:MAX_TEXT])):
        return None
    path = inside[0].replace("\\", "/")
    folder = path[:path.rfind(f"/{package}/")]
    return (f"Python imports {package} from {folder}/{package}/, a folder outside site-packages "
            f"(the source checkout), while the text installs it as a package or puts that "
            "folder on the path: the checkout, which has no compiled ops, shadows the build.")


# ---------------------------------------------------------------- works_elsewhere
# Phrasings from reports where the import failed only while Python ran inside a source
# checkout (astropy/photutils#89 "works fine in the other directories I tried",
# poke1024/pyalign#5 "goes away when `cd`ing somewhere else", facebookresearch/detectron2#2752
# "after changing the working directory I found it work well").
_WORKED = (r"(?<!not )(?<!n't )(?<!never )(?:works?|worked|work(?:s|ed)? (?:well|fine)|runs? "
           r"(?:fine|ok|well)|ran (?:fine|ok)|no (?:more )?errors?(?: occurs?| appears?)?"
           r"|(?:is|was) (?:fine|ok(?:ay)?)|succeed(?:s|ed)?|imports? (?:fine|ok|correctly|"
           r"successfully)|goes away|went away|disappear(?:s|ed)?|solves?|solved|fix(?:es|ed)?)")
# another directory as a place where Python starts, not another environment or install
_ELSEWHERE = (r"(?:an ?other|a different|any other|the other|other|some other|a separate|the "
              r"parent)\s(?:(?:working|current|source|project)\s)?(?:director(?:y|ies)|folders?"
              r"|dirs?|locations?|places?)\b")
_WORKS_ELSEWHERE = re.compile(
    rf"(?i)\b{_WORKED}\b[^.!?\n]{{0,60}}?\b{_ELSEWHERE}"
    rf"|\b{_ELSEWHERE}[^.!?\n]{{0,50}}?\b{_WORKED}\b"
    # leaving the tree or changing the working directory, then it works
    r"|\b(?:mov(?:e|ed|ing)|cd(?:'?ing|'d)?|go(?:ing)?|get(?:ting)?|step(?:ping)?|leav(?:e|ing)"
    r"|left|exit(?:ed|ing)?) (?:out of|outside(?: of)?|away from) (?:the|its|my|this) "
    r"(?:[\w-]{1,30} ){0,3}?(?:tree|director(?:y|ies)|folder|dir|repo(?:sitory)?|checkout|root)"
    rf"\b[^.!?\n]{{0,40}}?\b{_WORKED}\b"
    rf"|\b{_WORKED}\b[^.!?\n]{{0,30}}? (?:when|after|once|if) (?:I )?[`'\"]?cd[`'\"]?(?:'?ing)? "
    r"(?:somewhere else|elsewhere|out|to (?:an ?other|a different|the parent)|\.\.)"
    r"|\b(?:after|when|once|if) (?:I )?(?:chang|switch|mov)(?:e|ed|ing)? (?:the |my )?"
    r"(?:working |current )?(?:director(?:y|ies)|folder|dir|cwd)\b"
    rf"[^.!?\n]{{0,50}}?\b{_WORKED}\b"
    rf"|[`'\"]?\bcd \.\.[`'\"]?[^.!?\n]{{0,40}}?\b{_WORKED}\b")
# what follows in the same sentence turns it round ("... with no errors, but import fails")
_CONTRADICTED = re.compile(r"(?i)\b(?:but|however|still|yet|fails?|failed|failing|errors? "
                           r"(?:says|is|was)|does ?n[o']t|did ?n[o']t)\b")
# the place that works is another interpreter: an environment, a terminal, a kernel, a machine
_OTHER_PYTHON = re.compile(r"(?i)\b(?:v?envs?|environments?|virtualenvs?|conda|venv|"
                           r"interpreters?|python\d?(?:\.\d{1,2})? (?:install|version)|kernels?|"
                           r"notebooks?|jupyter|terminals?|shells?|consoles?|cmd|powershell|ide|"
                           r"pycharm|vs ?code|machines?|computers?|laptops?|servers?|docker|"
                           r"containers?|colab|install(?:ed|ing)? (?:it |them |\w+ )?(?:in|into|"
                           r"to|at)|site-packages|pip install|--target|--prefix)\b")


def _works_elsewhere_reason(text: str) -> str | None:
    for m in _WORKS_ELSEWHERE.finditer(text[:MAX_TEXT]):
        start = max(text.rfind("\n", 0, m.start()), text.rfind(". ", 0, m.start())) + 1
        ends = [i for i in (text.find("\n", m.end()), text.find(". ", m.end())) if i >= 0]
        sentence = text[start:min(ends) if ends else len(text)]
        if _OTHER_PYTHON.search(sentence) or _CONTRADICTED.search(text[m.end():start + len(sentence)]):
            continue
        said = " ".join(m.group(0).split())
        return (f"The text says the import works from another directory (\"{said}\"): what "
                "Python imports depends on where it starts, so a folder in the working "
                "directory (the package's source checkout or build folder, or one named like "
                "the package) is found before the installed package.")
    return None


# ---------------------------------------------------------------- not_the_package
# "module 'tensorflow' has no attribute 'keras'" where the text states a release of the package
# that has the name: what Python imported under the package's name is not that release (a
# script or folder named like it, tensorflow/tensorflow#28213's tensorflow.py, or a broken
# install), so "install the release the code was written for" is no answer. Names and the
# first release that has them: tf.keras is part of the core API from TensorFlow 1.4.0 (its
# release notes, https://github.com/tensorflow/tensorflow/releases/tag/v1.4.0).
_NAME_SINCE: dict[tuple[str, str], tuple[int, ...]] = {("tensorflow", "keras"): (1, 4)}
_NO_ATTRIBUTE = re.compile(r"""module ['"]([A-Za-z_][\w.]{0,120})['"] has no attribute """
                           r"""['"]?(\w{1,80})""")


def _release_of(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def _not_the_package_reason(text: str) -> str | None:
    head = text[:MAX_TEXT]
    stated = None
    for m in _NO_ATTRIBUTE.finditer(head):
        since = _NAME_SINCE.get((m.group(1), m.group(2)))
        if since is None:
            continue
        if stated is None:
            from envdoctor.explain.textfacts import text_facts
            stated = text_facts(head).versions
        versions = stated.get(m.group(1).split(".")[0], ())
        if versions and all(_release_of(v) >= since for v in versions):
            return (f"The text states {m.group(1)} {versions[0]}, a release that has "
                    f"`{m.group(1)}.{m.group(2)}` (from {'.'.join(map(str, since))} on): what "
                    f"Python imported as `{m.group(1)}` is not that release (a script or folder "
                    f"named `{m.group(1)}` where Python starts, or a broken install).")
    return None


# ---------------------------------------------------------------- cpu_run_stated
# the program or its user says the run is on the CPU: a log line ("[INFO] >>>> using CPU",
# "Using device: cpu"), a command (--device cpu), or prose ("when running X on CPU")
_CPU_RUN = re.compile(r"(?i)(?:\busing (?:the )?CPU\b(?! (?:instead|because|although))"
                      r"|\b(?:run(?:ning|s)?|test(?:ing)?|work(?:ing)?|infer(?:ence|ring)?)\b"
                      r"[ \w-]{0,30}? (?:in|on|with) (?:only )?(?:the )?CPU\b"
                      r"|\bonly (?:use|using|have|with) (?:the |a )?CPU\b"
                      r"|\bdevice ?[:=] ?['\"]?cpu\b|--device[ =]['\"]?cpu\b"
                      r"|\bmachine without (?:a|any) (?:NVIDIA )?GPU\b)")
# the text asks for a GPU after all: a CUDA device, a GPU flag
_GPU_ASKED = re.compile(r"(?i)(?:\bcuda:\d|device ?[:=] ?['\"]?cuda\b|--(?:use_)?gpu\b(?![ =]"
                        r"(?:false|0|-1)\b)|\bmy (?:NVIDIA |GeForce |RTX |GTX )?GPU\b)")


def _cpu_run_reason(text: str) -> str | None:
    """The note when the text says the run is on the CPU and asks for no GPU anywhere: a CUDA
    torch on a machine without a driver is a valid CPU setup, and the code that still reached
    for CUDA is the program's, not the environment's."""
    head = text[:MAX_TEXT]
    m = _CPU_RUN.search(head)
    if m is None or _GPU_ASKED.search(head):
        return None
    from envdoctor.explain.textfacts import text_facts
    if text_facts(head).gpus:
        return None  # an NVIDIA GPU named: a driver problem stays possible
    return (f"The text says the run is on the CPU (\"{m.group(0).strip()}\"): a CUDA build of "
            "torch runs on the CPU without any driver, so the call that still reached for "
            "CUDA is in the program.")


# ---------------------------------------------------------------- the kinds
@dataclass(frozen=True)
class OwnCause:
    """One way the user's own configuration shows in a text."""

    reason: Callable[[str], str | None]
    title: str                 # "{title}" is the signature's own title
    fix: str | None            # None: the signature's own fix stands
    applies: Callable[[Diagnosis], bool] | None = None  # None: the signatures that list it


KINDS: dict[str, OwnCause] = {
    "preload": OwnCause(
        _preload_reason,
        "A library the user preloads (LD_PRELOAD) is what fails to load: a mistyped path, or "
        "a preloaded library whose own dependencies are not here",
        "Check the LD_PRELOAD your command, Dockerfile or shell profile sets: every path must "
        "exist where the process runs (`ls -l <path>`), typed without spaces; `ldd <path>` "
        "shows which of its own dependencies are missing (a plugin built against another "
        "TensorRT/CUDA release needs that release, or a rebuild against the one installed). "
        "Run once with LD_PRELOAD unset to confirm.",
        _is_loader_failure),
    "cuda_in_own_code": OwnCause(
        _cuda_in_own_code_reason,
        "The user's own code hard-codes CUDA on a machine that has none",
        "Choose the device in the code instead of hard-coding CUDA: "
        "`device = torch.device(\"cuda\" if torch.cuda.is_available() else \"mps\" if "
        "torch.backends.mps.is_available() else \"cpu\")` and `.to(device)` instead of "
        "`.cuda()` on the line the traceback shows; nothing needs installing."),
    "api_in_own_code": OwnCause(
        _api_in_own_code_reason,
        "The user's own code calls an API the installed release no longer has: {title}",
        None),
    "works_elsewhere": OwnCause(
        _works_elsewhere_reason,
        "Python imports a folder of the working directory (a source checkout or build folder) "
        "instead of the installed package: the same import works from another directory",
        "Start Python from a folder outside the package's source checkout or build folder "
        "(`cd ..`), and take that folder off `PYTHONPATH` / `sys.path`; from there `python -c "
        "\"import <package>; print(<package>.__file__)\"` must print a site-packages path. "
        "A source build must be installed (`pip install .`, or `pip install -e .` to work on "
        "the checkout itself) before it imports from elsewhere; nothing else needs "
        "installing."),
    "cpu_run_stated": OwnCause(
        _cpu_run_reason,
        "The program reaches for CUDA although the run is on the CPU: {title}",
        "Nothing needs installing for a CPU run: the program (or a library it calls) creates "
        "a CUDA tensor or calls torch.cuda although the CPU was chosen. Report it to the "
        "program, or pass its CPU option explicitly (`device = torch.device(\"cpu\")`, "
        "`map_location=\"cpu\"` when loading a checkpoint saved on a GPU)."),
    "not_the_package": OwnCause(
        _not_the_package_reason,
        "What Python imports under the package's name is not the installed release the text "
        "states (a script or folder of that name, or a broken install): {title}",
        "Find what Python imports: `python -c \"import <package>; print(<package>.__file__, "
        "<package>.__version__)\"` must print the installed copy in site-packages. Rename a "
        "script or folder of the package's name (tensorflow.py, a `tensorflow/` folder where "
        "Python starts) and delete its `__pycache__`; if the path is the installed one, "
        "reinstall the package (`python -m pip install --force-reinstall <package>==<release>`)."),
    "source_tree": OwnCause(
        _source_tree_reason,
        "Python imports the package's source checkout instead of the installed build "
        "(working directory or PYTHONPATH)",
        "Run from a folder outside the checkout (`cd ..`), and take the checkout off "
        "`PYTHONPATH` / `sys.path`; then `python -c \"import <package>; "
        "print(<package>.__file__)\"` must print a site-packages path."),
}


def check_own_cause(raw: object, path: Path | str) -> tuple[str, ...]:
    """Validate a signature's ``own_cause``: a list of the kinds that name signatures."""
    listed = sorted(k for k, v in KINDS.items() if v.applies is None)
    if not isinstance(raw, list) or not raw or not all(k in listed for k in raw):
        raise RuleFileError(path, "own_cause", f"must be a list of {listed}")
    return tuple(raw)


def with_own_causes(text: str, diagnoses: list[Diagnosis]) -> list[Diagnosis]:
    """``diagnoses`` with each environment claim (or usage answer, such as CUDA asked for on a
    Mac) that the text shows to be the user's own configuration re-read as that (see the
    module docstring)."""
    out = []
    for d in diagnoses:
        if d.category in ("environment", "usage"):
            d = _own(text, d)
        out.append(d)
    return out


def _own(text: str, d: Diagnosis) -> Diagnosis:
    listed = d.signature.extra.get("own_cause", ()) if d.signature is not None else ()
    for name, kind in KINDS.items():
        if not (name in listed if kind.applies is None else kind.applies(d)):
            continue
        reason = kind.reason(text)
        if reason is not None:
            return replace(d, category="user_code", title=kind.title.format(title=d.title),
                           fix=d.fix if kind.fix is None else kind.fix,
                           notes=d.notes + (reason,))
    return d


PATTERNS = (_CPU_RUN, _GPU_ASKED, _LOADER_FAILURE, _SHELL_LOADER, _C_RUNTIME, _PRELOAD_SET, _CUT_NAME, _FRAME,
            _FRAME_IPY, _INSTALLED, _CUDA_LITERAL, _FRAMEWORK_CUDA, _MISSING_OPS, _NON_EDITABLE,
            _ON_PATH, _WORKS_ELSEWHERE, _CONTRADICTED, _OTHER_PYTHON, _NO_ATTRIBUTE)
