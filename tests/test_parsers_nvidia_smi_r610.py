"""R610+ nvidia-smi tables, pasted: "KMD Version:" and "CUDA UMD Version:" in the header.

The recorded table is tests/data/tools/nvidia-smi/16-2x-b200-610-kmd-umd-header.txt (its first
line names the thread it came from).
"""

from __future__ import annotations

import io
from pathlib import Path

from envdoctor.parsers import detect, parse_text
from envdoctor.parsers._stream import read_report_text

TABLE = (Path(__file__).resolve().parent / "data" / "tools" / "nvidia-smi" /
         "16-2x-b200-610-kmd-umd-header.txt").read_text(encoding="utf-8")


def test_an_r610_header_gives_the_driver_and_its_cuda():
    facts = parse_text(TABLE)
    assert str(facts.nvidia.driver_version) == "610.43.02"
    assert str(facts.nvidia.cuda_driver_version) == "13.3"
    assert [g.name for g in facts.nvidia.gpus] == ["NVIDIA B200", "NVIDIA B200"]
    assert "nvidia_smi" in detect(TABLE)


def test_an_r610_header_line_alone_is_found_in_a_long_paste():
    noise = "x" * 200_000 + "\n"
    line = "the header said: KMD Version: 610.43.02     CUDA UMD Version: 13.3\n"  # no NVIDIA-SMI
    text, _ = read_report_text(io.BytesIO((noise + line + noise).encode()))
    assert "KMD Version: 610.43.02" in text
    assert str(parse_text(text + "torch==2.9.1\n").nvidia.driver_version) == "610.43.02"
