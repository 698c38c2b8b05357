"""A cold start (no cached anchors) scans a small input without choosing anchors.

``choose_anchors`` costs ~3 s of CPU once after the signatures change; a small input is
scanned instead with every reduced literal as its own anchor (``Scanner(choose=False)``), and
anchors are chosen (and cached) only for an input of ``CHOOSE_BYTES`` or more. An anchor only
decides which lines are checked for the literals, so both scanners must find the same: these
tests compare them on every corpus text, in blocks of several sizes and in a log, and check
who chooses when.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import envdoctor.explain as ex
from envdoctor.explain import scan, signatures
from envdoctor.explain.signatures import all_patterns, load_signatures, sre_parse
from envdoctor.rulefiles import load_toml

from tests.test_explain_fastpath import FILLER, build_log, summary

CORPUS = Path(__file__).parent / "corpus" / "explain"
TEXTS = [load_toml(p)["text"] for p in sorted(CORPUS.rglob("*.toml"))
         if isinstance(load_toml(p).get("text"), str)]


@pytest.fixture(scope="module")
def scanners() -> tuple[scan.Scanner, scan.Scanner]:
    """(chosen anchors, each literal its own anchor), for the rules of this tree."""
    sigs = load_signatures()
    chosen = scan.Scanner(sigs)
    mp = pytest.MonkeyPatch()
    mp.setattr(scan, "_cached_anchors", lambda *a, **k: None)  # nothing cached
    try:
        own = scan.Scanner(sigs, choose=False)
    finally:
        mp.undo()
    assert chosen.chosen and not own.chosen
    # the own-anchor plan really is another plan: many more needles, each a whole literal
    assert len(own.needles) > 2 * len(chosen.needles)
    return chosen, own


def test_every_corpus_text_scans_alike_with_and_without_chosen_anchors(scanners):
    chosen, own = scanners
    assert len(TEXTS) > 1000
    for text in TEXTS:
        data = text.encode("utf-8", "surrogatepass")
        assert summary(own.scan_stream(io.BytesIO(data))) == \
            summary(chosen.scan_stream(io.BytesIO(data))), text[:200]


@pytest.mark.parametrize("block", [4096, 65536, 1 << 20])
def test_a_log_scans_alike_with_and_without_chosen_anchors(scanners, block):
    chosen, own = scanners
    data = build_log(21, 300, 40)
    want = summary(chosen.scan_stream(io.BytesIO(data), block_bytes=block))
    assert want[4], "the log must hit signatures"
    assert summary(own.scan_stream(io.BytesIO(data), block_bytes=block)) == want
    assert summary(own.scan_stream(io.BytesIO(data), block_bytes=block, plain=True)) == want


def _no_choice(*args, **kwargs):
    raise AssertionError("choose_anchors ran for a small input")


def test_a_small_input_with_a_cold_cache_chooses_no_anchors(monkeypatch, tmp_path):
    monkeypatch.setenv("ENVDOCTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(ex, "_SCANNER", None)
    monkeypatch.setattr(scan, "choose_anchors", _no_choice)
    text = TEXTS[0]
    found = ex.diagnose_text(text)
    assert found and not ex._SCANNER.chosen
    assert not list(tmp_path.glob("anchors-*")), "a look-up must write nothing"


def test_a_big_input_chooses_anchors_and_caches_them(monkeypatch, tmp_path):
    monkeypatch.setenv("ENVDOCTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(ex, "_SCANNER", None)
    data = build_log(5, 400, 60)
    data += b"x" * 80 + b"\n"
    while len(data) < ex.CHOOSE_BYTES:
        data += FILLER[0].format(i=1, s=2, e=3, bar="").encode() + b"\n"
    ex.scan_stream(io.BytesIO(data))
    assert ex._SCANNER.chosen
    assert len(list(tmp_path.glob("anchors-*"))) == 4  # two tables, two searches each
    # then a small input reads them: a scanner with chosen anchors, nothing chosen again
    monkeypatch.setattr(ex, "_SCANNER", None)
    monkeypatch.setattr(scan, "choose_anchors", _no_choice)
    ex.scan_stream(io.BytesIO(b"hello\n"))
    assert ex._SCANNER.chosen


def test_a_pipe_is_read_ahead_and_scanned_whole(monkeypatch):
    """A pipe says no size: up to CHOOSE_BYTES are read ahead to tell, then scanned first."""
    monkeypatch.setattr(ex, "CHOOSE_BYTES", 4096)
    data = build_log(9, 40, 30)
    assert len(data) > 4 * 4096
    want = summary(ex.scanner().scan_stream(io.BytesIO(data)))
    for size, big in ((len(data), True), (3000, False)):
        r, w = os.pipe()
        proc = subprocess.Popen([sys.executable, "-c",
                                 "import os,sys; os.write(1, sys.stdin.buffer.read())"],
                                stdin=subprocess.PIPE, stdout=w)
        os.close(w)
        assert proc.stdin is not None
        proc.stdin.write(data[:size])
        proc.stdin.close()
        with os.fdopen(r, "rb") as stream:
            ahead, is_big = ex._sized(stream)
            assert is_big is big
            got = ex.scanner().scan_stream(ahead)
        proc.wait()
        assert summary(got) == (want if big else
                                summary(ex.scanner().scan_stream(io.BytesIO(data[:size]))))


def test_a_file_and_bytes_say_their_size_and_are_not_read_ahead(tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "CHOOSE_BYTES", 100)
    path = tmp_path / "log"
    path.write_bytes(b"a" * 150)
    with path.open("rb") as f:
        assert ex._sized(f) == (f, True)
        f.seek(60)
        assert ex._sized(f) == (f, False)
    buf = io.BytesIO(b"b" * 99)
    assert ex._sized(buf) == (buf, False)


def test_every_rule_pattern_compiles_as_re_compile_does():
    """``compile_pattern`` compiles from its own parse tree (``_compile_tree``): the result
    must equal ``re.compile``'s (source, flags and code) for every pattern of the rules."""
    sources = sorted({p.source for sig in load_signatures() for p in all_patterns(sig)})
    assert len(sources) > 1000
    for source in sources:
        tree = sre_parse.parse(source)
        regex = signatures._compile_tree(source, tree)
        assert regex == re.compile(source), source
        assert regex.groupindex == re.compile(source).groupindex
        # compiling from the tree leaves it as the other readings need it
        assert signatures._literals_in(tree) == signatures._literals_in(sre_parse.parse(source))


def test_a_repeated_source_is_compiled_once_and_a_bad_one_always_refused():
    source = r"some unusual phrase \d+ here"
    signatures._COMPILED.pop(source, None)
    first = signatures.compile_pattern(source, "a.toml", "patterns")
    again = signatures.compile_pattern(source, "b.toml", "patterns")
    assert again.regex is first.regex and again.literals == first.literals
    for _ in range(2):  # a refused source is not remembered
        with pytest.raises(signatures.RuleFileError, match="empty string"):
            signatures.compile_pattern(r"(?:x)?", "c.toml", "patterns")
