"""A printed ``tf.sysconfig.get_build_info()`` (a dict or an ``OrderedDict([...])``).

On Windows the CUDA and cuDNN entries are DLL suffixes ("64_112", "64_8"), so they are
decoded: "64_112" is CUDA 11.2 and "64_8" is cuDNN 8.
"""

from __future__ import annotations

import re

from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import ver

NAME = "tf_build_info"
RANK = 75

_ITEM = re.compile(r"['\"](\w+)['\"]\s*[,:]\s*(\[[^\]]*\]|'[^']*'|\"[^\"]*\"|True|False|None)",
                   re.DOTALL)


def _decode(value: str):
    value = value.strip("'\"")
    m = re.fullmatch(r"64_(\d+)", value)
    if m:
        digits = m.group(1)
        return ver(f"{digits[:-1]}.{digits[-1]}") if len(digits) >= 2 else ver(digits)
    return ver(value)


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    items = {m.group(1): m.group(2) for m in _ITEM.finditer(text)}
    if "is_cuda_build" not in items and not ({"cuda_version", "cudnn_version"} <= items.keys()):
        return part
    p = "frameworks.tensorflow."
    for key in ("is_cuda_build", "is_rocm_build"):
        if items.get(key) in ("True", "False"):
            part.set(p + key, items[key] == "True")
    if "cuda_version" in items:
        part.set(p + "cuda", _decode(items["cuda_version"]))
    if "cudnn_version" in items:
        part.set(p + "cudnn", _decode(items["cudnn_version"]))
    caps = items.get("cuda_compute_capabilities", "")
    archs = tuple(re.findall(r"(?:sm|compute)_\d+[a-z]?", caps))
    if archs:
        part.set(p + "compute_capabilities", archs)
    return part
