"""Facts a person wrote in a paste (an issue form, prose) are *stated*: rules read them as they
read observed ones, and a finding that rests on them says so."""

from __future__ import annotations

from envdoctor import pipeline
from envdoctor.facts.states import State, state_of
from envdoctor.parsers import parse_pasted

FORM = """### TensorFlow version

2.15.0

### OS platform and distribution

Windows 11

### Python version

3.11

### GPU model and memory

NVIDIA GeForce RTX 3070 8GB
"""
TOOL = """- `transformers` version: 4.41.2
- Platform: Windows-10-10.0.22631-SP0
- Python version: 3.11.9
- PyTorch version (GPU?): 2.3.1+cu121 (True)
"""


def test_an_issue_form_is_stated_and_the_finding_says_so():
    facts = parse_pasted(FORM)
    assert facts is not None
    for path in ("host.os", "frameworks.tensorflow.version", "nvidia.gpus"):
        assert state_of(facts, path)[0] is State.STATED, path
        assert state_of(facts, path)[0].known
    found = {f.id: f for f in pipeline.diagnose(facts).findings}
    win = found["tensorflow-gpu-on-native-windows"]
    assert any(s.startswith("host.os = Windows") for s in win.evidence["stated in text"])
    assert any("tensorflow.version = 2.15" in s for s in win.evidence["stated in text"])


def test_a_tools_output_is_observed_not_stated():
    facts = parse_pasted(TOOL)
    assert facts is not None
    assert state_of(facts, "host.python_version")[0] is State.OBSERVED
    assert all("stated in text" not in f.evidence for f in pipeline.diagnose(facts).findings)
