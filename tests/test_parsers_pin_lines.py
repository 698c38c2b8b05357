"""A line of nothing but pins is an issue form's version answer.

jax's issue form asks "What jax/jaxlib version are you using?" and people answer
``jax==0.3.17 and jaxlib==0.3.14``; a sentence around pins ("when I downgrade them into
jax==0.3.14 and jaxlib==0.3.10 the problem disappeared") may name versions that are not the
installed ones, so a pin in prose counts only when the text states one version.
"""

from __future__ import annotations

from envdoctor import pipeline
from envdoctor.parsers import parse_pasted

# jax's issue form (its "What jax/jaxlib version are you using?" field), answered as people do
FORM = """### What jax/jaxlib version are you using?

jax==0.3.17 and jaxlib==0.3.14

### Which accelerator(s) are you using?

GPU
"""


def test_a_line_of_pins_states_each_version():
    jax = parse_pasted(FORM).frameworks.jax
    assert str(jax.version) == "0.3.17" and str(jax.jaxlib) == "0.3.14"
    listed = parse_pasted("versions:\n- `torch==2.1.0`, `torchvision==0.16.0`\n")
    packages = {d.name: str(d.version) for d in listed.packages.distributions}
    assert packages.get("torchvision") == "0.16.0"


def test_a_pin_list_line_wins_over_pins_a_sentence_states_differently():
    # the sentence names the versions that worked after a downgrade; the form's answer line
    # names the installed ones (a prose pin counts only when the text states it once)
    text = FORM + "\nwhen i downgrade them into jax==0.3.14 and jaxlib==0.3.10 it works\n"
    jax = parse_pasted(text).frameworks.jax
    assert str(jax.jaxlib) == "0.3.14"


def test_a_pin_line_that_pairs_is_clean():
    text = FORM.replace("jaxlib==0.3.14", "jaxlib==0.3.17")
    found = pipeline.diagnose(parse_pasted(text)).findings
    assert not [f for f in found if f.severity.value in ("error", "warning")]


def test_an_env_blocks_gpu_packages_are_read_and_meet_their_floors():
    # sglang's check_env lists packages as "name: version" (the form of its python -m
    # sglang.check_env); a T4 (7.5) is below FlashAttention-2's Ampere floor, not vLLM's 7.0
    block = ("GPU 0: Tesla T4\nPyTorch: 2.3.1+cu121\nsglang: 0.2.10\nvllm: 0.5.3.post1\n"
             "flash_attn: 2.5.8\n")
    facts = parse_pasted(block)
    found = {d.name: str(d.version) for d in facts.packages.distributions}
    assert found["vllm"] == "0.5.3.post1" and found["flash-attn"] == "2.5.8"
    loud = [f for f in pipeline.diagnose(facts).findings if f.severity.value in ("error", "warning")]
    assert [f.code for f in loud] == ["GPU010"] and "flash-attn" in loud[0].title
    assert "vllm" not in loud[0].title
