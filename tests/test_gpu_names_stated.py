"""GPU names a report states, read as their compute capability (rules/matrices/gpus.toml).

Laptop, Quadro and Kepler GeForce names are what pasted reports of old or small GPUs carry;
each pair below is one a framework printed itself (name and capability side by side).
"""

from __future__ import annotations

from envdoctor.matrices.gpus import lookup_gpu


def _cc(name: str) -> str | None:
    row = lookup_gpu(name)
    return None if row is None else str(row["cc"])


def test_names_frameworks_printed_with_their_capability() -> None:
    # tensorflow/tensorflow#42052: "name: GeForce 940MX computeCapability: 5.0"
    assert _cc("GeForce 940MX") == "5.0"
    # pytorch/pytorch#31007's nvidia-smi table names a GeForce GTX 780 (Kepler GK110)
    assert _cc("GeForce GTX 780") == "3.5"


def test_variants_of_another_generation_are_not_matched() -> None:
    assert _cc("GeForce GTX 780M") is None        # a GK104 laptop part (3.0)
    assert _cc("GeForce GTX 670M") is None        # Fermi
    assert _cc("GeForce GT 730M") is None         # mobile, not the desktop GK208
    assert _cc("NVIDIA GeForce GTX 1660 Ti") == "7.5"   # not the GTX 660 row
    assert _cc("NVIDIA T4000") == "11.0"          # Jetson Thor, not the T400 row
    assert _cc("Quadro M2000M") == "5.0" and _cc("Quadro M2000") == "5.2"
