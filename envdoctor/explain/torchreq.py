"""A reading of a text's own facts: the torch it states as installed is older than the minimum
torch it states a project or package requires (transformers' "PyTorch >= 2.1 is required but
found 2.0.1", pip's "has requirement torch>=1.0.0, but you'll have torch 0.4.0", a reporter's
"the requirements ask for torch >= 1.6 and I use torch 1.4", said in English or Chinese).

Where it holds, an error that reads as a torch build without a feature (EDIST004's "Distributed
package doesn't have NCCL built in") is first the code needing a newer torch than the one
installed: the text names that cause itself, so the build's missing feature is not claimed.
"""
from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

MAX_TEXT = 1 << 20

_V = r"(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)"
# ASCII boundaries: Chinese prose runs straight into the name ("我用的torch版本")
_TORCH = r"(?<![A-Za-z0-9_-])(?:py)?torch(?![A-Za-z0-9_-])"

# a stated minimum: "torch>=1.6", "PyTorch >= 2.1 is required", "pytorch>2.1", "torch 1.6 or
# higher", "at least torch 1.6", "要求是大于1.6" / "需要1.6以上" on a line that names torch
_MINIMUM = (
    re.compile(rf"(?i){_TORCH}\s?(?:version\s)?(?:>=|≥|>|＞|=>)\s?v?{_V}"),
    re.compile(rf"(?i){_TORCH}\s?(?:version\s)?v?{_V}\s?(?:\+|or (?:higher|newer|later|above|greater)"
               r"|and (?:higher|newer|later|above))"),
    re.compile(rf"(?i)\b(?:at least|minimum(?: of)?)\s(?:py)?torch\s?(?:version\s)?v?{_V}"),
)
_MINIMUM_ZH = (
    re.compile(rf"(?:要求|需要|依赖|必须)[^\n。，,；;]{{0,16}}?(?:大于|高于|不低于|>=|≥|>|＞)(?:等于)?\s?v?{_V}"),
    re.compile(rf"(?:要求|需要|依赖|必须)[^\n。，,；;]{{0,16}}?{_V}\s?(?:及)?以上"),
)
_NAMES_TORCH = re.compile(rf"(?i){_TORCH}")

# the installed one: the requirement check's own "required but found 2.0.1" / "but you'll have
# torch 0.4.0", or the reporter's "I use torch 1.4", "my pytorch version is 1.4", "我用的torch
# 版本是1.4", "torch版本为1.4", "PyTorch version: 1.4.0"
_INSTALLED = (
    re.compile(rf"(?i)\brequired\b[^\n]{{0,12}}\bbut found\s(?:version\s)?v?{_V}"),
    re.compile(rf"(?i)\bbut you(?:'ll| will)? have (?:py)?torch\s{_V}"),
    re.compile(rf"(?i)\b(?:I(?:'m| am)? us(?:e|ing)|I(?:'ve| have)(?: installed)?|I installed|my|"
               rf"installed|current(?:ly)?)\s(?:the\s)?{_TORCH}(?:\sversion)?(?:\sis|\s?[:=])?\s?v?{_V}"),
    re.compile(rf"(?i)\b{_TORCH} version(?: installed)?(?:\sis|\s?:)\s?v?{_V}"),
    re.compile(rf"(?:我用的|我的|我使用的|使用的|用的是|当前的?|安装的|本地的?)\s?(?i:(?:py)?torch)\s?"
               rf"(?:的)?(?:版本)?\s?(?:是|为|:|：)?\s?v?{_V}"),
    re.compile(rf"(?i:(?:py)?torch)\s?(?:的)?版本\s?(?:是|为|:|：)\s?v?{_V}"),
)


# a check's own verdict, naming only the minimum: "Torch version is lower than 2.3.0", "Torch 版本低于
# 2.3.0" (kohya's trainer), "torch version too old, need >= 1.6"
_BELOW = (
    re.compile(rf"(?i){_TORCH}\s?version\s(?:is\s)?(?:lower|older|less)\sthan\s(?:the\s(?:required|minimum)\s)?v?{_V}"),
    re.compile(rf"(?i:(?:py)?torch)\s?(?:的)?\s?版本\s?(?:低于|小于|早于)\s?v?{_V}"),
)


def _version(raw: str) -> Version | None:
    try:
        return Version(raw)
    except InvalidVersion:
        return None


def _minima(text: str) -> list[Version]:
    found: list[Version] = []
    for rx in _MINIMUM:
        found += [v for m in rx.finditer(text) if (v := _version(m.group(1))) is not None]
    for line in text.splitlines():
        if _NAMES_TORCH.search(line) is None:
            continue
        for rx in _MINIMUM_ZH:
            found += [v for m in rx.finditer(line) if (v := _version(m.group(1))) is not None]
    return found


def _installed(text: str) -> list[Version]:
    found: list[Version] = []
    for rx in _INSTALLED:
        found += [v for m in rx.finditer(text) if (v := _version(m.group(1))) is not None]
    return found


def below_required_reason(text: str) -> str | None:
    """The note when the text states the installed torch and a minimum torch that a project or
    package requires, and every installed torch it states is below that minimum; None when it
    states either not at all, or an installed torch that meets it."""
    head = text[:MAX_TEXT]
    for rx in _BELOW:
        m = rx.search(head)
        if m is not None and _version(m.group(1)) is not None:
            return (f"The text states that the installed torch is older than {m.group(1)}, the "
                    "release the code needs: upgrade torch (with torchvision/torchaudio of the "
                    "same release), or use the project's release for this torch, before anything "
                    "its error names about the build.")
    minima = _minima(head)
    if not minima:
        return None
    need = max(minima)
    installed = [v for v in _installed(head) if v not in minima]
    if not installed or any(v >= need for v in installed):
        return None
    have = max(installed)
    return (f"The text states torch {have} installed, while the code it runs requires torch >= "
            f"{need}: the installed torch is older than the code needs (upgrade torch, with "
            "torchvision/torchaudio of the same release, or use the project's release for this "
            "torch), before anything its error names about the build.")
