"""Facts stated in two-column Markdown tables and the ROCm field of issue forms.

A report's table (``| ROCm | 4.1.1 |``) states what a bullet line (``- ROCm: 4.1.1``) states;
tables of more columns (compatibility matrices, benchmark grids) state no one machine and are
not read. The ROCm field is one release or nothing.
"""

from __future__ import annotations

from envdoctor.parsers import parse_parts, parse_text


def _values(text: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for part in parse_parts(text):
        if part.source == "system_info":
            out.update(part.values)
    return out


# https://github.com/ROCm/legacy-rocm-build/issues/4345 (the ROCm issue form)
FORM_BARE = """### Operating System

Ubuntu

### CPU

9800X3D

### GPU

Radeon 7900XT

### ROCm Version

6.3.2
"""

# https://github.com/ROCm/legacy-rocm-build/issues/3452
FORM_NAMED = """### Operating System

Ubuntu 22.04.4 LTS (Jammy Jellyfish)

### CPU

AMD Ryzen 9 3950X 16-Core Processor

### GPU

AMD Radeon RX 7900 XTX

### ROCm Version

ROCm 6.1.0
"""

# https://github.com/ROCm/legacy-rocm-build/issues/2831: several releases ticked
FORM_SEVERAL = """### Operating System

Ubuntu 23.04

### CPU

AMD Ryzen 5 4500 6-Core Processor

### GPU

AMD Instinct MI300X, AMD Instinct MI300A, AMD Instinct MI250X

### ROCm Version

ROCm 6.0.0, ROCm 5.7.1
"""

# https://github.com/ROCm/legacy-rocm-build/issues/4392: none
FORM_NONE = """### Operating System

Linux 5.15.167.4-microsoft-standard-WSL2 #1 SMP Tue Nov 5 00:21:55 UTC 2024

### CPU

AMD Ryzen 7 5700G with Radeon Graphics            3.80 GHz

### GPU

AMD Radeon RX 6600 XT

### ROCm Version

NOT APPLICABLE
"""

# the same facts as an issue's two-column tables (the shape of an "Environment" section with
# a hardware and a software table)
TABLES = """### Environment

| Hardware | description   |
|----------|---------------|
| GPU      | AMD Radeon RX 7900 XTX |
| CPU      | AMD Ryzen 9 3950X |

| Software | version |
|----------|---------|
| OS       | Ubuntu 22.04.4 LTS      |
| ROCm     | 6.1.0      |
| Python   | 3.10      |
"""

# https://github.com/AMD-AGI/GEAK/pull/369: a compatibility matrix (four columns, several
# releases per cell) states no machine
MATRIX = """| AMD Instinct GPU | ROCm version | Python | OS |
|---|---|---|---|
| MI300X, MI325X, MI355X| 6.4, 7.0, 7.1, 7.2 | 3.8, 3.12 | Ubuntu 22.04, Ubuntu 24.04 |
"""


def test_issue_form_rocm_release_is_read() -> None:
    assert str(_values(FORM_BARE)["rocm.version"]) == "6.3.2"
    assert str(_values(FORM_NAMED)["rocm.version"]) == "6.1.0"


def test_issue_form_several_or_no_rocm_release_states_none() -> None:
    assert "rocm.version" not in _values(FORM_SEVERAL)
    assert "rocm.version" not in _values(FORM_NONE)


def test_two_column_table_reads_like_bullets() -> None:
    values = _values(TABLES)
    assert str(values["rocm.version"]) == "6.1.0"
    assert str(values["host.python_version"]) == "3.10"
    assert values["host.os"] == "Linux"
    facts = parse_text(TABLES)
    assert facts is not None and str(facts.rocm.version) == "6.1.0"


def test_wider_tables_are_not_read() -> None:
    assert _values(MATRIX) == {}


def test_form_gpu_field_lists_each_amd_gpu() -> None:
    several = _values(FORM_SEVERAL)["rocm.gpus"]
    assert [name for name, _ in several] == [  # type: ignore[attr-defined]
        "AMD Instinct MI300X", "AMD Instinct MI300A", "AMD Instinct MI250X"]
    assert dict(several)["AMD Instinct MI300X"] == "gfx942"  # type: ignore[call-overload]
    one = _values(FORM_NONE)["rocm.gpus"]
    assert [name for name, _ in one] == ["AMD Radeon RX 6600 XT"]  # type: ignore[attr-defined]
    facts = parse_text(FORM_SEVERAL)
    assert facts is not None and len(facts.rocm.gpus) == 3


def test_form_gpu_field_with_other_words_lists_none() -> None:
    # a CPU's integrated graphics or prose in the field is no list of AMD GPUs
    text = FORM_NONE.replace("AMD Radeon RX 6600 XT", "AMD Ryzen 7 5700G with Radeon Graphics")
    assert "rocm.gpus" not in _values(text)
