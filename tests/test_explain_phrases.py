"""``explain.phrases``: non-English wordings of core causes read as the signatures' English.

Each entry in ``rules/phrases`` carries texts it must rewrite (``fire``) and texts it must leave
alone (``quiet``); every pattern must be linear; an ASCII text is never touched; and a phrase
only ever helps a text that explained nothing, so no trap gains an environment claim.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from envdoctor.engine import redos
from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.phrases import all_patterns, load_phrases, normalise

if hasattr(re, "_parser"):
    from re import _parser as sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_parse

PHRASES = load_phrases()


def _code(text: str) -> tuple[str, str] | None:
    d = primary(diagnose_text(text))
    return (d.code, d.category) if d else None


def test_the_vocabulary_is_loaded_and_sourced():
    assert len(PHRASES) >= 5
    for phrase in PHRASES:
        assert phrase.source.startswith("https://") and phrase.fire and phrase.quiet, phrase.id


@pytest.mark.parametrize("pattern", all_patterns(), ids=lambda p: p.pattern[:30])
def test_every_phrase_pattern_is_linear(pattern):
    assert redos.problem_in(sre_parse.parse(pattern.pattern)) is None


@pytest.mark.parametrize("phrase", PHRASES, ids=lambda p: p.id)
def test_each_phrase_rewrites_its_examples_and_leaves_its_near_misses(phrase):
    for text in phrase.fire:
        assert phrase.canonical.strip() in normalise(text, (phrase,)), (phrase.id, text)
    for text in phrase.quiet:
        assert normalise(text, (phrase,)) == text, (phrase.id, text)


def test_an_english_text_is_returned_as_it_is():
    text = "RuntimeError: CUDA error: out of memory\n" * 1000
    assert normalise(text) is text


@pytest.mark.parametrize(("text", "code"), [
    ("ImportError: DLL load failed while importing _ext: 找不到指定的模块。", "EWIN001"),
    ("OSError: [WinError 126] No se puede encontrar el módulo especificado", "EWIN001"),
    ("训练到一半报错 OSError: [Errno 28] 磁盘空间不足", "ESYS014"),
    ("docker 里训练报共享内存不足的错", "ESYS008"),
    ("报错：CUDA驱动程序版本不足以支持CUDA运行时版本", "ECUDA006"),
    ("GPUメモリが足りずに学習できなかった", "ECUDA001"),
    ("跑模型的时候提示gpu内存不足", "ECUDA001"),
])
def test_a_cause_stated_in_another_language_is_explained(text, code):
    found = _code(text)
    assert found is not None and found[0] == code, found


@pytest.mark.parametrize("text", [
    "FileNotFoundError: [WinError 3] 系统找不到指定的路径。: 'datasets/200-20/train/images'",
    "FileNotFoundError: [WinError 3] Системе не удается найти указанный путь: './data/train'",
    "好像是内存满了，200K的数据太大了",
    "不是显卡驱动太旧，驱动是最新的",
    "磁盘空间足够，显存也够",
])
def test_a_user_error_or_a_negation_gets_no_environment_claim(text):
    found = _code(text)
    assert found is None or found[1] != "environment", found


def test_a_hostile_text_is_read_in_bounded_time():
    text = ("显卡" + "的" * 5000 + "内存" + " " * 5000) * 20 + "找不到指定的" * 20000
    start = time.perf_counter()
    normalise(text)
    assert time.perf_counter() - start < 10.0  # a hang guard: a super-linear reading takes minutes


def test_rules_test_runs_the_phrase_examples_and_names_a_flipped_one(tmp_path):
    """`envdoctor rules test` checks the phrase vocabulary like every other kind: a quiet
    example the entry rewrites is a problem naming the file and the entry."""
    import shutil

    import tomllib

    from envdoctor.rulebook.validate import validate
    from envdoctor.rulefiles import rules_dir

    shipped = validate(rules_dir())
    assert shipped.phrases and not [p for p in shipped.problems if "phrases" in p]
    copy = tmp_path / "rules"
    shutil.copytree(rules_dir(), copy)
    path = copy / "phrases" / "nonenglish.toml"
    text = path.read_text(encoding="utf-8")
    first = tomllib.loads(text)["phrase"][0]
    flipped = text.replace("quiet = [", "quiet = [" + json.dumps(first["fire"][0]) + ", ", 1)
    path.write_text(flipped, encoding="utf-8")
    problems = validate(copy).problems
    assert any(f"{first['id']}: quiet[0] is rewritten" in p for p in problems), problems


# CUDA errors stated only by their cudaError_t number (rules/phrases/cuda_error_numbers.toml):
# read in ASCII text too, as the message NVIDIA's enum gives the number.
@pytest.mark.parametrize(("text", "code"), [
    ("RuntimeError: cuda runtime error (100)", "ECUDA015"),
    ("RuntimeError: cuda runtime error (38) at /pytorch/torch/lib/THC/THCGeneral.c:70", "ECUDA015"),
    ("F0124 08:39:10.926606 hl_cuda_device.cc:453] Check failed: cudaSuccess == cudaStat (0 vs. 38)",
     "ECUDA015"),
    ("Check failed: error == cudaSuccess (2 vs. 0)", "ECUDA001"),
    ("CUDA error 2 at ggml-cuda.cu:6951", "ECUDA001"),
    ("RuntimeError: cuda runtime error (209)", "ECUDA003"),
    ("RuntimeError: cuda runtime error (48)", "ECUDA003"),
    ("RuntimeError: cuda runtime error (46)", "ECUDA012"),
    ("RuntimeError: cuda runtime error (10)", "ECUDA007"),
    ("RuntimeError: cuda runtime error (700)", "ECUDA011"),
    ("RuntimeError: cuda runtime error (59)", "ECUDA008"),
    ("cudaGetDeviceCount() returned 803", "ESYS002"),
])
def test_a_cuda_error_stated_only_as_its_number_is_read_as_its_message(text, code):
    found = _code(text)
    assert found is not None and found[0] == code, found


@pytest.mark.parametrize("text", [
    "trained for 100 epochs, no CUDA error",
    "CUDA error 2.5 seconds after start",
    "RuntimeError: cuda runtime error (1000)",
    "loss (0 vs. 38.5) at step 100",
    "CUDA error 10 minutes into training",
])
def test_a_number_that_is_not_a_cuda_error_code_is_left_alone(text):
    assert all(p.ascii for p in PHRASES if p.id.startswith("cuda-error-number-"))
    assert normalise(text) == text


def test_only_ascii_entries_read_an_ascii_text():
    chinese_only = [p for p in PHRASES if not p.ascii]
    assert chinese_only
    assert normalise("RuntimeError: CUDA 内存不足", tuple(chinese_only)) != "RuntimeError: CUDA 内存不足"
    assert normalise("Not enough GPU memory", tuple(chinese_only)) == "Not enough GPU memory"
