"""Near misses of "TensorFlow on Apple silicon without tensorflow-metal" (APPLE006) read from
pastes: a Mac running TensorFlow on the CPU without being asked for a GPU, and Apple's
tensorflow_macos 2.4 fork (ML Compute picks the device; it has no tensorflow-metal and its
list_physical_devices('GPU') is empty by design). Whatever teaches APPLE006 to fire on a
paste (a complete listing as evidence of absence, the framework's own empty GPU list as the
user expecting the GPU) must keep these clean. Short excerpts, each with its thread."""

from __future__ import annotations

import pytest

from envdoctor import pipeline
from envdoctor.parsers import parse_pasted

LOUD = ("error", "warning")

# https://github.com/tensorflow/tensorflow/issues/63495 (a maintainer's reproduction: tensorflow
# imports on macOS 14.7.5; a whole `pip list`, no tensorflow-metal, no GPU asked for)
CPU_BY_CHOICE = """\
% sw_vers
ProductName:            macOS
ProductVersion:         14.7.5
BuildVersion:           23H527
% pip list
Package                      Version
---------------------------- ---------
absl-py                      2.3.0
astunparse                   1.6.3
keras                        3.10.0
numpy                        1.26.4
"""

# https://github.com/apple/tensorflow_macos/issues/70 (tensorflow_macos 0.1alpha, TF 2.4: Apple's
# maintainer answers that ML Compute selects the device; the empty list is expected)
FORK_EMPTY_LIST = """\
No GPU found when execute "tf.config.list_physical_devices('GPU')"
import tensorflow as tf
tf.config.list_physical_devices('GPU')
the result is:
[]
"""


def _loud(text: str) -> list[str]:
    facts = parse_pasted(text)
    found = [] if facts is None else pipeline.diagnose(facts).findings
    return [f.code for f in found if f.severity.value in LOUD]


@pytest.mark.parametrize("text", [CPU_BY_CHOICE, FORK_EMPTY_LIST], ids=["cpu-by-choice", "tf-2.4-fork"])
def test_a_mac_without_tensorflow_metal_that_wants_no_plugin_is_clean(text):
    assert _loud(text) == []
