"""pip's torch/torchvision conflict line is printed between two installs: where the same
command line installs the torch it names and then the companion (whose wheel pins its torch),
the mismatch lasted between the two commands, and ETORCH008 stays at low confidence (no finding
in `check --from`). A conflict with nothing installed after it, or a companion installed with
--no-deps, is a real mismatch."""

from __future__ import annotations

from envdoctor.explain import diagnose_text
from envdoctor.explain.stated import pip_conflict_transient

CONFLICT = ("ERROR: torchvision 0.13.0 has requirement torch==1.12.0, but you'll have torch "
            "1.13.1 which is incompatible.\n")
# synthetic: one command line that installs torch 1.13.1 and then torchvision 0.14.1 (the pair)
TRANSIENT = CONFLICT + ("\n!pip install torch==1.13.1 && pip install torchvision==0.14.1\n")
NO_DEPS = CONFLICT + ("\n!pip install torch==1.13.1 && pip install --no-deps torchvision==0.14.1\n")
# synthetic: the companion installed after it does not pair with that torch either
OTHER = CONFLICT + ("\n!pip install torch==1.13.1 && pip install torchvision==0.12.0\n")
# pytorch/vision#2098: one command installs both from a nightly index; the pair pip is left
# with is the mismatch itself
NIGHTLY = """ERROR: torchvision 0.6.0 has requirement torch==1.5.0, but you'll have torch 1.6.0.dev20200413 which is incompatible.

pip install numpy
pip install --pre torch torchvision -f https://download.pytorch.org/whl/nightly/cu101/torch_nightly.html
"""


def _etorch008(text: str) -> str:
    found = {d.code: d.confidence for d in diagnose_text(text)}
    assert "ETORCH008" in found
    return found["ETORCH008"]


def test_the_same_command_installing_the_matching_companion_is_transient() -> None:
    assert pip_conflict_transient("torchvision", TRANSIENT)
    assert _etorch008(TRANSIENT) == "low"


def test_a_conflict_without_a_later_matching_install_stays_a_mismatch() -> None:
    for text in (CONFLICT, NO_DEPS, OTHER, NIGHTLY):
        assert pip_conflict_transient("torchvision", text) is None
        assert _etorch008(text) == "high"
