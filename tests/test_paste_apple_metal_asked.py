"""APPLE006 from a paste without --expect gpu: TensorFlow (2.5 or later) on Apple silicon, itself
asked for its GPUs, answers none, and the text shows no tensorflow-metal. The framework's own
empty answer is what says the GPU was wanted; the plugin listed beside it, or Apple's 2.4 fork
(no plugin existed; ML Compute picked the device), keeps the paste clean. Short excerpts, each
with its thread; the near misses of tests/test_paste_apple_metal_near_misses.py hold too."""

from __future__ import annotations

import pytest

from envdoctor import pipeline
from envdoctor.parsers import parse_pasted

LOUD = ("error", "warning")

# https://github.com/tensorflow/tensorflow/issues/63854 (the issue form as first read by the TF
# team, whose answer was to install tensorflow-metal for the Apple GPU)
FORM_NO_PLUGIN = """\
OS platform and distribution: Mac OS 14.3.1 Apple M3 Pro
TensorFlow version: 2.16.1
>>> tf.config.list_physical_devices('GPU')
[]
"""

# the same thread after the reporter's reply: tensorflow-metal is installed, so the cause lies
# elsewhere (must not fire)
FORM_WITH_PLUGIN = """\
OS platform and distribution: Mac OS 14.3.1 Apple M3 Pro
TensorFlow version: 2.16.1
$ pip list
Package            Version
------------------ -------
tensorflow         2.16.1
tensorflow-metal   1.1.0
>>> tf.config.list_physical_devices('GPU')
[]
"""

# https://github.com/apple/tensorflow_macos/issues/5 (tensorflow_macos 0.1alpha, TF 2.4, on an AMD
# Radeon Pro 5500M MacBook Pro: ML Compute selects the device; the empty list is by design)
FORK_24 = """\
16-inch MacBook Pro, AMD Radeon Pro 5500M, tensorflow_macos 0.1alpha0 (TensorFlow 2.4)
tf.config.list_physical_devices('GPU')
Out[1]: []
"""


def _loud(text: str) -> list[str]:
    facts = parse_pasted(text)
    found = [] if facts is None else pipeline.diagnose(facts).findings
    return [f.code for f in found if f.severity.value in LOUD]


def test_an_empty_gpu_list_without_the_plugin_names_it():
    assert "APPLE006" in _loud(FORM_NO_PLUGIN)


@pytest.mark.parametrize("text", [FORM_WITH_PLUGIN, FORK_24], ids=["plugin-listed", "tf-2.4-fork"])
def test_the_plugin_present_or_the_fork_is_not_named(text):
    assert "APPLE006" not in _loud(text)
