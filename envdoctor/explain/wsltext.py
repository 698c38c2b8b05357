"""Readings of a WSL text's own facts: the memory Linux reports inside the WSL 2 VM against the
PC's RAM the reporter states (EWSL026's cap read from the numbers, not from a kill)."""
from __future__ import annotations

import re

MAX_TEXT = 1 << 20

# What Linux inside the VM reports as its total memory, in MiB (value, unit factor to MiB):
# neofetch "Memory: 109MiB / 7958MiB", top "MiB Mem :  11892.8 total", free "Mem:  7.8G ..."
# (free -h) or "Mem:  32645 ..." (free -m), /proc/meminfo "MemTotal: 8131920 kB", ComfyUI's
# banner "Total VRAM 8151 MB, total RAM 7574 MB", htop "Mem[|||  1.2G/7.7G]".
_LINUX_TOTAL: tuple[tuple[re.Pattern[str], float | None], ...] = (
    (re.compile(r"(?im)^\s{0,8}Memory:\s{0,4}\d+(?:\.\d+)?\s?MiB\s{0,3}/\s{0,3}(\d+(?:\.\d+)?)\s?MiB\b"), 1.0),
    (re.compile(r"(?m)^\s{0,8}MiB Mem\s{0,3}:\s{0,8}(\d+(?:\.\d+)?)\s{1,4}total\b"), 1.0),
    (re.compile(r"(?m)^\s{0,8}Mem:\s{1,20}(\d+(?:\.\d+)?)(Gi?|Mi?|Ti?)?\s{1,20}\d"), None),
    (re.compile(r"(?m)^\s{0,8}MemTotal:\s{1,20}(\d{5,12})\s?kB\b"), 1.0 / 1024),
    (re.compile(r"\btotal RAM (\d{3,8}) ?MB\b"), 1.0),
    (re.compile(r"\bMem\[[|\s]{0,200}\d+(?:\.\d+)?[GM]/(\d+(?:\.\d+)?)G\]"), 1024.0),
    # in words: "free ... it only shows 32GB", "wsl uses only 8gigs"
    (re.compile(r"(?i)\b(?:free|htop|top|wsl ?2?|ubuntu|the vm)\b[^\n.]{0,60}?\b(?:(?:only|just) "
                r"(?:shows?|has|uses?|sees?|gets?|reports?|recogni[sz]es)|(?:shows?|has|uses?|sees?|"
                r"gets?|reports?|recogni[sz]es) (?:only|just))\s(?:about |around |~)?(\d{1,4}) ?"
                r"(?:gb|gib|g|gigs?)\b"), 1024.0),
)
_FREE_UNITS = {"G": 1024.0, "Gi": 1024.0, "M": 1.0, "Mi": 1.0, "T": 1024.0 * 1024, "Ti": 1024.0 * 1024}

# The PC's RAM in the reporter's words: "The computer has 128 Gb RAM", "I have 32gb memory in my
# system", "My notebook has 16gb of ram", "64GB of RAM on my computer"
_HOST_RAM = re.compile(
    r"(?i)\b(?:has|have|having|with|got)\s(?:a |only )?(\d{1,4}) ?(?:gb|gib|g|gigs?)\b(?: of)?"
    r"(?: physical| installed| system)? (?:ram|memory)\b"
    r"|\b(?:machine|computer|pc|laptop|notebook|desktop|workstation) (?:has|with) (\d{1,4}) ?(?:gb|gib|g)\b")


def _linux_total_mib(text: str) -> float | None:
    totals: list[float] = []
    for rx, factor in _LINUX_TOTAL:
        for m in rx.finditer(text):
            value = float(m.group(1))
            if factor is None:
                unit = m.group(2)
                value *= _FREE_UNITS.get(unit, 1.0) if unit else 1.0
            else:
                value *= factor
            if value > 0:
                totals.append(value)
    return max(totals) if totals else None


def memory_below_host_reason(text: str) -> str | None:
    """The note when a text that names WSL shows the total memory Linux reports inside the VM
    and states the PC's RAM in words, and the VM's total is well under the PC's (below 5/8 of
    it: WSL 2's default cap is half the RAM, 8 GB on builds 20175 to the 2023 releases)."""
    head = text[:MAX_TEXT]
    from envdoctor.explain.platforms import load_platforms
    wsl = load_platforms().get("wsl")
    if wsl is None or wsl.named_in(head) is None:
        return None
    total = _linux_total_mib(head)
    if total is None:
        return None
    host = [int(m.group(1) or m.group(2)) for m in _HOST_RAM.finditer(head)]
    host = [h for h in host if 4 <= h <= 4096]
    if not host:
        return None
    pc_gib = max(host)
    vm_gib = total / 1024
    if vm_gib >= pc_gib * 0.625:
        return None
    return (f"Linux inside WSL reports about {vm_gib:.1f} GiB of memory while the text says the PC "
            f"has {pc_gib} GB: the WSL 2 VM's memory cap, not the PC's RAM.")
