"""``nvidia-smi --query-gpu=… --format=csv`` with its fields in any order.

The reader only recognised a header that began with index/name/timestamp and named "name" a
second time, so ``compute_cap, compute_mode, driver_version, name, index`` (fields in the order
the user asked) or ``name, driver_version, memory.total [MiB]`` gave no driver and no GPUs.
"""

from __future__ import annotations

from envdoctor import pipeline
from envdoctor.parsers import nvidia_smi_q, parse_pasted

# https://github.com/triton-inference-server/server/pull/8070 (the "After:" output)
TRITON_8070 = """$ nvidia-smi --query-gpu=compute_cap,compute_mode,driver_version,name,index --format=csv
compute_cap, compute_mode, driver_version, name, index
7.0, Default, 570.86.15, NVIDIA TITAN V, 0
8.9, Default, 570.86.15, NVIDIA RTX 5880 Ada Generation, 1
"""


def test_fields_in_any_order_are_read():
    facts = parse_pasted(TRITON_8070)
    assert str(facts.nvidia.driver_version) == "570.86.15"
    assert [g.name for g in facts.nvidia.gpus] == ["NVIDIA TITAN V",
                                                  "NVIDIA RTX 5880 Ada Generation"]
    assert [str(g.cc) for g in facts.nvidia.gpus] == ["7.0", "8.9"]
    found = pipeline.diagnose(facts).findings
    assert {f.code for f in found if f.severity.value in ("error", "warning")} == set()


def test_unit_suffixed_memory_cells_are_read():
    # the same rows with a memory.total column as nvidia-smi prints it (unit in header and cell)
    text = TRITON_8070.replace("name, index\n", "name, index, memory.total [MiB]\n") \
        .replace("TITAN V, 0\n", "TITAN V, 0, 12288 MiB\n") \
        .replace("Generation, 1\n", "Generation, 1, 49140 MiB\n")
    part = nvidia_smi_q.parse(text)
    assert [g.memory_total_mb for g in part.gpus] == [12288, 49140]


def test_other_csv_headers_are_not_gpu_tables():
    # a CSV that names "name" but no nvidia-smi field; a lone compute_cap column; a driver
    # column without names gives the driver and no GPU
    assert not nvidia_smi_q.parse("name, version, license\nnumpy, 1.26.4, BSD\n")
    assert not nvidia_smi_q.parse("compute_cap\n8.9\n")
    no_name = nvidia_smi_q.parse("driver_version, compute_cap\n535.104.05, 8.9\n")
    assert not no_name.gpus and str(no_name.values["nvidia.driver_version"]) == "535.104.05"
