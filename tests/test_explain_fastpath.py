"""explain's fast path never skips a line that a signature matches.

The scanner looks for anchors in a reduced copy of each block, searches each distinct line
shape once per scan (a cache across blocks), drops needles it no longer needs (full marker
sinks, contexts already seen) and counts line offsets only as far as a hit. The plain path
(``scan_stream(..., plain=True)``) decodes every line and checks every literal on it. Both must
give the same hits, counts, roles, evidence, anti-pattern lines and traceback structure, on
the real corpus texts buried in training-log filler, cut into blocks of many sizes.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envdoctor.explain import scan, scanner
from envdoctor.rulefiles import load_toml

CORPUS = Path(__file__).parent / "corpus" / "explain"
TEXTS = [load_toml(p)["text"] for p in sorted(CORPUS.glob("*.toml"))]
FILLER = [
    "[2025-01-01 12:00:{s:02d}] epoch {e} step {i} loss=0.{i:04d} lr=3.0e-04 grad_norm=1.{s}",
    "2025-01-01 12:00:00.{i:06d}: I tensorflow/core/common_runtime/gpu/gpu_device.cc:2019] "
    "Created device /job:localhost/replica:0/task:0/device:GPU:0 with {i} MB memory",
    "{s}%|{bar}| {i}/100000 [00:{s:02d}<01:00, 9.{e}it/s]\r",
    "node0:123:456 [0] NCCL INFO Channel {s:02d}/02 :    0   1   2   3",
]


def summary(result):
    """Everything ranking reads from a scan."""
    return (result.lines, result.chars, result.tracebacks, result.chains, sorted(
        (code, sh.count, sh.anti_lines, sorted(sh.context_seen),
         [(h.line, h.text, h.role, h.cause_depth) for h in sh.hits])
        for code, sh in result.by_code.items()))


def build_log(seed: int, texts: int, filler_lines: int) -> bytes:
    """Corpus texts (some repeated) between runs of filler lines."""
    rng = random.Random(seed)
    parts = []
    for n in range(texts):
        for i in range(rng.randrange(filler_lines)):
            s = (n * 7 + i) % 60
            parts.append(rng.choice(FILLER).format(i=i, s=s, e=i % 9, bar="#" * (i % 20)) + "\n")
        parts.append(rng.choice(TEXTS) + "\n")
    return "".join(parts).encode("utf-8", "surrogatepass")


def test_fast_path_equals_plain_path_on_the_whole_corpus():
    """Every corpus text, twice, in filler: hits on the second copy come from the cache."""
    data = "".join(t + "\n" + FILLER[0].format(i=k, s=k % 60, e=1, bar="") + "\n"
                   for k, t in enumerate(TEXTS * 2)).encode("utf-8", "surrogatepass")
    s = scanner()
    for block in (4096, 65536, 1 << 20):
        fast = s.scan_stream(io.BytesIO(data), block_bytes=block)
        plain = s.scan_stream(io.BytesIO(data), block_bytes=block, plain=True)
        assert summary(fast) == summary(plain), block
    assert len(fast.by_code) > 100  # the corpus does exercise the signatures


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 12), st.integers(1, 400),
       st.sampled_from([512, 4096, 32768, 262144]))
def test_fast_path_equals_plain_path_in_training_logs(seed, texts, filler_lines, block):
    data = build_log(seed, texts, filler_lines)
    s = scanner()
    assert summary(s.scan_stream(io.BytesIO(data), block_bytes=block)) == \
        summary(s.scan_stream(io.BytesIO(data), block_bytes=block, plain=True))


def test_line_shape_cache_restarting_changes_nothing(monkeypatch):
    """A cache over its memory bound starts afresh; the answer is the same."""
    data = build_log(3, 40, 300)
    s = scanner()
    full = summary(s.scan_stream(io.BytesIO(data), block_bytes=8192))
    monkeypatch.setattr(scan, "SHAPES_MAX_BYTES", 1)
    assert summary(s.scan_stream(io.BytesIO(data), block_bytes=8192)) == full


def test_hit_line_memo_restarting_changes_nothing(monkeypatch):
    """Repeated error lines are decoded and searched once; a memo over its bound starts
    afresh at every line, and the answer (hits, counts, roles, contexts) is the same."""
    data = build_log(5, 60, 200) * 2
    s = scanner()
    full = summary(s.scan_stream(io.BytesIO(data), block_bytes=8192))
    assert full == summary(s.scan_stream(io.BytesIO(data), block_bytes=8192, plain=True))
    monkeypatch.setattr(scan, "LINE_MEMO_BYTES", 0)
    assert summary(s.scan_stream(io.BytesIO(data), block_bytes=8192)) == full


def test_a_shape_is_hot_only_with_a_literal_it_can_hold(monkeypatch):
    """A repeated line whose shape holds an anchor ('fail') but none of the anchor's literals
    (reduced) is decoded only as the first line of its shape in a block (contexts), not on
    every line; one that holds a literal is, on every line."""
    decoded = []
    original = scan.normalise_line

    def counting(line, *rest):
        decoded.append(line)
        return original(line, *rest)

    monkeypatch.setattr(scan, "normalise_line", counting)
    quiet = [f"W step {i}: prefetch failed? no, all good ({i} items)" for i in range(2000)]
    loud = ["RuntimeError: CUDA error: out of memory"] * 3
    data = ("\n".join(quiet + loud) + "\n").encode()
    result = scanner().scan_stream(io.BytesIO(data), block_bytes=8192)
    assert decoded[-1] == loud[0]
    assert len(decoded) - 1 <= len(data) // 8192 + 1  # at most once per block
    assert summary(result) == summary(scanner().scan_stream(io.BytesIO(data), block_bytes=8192,
                                                            plain=True))


@pytest.mark.parametrize("chunk", [64, 8192])
def test_line_offsets_counted_lazily_are_right(monkeypatch, chunk):
    """Hit lines far apart in a block (LFs counted piece by piece, only as far as needed)."""
    monkeypatch.setattr(scan, "LINE_CHUNK", chunk)
    lines = [f"step {i} loss=0.{i % 97:02d}" for i in range(3000)]
    for at in (0, 1, 9, 10, 700, 701, 2999):
        lines[at] = "RuntimeError: Torch not compiled with CUDA enabled"
    data = ("\n".join(lines) + "\n").encode()
    result = scanner().scan_stream(io.BytesIO(data), block_bytes=1 << 20)
    hits = [h.line for sh in result.by_code.values() for h in sh.hits]
    assert sorted(set(hits)) == [1, 2, 10, 11, 701, 702, 3000]


@pytest.mark.parametrize("raw_split_min", [0, 10**6])
def test_hit_lines_read_either_way_give_the_same_answer(monkeypatch, raw_split_min):
    """A block's hot lines read from one split of the block or by their offsets: the plain
    path's answer (hits, roles, which read the line above, contexts)."""
    frame = ('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
             '    x = f()  # RuntimeError: Torch not compiled with CUDA enabled\n'
             'RuntimeError: Torch not compiled with CUDA enabled\n').encode()
    data = build_log(11, 40, 300) + frame * 3
    s = scanner()
    plain = s.scan_stream(io.BytesIO(data), block_bytes=8192, plain=True)
    roles = {h.text.lstrip()[:5]: h.role for sh in plain.by_code.values() for h in sh.hits}
    assert roles["x = f"] == "frame"  # the role read from the line above it
    plain = summary(plain)
    monkeypatch.setattr(scan, "RAW_SPLIT_MIN", raw_split_min)
    assert summary(s.scan_stream(io.BytesIO(data), block_bytes=8192)) == plain


def test_lines_and_chars_do_not_depend_on_the_block_size():
    """Lines and characters of a text that normalising leaves alone (no CRs, escapes,
    entities, quotes or over-long lines) are its own, whatever the block size."""
    plain = [t for t in TEXTS if not any(c in t for c in "\r\x1b&>")
             and max(map(len, t.split("\n"))) < 4000]
    rng = random.Random(5)
    text = "".join(rng.choice(plain) + "\n" + FILLER[0].format(i=i, s=i % 60, e=1, bar="") + "\n"
                   for i in range(300))
    data = text.encode()
    s = scanner()
    for block in (512, 4096, 65536, 1 << 22):
        r = s.scan_stream(io.BytesIO(data), block_bytes=block)
        assert (r.lines, r.chars) == (text.count("\n"), len(text) - 1), block


def test_each_corpus_text_gets_the_same_diagnoses_on_both_paths():
    """Per text, as ``explain`` answers it (text only): the ranked diagnoses from the fast
    path are those from the plain path, evidence and confidence included."""
    from envdoctor.explain import rank_result
    s = scanner()
    explained = 0
    for text in TEXTS:
        data = text.encode("utf-8", "surrogatepass")
        fast = rank_result(s.scan_stream(io.BytesIO(data)))
        plain = rank_result(s.scan_stream(io.BytesIO(data), plain=True))
        assert [d.to_dict() for d in fast] == [d.to_dict() for d in plain], text[:200]
        explained += bool(fast)
    assert explained > len(TEXTS) * 0.9


def test_a_block_without_a_literals_own_bytes_skips_it_and_one_with_them_does_not():
    """The TensorFlow filler line reduces to a shape that holds 'device' and 'gpu', the
    reduced forms of literals such as '--device' and '--gpu': a block that lacks their '--'
    is not searched line by line for them, a block that holds it is. Corpus texts that hold
    '--' between runs of that line: the same hits as the plain path, at every block size."""
    dashed = [t for t in TEXTS if "--device" in t or "--gpu" in t or "--" in t][:40]
    assert dashed
    rng = random.Random(5)
    parts = []
    for n, text in enumerate(dashed):
        for i in range(rng.randrange(50, 400)):
            parts.append(FILLER[1].format(i=n * 1000 + i, s=0, e=0, bar="") + "\n")
        parts.append(text + "\n")
    data = "".join(parts).encode("utf-8", "surrogatepass")
    s = scanner()
    plain = summary(s.scan_stream(io.BytesIO(data), plain=True))
    for block in (4096, 65536):
        assert summary(s.scan_stream(io.BytesIO(data), block_bytes=block)) == plain
