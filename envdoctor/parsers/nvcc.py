"""``nvcc --version``: the CUDA toolkit that PATH picks (not the driver's "CUDA Version")."""

from __future__ import annotations

import re

from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import ver

NAME = "nvcc"
RANK = 85

RELEASE = re.compile(r"Cuda compilation tools,\s*release\s+(\d+\.\d+)(?:,\s*V(\d+\.\d+\.\d+))?",
                     re.IGNORECASE)
# the CUDA that compiled an installed extension's ops, as its own environment report prints it:
# detectron2's collect_env ("Detectron2 CUDA Compiler  10.0", facebookresearch/detectron2#693;
# later "CUDA compiler           CUDA 10.0", #251, or the compiler's own release line, #4958) and
# mmcv's ("MMCV CUDA Compiler: 10.1"). Not PATH's nvcc: the one the ops were built with.
BUILT_BY = re.compile(r"^[\s>*-]{0,6}(?:(detectron2|mmcv|mmdet(?:ection)?)[ _])?CUDA [Cc]ompiler"
                      r"(?: version)?\s*[:|]?\s+(?:CUDA\s+|Cuda compilation tools,\s*release\s+)?"
                      r"(\d{1,2}\.\d)(?![\d])", re.IGNORECASE | re.MULTILINE)
# the text builds an extension here, with PATH's nvcc: "build from source", "compiling mmcv
# from source" (open-mmlab/mmcv#1055), "python setup.py install|develop|build_ext", a pip
# install of a git+ URL (facebookresearch/detectron2#4343)
FROM_SOURCE = re.compile(r"(?i)\b(?:build|built|building|compil(?:e|ed|ing)|install(?:ed|ing)?)\s"
                         r"(?:[\w-]{1,30}\s){0,3}from\s(?:the\s)?source\b|\bsetup\.py\s(?:install|develop|"
                         r"build(?:_ext)?|bdist_wheel)\b|\bpip3?\sinstall\s[^\n]{0,40}?['\"]?git\+https?://"
                         # the build's own failure: pip's "Failed building wheel for mmcv-full"
                         # (open-mmlab/mmcv#2102), "nvcc compilation fails", setuptools' "error:
                         # command '/usr/local/cuda/bin/nvcc' failed"
                         r"|\bFailed building wheel for\b|\bnvcc compilation fail|"
                         r"\berror: command '[^'\n]{0,200}nvcc(?:\.exe)?' failed")
NOT_FOUND = re.compile(r"nvcc:\s*(?:command )?not found|'nvcc' is not recognized|"
                       r"Command 'nvcc' not found", re.IGNORECASE)


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    m = RELEASE.search(text)
    if m:
        part.set("cuda.nvcc_version", ver(m.group(2) or m.group(1)))
        # from the start of a path token only (lookbehind): a lazy scan from every "/" of a
        # long line would be quadratic
        p = re.search(r"(?<![\w./+-])(/[\w./+-]*?/bin/nvcc|[A-Za-z]:\\[^\s\"']*?\\bin\\nvcc"
                      r"(?:\.exe)?)\b", text) if "nvcc" in text else None
        if p:
            part.set("cuda.nvcc_path", p.group(1))
    b = BUILT_BY.search(text) if "ompiler" in text else None
    if b:
        # the extension's build nvcc stands for nvcc where the report shows no other
        part.set("cuda.nvcc_version", ver(b.group(2)))
        part.set("cuda.extension_build", (b.group(1) or "").lower())
        part.set("cuda.extension_cuda", ver(b.group(2)))
    elif m and FROM_SOURCE.search(text):
        part.set("cuda.extension_build", "source")
        part.set("cuda.extension_cuda", ver(m.group(1)))
    if m or b:
        return part
    if NOT_FOUND.search(text):
        part.absent["cuda"] = "nvcc is not on PATH"
    return part
