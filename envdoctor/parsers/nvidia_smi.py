"""The default ``nvidia-smi`` table, its error messages, and ``nvidia-smi -L``.

The header's "CUDA Version" is the newest CUDA the *driver* supports, not an installed toolkit
(``nvidia.cuda_driver_version``). GPU rows look like ``|   0  Tesla T4   Off  | 00000000:00:04.0
Off |  0 |`` (names may be cut to "NVIDIA GeForce RTX 4090 ..."), followed by a memory row and,
since driver 450, a row whose last cell is the MIG mode. Pasted tables are often cut short: a
header alone still gives the driver.
"""

from __future__ import annotations

import re

from envdoctor.facts import Gpu
from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import ver
from envdoctor.parsers.gpus import clean_name

NAME = "nvidia_smi"
RANK = 80

# R610+ drivers write "KMD Version:" (kernel-mode driver) and "CUDA UMD Version:" where earlier
# ones wrote "Driver Version:" and "CUDA Version:" (sgl-project/sglang#27487)
HEADER_DRIVER = re.compile(r"(?:Driver|KMD) Version:\s*(\d+\.\d+(?:\.\d+)?)")
HEADER_CUDA = re.compile(r"CUDA (?:UMD )?Version:\s*(\d+\.\d+)")
SMI_VERSION = re.compile(r"NVIDIA-SMI\s+(\d+\.\d+(?:\.\d+)?)")
GPU_ROW = re.compile(
    r"^\|?\s*(\d{1,2})\s+(.+?)\s+(On|Off|WDDM|TCC|MCDM|N/A)\s*\|\s*"
    r"([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])")
MAX_ROW = 512  # characters: a real table row is ~120; longer lines are not matched as rows
MEM = re.compile(r"(\d+)\s*MiB\s*/\s*(\d+)\s*MiB")
LIST_ROW = re.compile(r"^\s*GPU\s+(\d+):\s+(.+?)\s+\(UUID:\s*(GPU-[0-9a-fA-F-]+)\)")
ERRORS = (
    (re.compile(r"Failed to initialize NVML:\s*(.+)", re.IGNORECASE), "nvml"),
    (re.compile(r"NVIDIA-SMI has failed because it couldn'?t communicate with the NVIDIA "
                r"driver", re.IGNORECASE), "no-driver"),
    (re.compile(r"nvidia-smi:\s*(?:command )?not found|'nvidia-smi' is not recognized",
                re.IGNORECASE), "no-smi"),
    (re.compile(r"No devices were found", re.IGNORECASE), "no-devices"),
)


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    lines = text.split("\n")
    header = False
    for line in lines:
        m = HEADER_DRIVER.search(line)
        if m and ("NVIDIA-SMI" in line or HEADER_CUDA.search(line) or "|" in line):
            header = True
            part.set("nvidia.driver_version", ver(m.group(1)))
            c = HEADER_CUDA.search(line)
            if c:
                part.set("nvidia.cuda_driver_version", ver(c.group(1)))
    for i, line in enumerate(lines):
        if len(line) > MAX_ROW:  # not a table row; and (.+?)\s+ on a long run is quadratic
            continue
        m = GPU_ROW.match(line.strip())
        if m:
            gpu = Gpu(index=int(m.group(1)), name=clean_name(m.group(2)),
                      persistence_mode={"On": True, "Off": False}.get(m.group(3)))
            follow = lines[i + 1:i + 3]
            mem = MEM.search(follow[0]) if follow and len(follow[0]) <= MAX_ROW else None
            if mem:
                gpu = _with(gpu, memory_used_mb=int(mem.group(1)),
                            memory_total_mb=int(mem.group(2)))
            if header and len(follow) > 1 and follow[1].strip().startswith("|"):
                cells = [c.strip() for c in follow[1].strip().strip("|").split("|")]
                mig = cells[-1] if cells else ""
                gpu = _with(gpu, mig_mode={"Enabled": True, "Disabled": False}.get(mig))
            part.gpus.append(gpu)
            continue
        m = LIST_ROW.match(line)
        if m:
            part.gpus.append(Gpu(index=int(m.group(1)), name=clean_name(m.group(2)),
                                 uuid=m.group(3)))
    if not part.values and not part.gpus:
        _errors(part, text)
    return part


def _with(gpu: Gpu, **changes) -> Gpu:
    from dataclasses import replace
    return replace(gpu, **changes)


def _errors(part: Partial, text: str) -> None:
    for pattern, kind in ERRORS:
        m = pattern.search(text)
        if not m:
            continue
        if kind == "nvml":
            part.set("nvidia.nvml_error", m.group(1).strip())
            part.absent["nvidia"] = "nvidia-smi: Failed to initialize NVML: " + m.group(1).strip()
        elif kind == "no-driver":
            part.absent["nvidia"] = "nvidia-smi could not communicate with the NVIDIA driver"
        elif kind == "no-smi":
            part.absent["nvidia"] = "nvidia-smi is not installed"
        else:
            part.absent["nvidia"] = "nvidia-smi found no devices"
        return
