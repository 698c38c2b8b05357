"""`envdoctor explain`: input handling, ranking, facts, output formats, bad input, fuzzing."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.reader import NotText, looks_binary, read_blocks
from envdoctor.explain.scan import _cause_depth
from envdoctor.facts import Facts
from envdoctor.rulefiles import load_toml

CORPUS = Path(__file__).parent / "corpus" / "explain"


def corpus(name: str) -> str:
    return load_toml(next(CORPUS.glob(f"{name}*.toml")))["text"]


def lines_of(data: bytes, **kw) -> list[str]:
    return "\n".join(t for _, t in read_blocks(io.BytesIO(data), **kw)).split("\n")


# ---------------------------------------------------------------------------- reader
def test_reader_normalises_crlf_ansi_quotes_entities_and_bad_utf8():
    data = (b"\x1b[31mRuntimeError\x1b[0m: boom\r\n> > quoted line\r\n"
            b"bad \xff\xfe bytes\n 10%|#  |\r100%|###|\rprogress 2\n&quot;x&quot; &lt;module&gt;\n")
    assert lines_of(data) == ["RuntimeError: boom", "quoted line", "bad \ufffd\ufffd bytes",
                              "progress 2", '"x" <module>']


def test_reader_line_numbers_survive_block_boundaries():
    data = b"".join(b"line %d\n" % i for i in range(1, 2001))
    blocks = list(read_blocks(io.BytesIO(data), block_bytes=97))
    assert len(blocks) > 10
    for first, text in blocks:
        for offset, line in enumerate(text.split("\n")):
            assert line == f"line {first + offset}"


def test_reader_cuts_a_huge_line_in_linear_time():
    data = b"A" * (10 << 20) + b"\nRuntimeError: after\n"
    got = lines_of(data, block_bytes=1 << 16)
    assert got[0] == "A" * 4096 and got[1] == "RuntimeError: after"


def test_binary_detection():
    assert looks_binary(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    assert not looks_binary(b"Traceback (most recent call last):\n")
    assert not looks_binary("\ufeffutf-16 log".encode("utf-16"))
    with pytest.raises(NotText):
        list(read_blocks(io.BytesIO(b"\x00\x01\x02" * 100)))


def test_utf16_windows_log_is_read():
    text = "RuntimeError: Torch not compiled with CUDA enabled\r\n"
    assert "Torch not compiled" in lines_of(text.encode("utf-16"))[0]


# ---------------------------------------------------------------------------- structure
def test_cause_depth_follows_chains_not_unrelated_tracebacks():
    # tracebacks at 1, 10, 30; chain markers at 8 (links 1->10)
    assert _cause_depth(5, [1, 10, 30], [8]) == 1
    assert _cause_depth(12, [1, 10, 30], [8]) == 0
    # a new unrelated traceback between the hit and a later chain marker stops the count
    assert _cause_depth(5, [1, 20, 30], [28]) == 0


def test_chained_root_cause_wins_over_the_wrapper():
    """Real Hydra wrapper of a weights_only UnpicklingError (recogdrive#60)."""
    main = primary(diagnose_text(corpus("005")))
    assert main.code == "ETORCH001" and main.evidence[0].line >= 1


def test_real_error_ranks_before_benign_warnings():
    text = corpus("071") + "\n" + corpus("013")
    ds = diagnose_text(text)
    assert primary(ds).code == load_toml(next(CORPUS.glob("013*.toml")))["expect"]
    assert ds[0].category != "benign" and ds[-1].category == "benign"


def test_user_code_is_not_an_environment_problem():
    main = primary(diagnose_text(corpus("075")))
    assert main.category == "user_code"


def test_nothing_recognised_is_empty():
    assert diagnose_text("hello world\nall good\n") == []
    assert diagnose_text("") == []


def test_evidence_has_line_numbers_of_the_input():
    text = "noise\n" * 41 + corpus("013")
    main = primary(diagnose_text(text))
    assert all(e.line > 41 for e in main.evidence)
    assert any(e.line == 42 + n for e in main.evidence
               for n, t in enumerate(corpus("013").split("\n")) if t and e.text[:60] == t[:60])


# ---------------------------------------------------------------------------- facts
def _torch_facts(version: str) -> Facts:
    return Facts.from_dict({"schema_version": 1, "frameworks": {
        "probe": {"status": "ok"}, "torch": {"version": version}}})


def test_conditions_sharpen_with_facts_and_are_unknown_without():
    text = corpus("005")
    assert primary(diagnose_text(text)).notes == ()
    new = primary(diagnose_text(text, facts=_torch_facts("2.6.0")))
    assert "2.6" in new.notes[0] and "{" not in new.notes[0]
    assert primary(diagnose_text(text, facts=_torch_facts("2.4.0"))).notes == ()


def test_report_facts_win_over_live_facts():
    text = corpus("005")
    got = primary(diagnose_text(text, facts=_torch_facts("2.4.0"),
                                report_facts=_torch_facts("2.7.1")))
    assert "2.7.1" in got.notes[0]


# ---------------------------------------------------------------------------- CLI
def test_cli_text_markdown_json(cli, tmp_path):
    path = tmp_path / "tb.txt"
    path.write_text(corpus("005"))
    r = cli("explain", "--no-facts", str(path))
    assert r.returncode == 0 and "ETORCH001" in r.stdout and "Fix:" in r.stdout
    assert "Source: https://" in r.stdout
    r = cli("explain", "--no-facts", "--format", "markdown", str(path))
    assert r.returncode == 0 and r.stdout.startswith("## envdoctor explain")
    r = cli("explain", "--no-facts", "--format", "json", str(path))
    data = json.loads(r.stdout)
    first = data["diagnoses"][0]
    assert set(first) >= {"code", "id", "title", "category", "confidence", "evidence", "why",
                          "fix", "references"}
    assert first["code"] == "ETORCH001" and set(first["evidence"][0]) == {"line", "text"}


def test_cli_markdown_evidence_with_html_shows_it_as_text(cli, tmp_path):
    path = tmp_path / "tb.txt"
    path.write_text("Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\n"
                    "RuntimeError: CUDA error: out of memory <img src=x onerror=alert(1)> &"
                    " ::error title=X::y\n")
    r = cli("explain", "--no-facts", "--format", "markdown", str(path))
    assert r.returncode == 0 and "<img" not in r.stdout and "::error" not in r.stdout
    assert "<pre>" in r.stdout and "&lt;img src=x onerror=alert(1)&gt; &amp; : :error" in r.stdout


def test_cli_stdin_and_facts_file(cli, tmp_path):
    snap = tmp_path / "facts.json"
    snap.write_text(_torch_facts("2.6.0").to_json())
    r = cli("explain", "--facts", str(snap), "-", stdin=corpus("005"))
    assert r.returncode == 0 and "In the facts snapshot: Your torch 2.6.0" in r.stdout


def test_cli_nothing_found_exits_0(cli):
    r = cli("explain", "--no-facts", stdin="all good here\n")
    assert r.returncode == 0 and "Nothing recognised" in r.stdout


@pytest.mark.parametrize("setup,message", [
    ("missing", "no such file"), ("dir", "is a directory"), ("binary", "binary"),
    ("code", "no such signature"), ("badfacts", "not valid JSON")])
def test_cli_bad_input_is_one_line_exit_2(cli, tmp_path, setup, message):
    args = {"missing": [str(tmp_path / "nope.log")], "dir": [str(tmp_path)],
            "code": ["EZZZ999"], "badfacts": ["--facts", str(tmp_path / "f.json"), "-"],
            "binary": [str(tmp_path / "b.bin")]}[setup]
    (tmp_path / "b.bin").write_bytes(b"\x7fELF\x00\x00\x01" * 1000)
    (tmp_path / "f.json").write_text("{not json")
    r = cli("explain", *args, stdin="x")
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr


def test_cli_empty_and_huge_line(cli, tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    r = cli("explain", "--no-facts", str(empty))
    assert r.returncode == 0 and "empty" in r.stdout
    big = tmp_path / "line.log"
    big.write_bytes(b"x" * (10 << 20) + b"\nRuntimeError: Torch not compiled with CUDA enabled\n")
    r = cli("explain", "--no-facts", "--format", "json", str(big))
    assert r.returncode == 0 and json.loads(r.stdout)["input"]["lines"] == 2


def test_cli_explain_code_prints_rule_docs(cli):
    r = cli("explain", "ETORCH001")
    assert r.returncode == 0 and "weights_only" in r.stdout and "https://" in r.stdout
    r = cli("explain", "torch001")
    assert r.returncode == 0 and "TORCH001" in r.stdout


# ---------------------------------------------------------------------------- fuzz
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=3000))
def test_fuzz_text_never_raises(text):
    for d in diagnose_text(text):
        assert d.evidence and d.code.startswith("E")


_FRAGMENTS = [corpus(n)[:400] for n in ("005", "013", "071", "075")] + [
    "\x1b[1m", "\r", "\r\n", "> ", "```", "\n", "During handling of the above exception, "
    "another exception occurred:\n", "Traceback (most recent call last):\n", "\xff", "\x00"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=20), st.integers(16, 4096))
def test_fuzz_mixed_fragments_stream_equals_whole(parts, block):
    """Any block size gives the same answer as reading the whole text at once."""
    from envdoctor.explain import rank_result, scanner
    text = "".join(parts).encode("utf-8", "replace")
    try:
        whole = rank_result(scanner().scan(read_blocks(io.BytesIO(text))))
        small = rank_result(scanner().scan(read_blocks(io.BytesIO(text), block_bytes=block)))
    except NotText:
        return
    assert [(d.code, [e.line for e in d.evidence]) for d in whole] == \
        [(d.code, [e.line for e in d.evidence]) for d in small]


def _scan_summary(result):
    """Everything ranking reads from a scan, to compare two scans."""
    return (result.lines, result.tracebacks, result.chains, sorted(
        (code, sh.count, sh.anti_lines, [(h.line, h.text, h.role, h.cause_depth) for h in sh.hits])
        for code, sh in result.by_code.items()))


_RAW_FRAGMENTS = _FRAGMENTS + [
    "&quot;", "&lt;", " > ", ">", "\r> RuntimeError: CUDA error: out of memory", "\r\r\n",
    "  File \"x.py\", line 3, in f\n    y = torch.load(p)\n", "\u00e9\u2502", "\x1b]0;t\x07",
    "x" * 5000, "numpy.core.multiarray failed to import\n", "\t> quoted\n", "&nbsp;", "\x1b[K",
    "&amp;quot;"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_RAW_FRAGMENTS), max_size=25), st.integers(16, 4096))
def test_fuzz_raw_fast_path_equals_normalise_then_scan(parts, block):
    """The raw fast path (bytes search, per-line normalising) finds exactly what normalising
    every block and scanning the text finds: same hits, lines, roles, evidence, structure."""
    from envdoctor.explain import scanner
    data = "".join(parts).encode("utf-8", "surrogatepass")
    try:
        slow = scanner().scan(read_blocks(io.BytesIO(data), block_bytes=block))
    except NotText:
        return
    fast = scanner().scan_stream(io.BytesIO(data), block_bytes=block)
    assert _scan_summary(fast) == _scan_summary(slow)


def test_signature_and_anchor_caches_use_the_shared_json_cache(tmp_path, monkeypatch):
    """Parsed signatures (with their literals) and the chosen anchors are cached as JSON by
    knowledge.cached_json, in $ENVDOCTOR_CACHE_DIR when set, and a cached load is identical."""
    from envdoctor.explain import signatures
    from envdoctor.explain.scan import Scanner
    monkeypatch.delenv("ENVDOCTOR_NO_CACHE", raising=False)
    monkeypatch.setenv("ENVDOCTOR_CACHE_DIR", str(tmp_path))
    signatures._load.cache_clear()
    fresh = signatures.load_signatures()
    anchors = Scanner(fresh).anchors
    assert sorted(p.name.split("-")[0] for p in tmp_path.glob("*.json")) == \
        ["anchors"] * 4 + ["sigexamples", "signatures"]  # anchors of patterns, contexts:
    #                        distinct / direct search; the examples apart (a scan never reads them)
    signatures._load.cache_clear()
    cached = signatures.load_signatures()
    signatures._load.cache_clear()
    assert [(s.code, [(p.source, p.literals) for p in s.patterns]) for s in cached] == \
        [(s.code, [(p.source, p.literals) for p in s.patterns]) for s in fresh]
    assert Scanner(cached).anchors == anchors
    assert all(isinstance(s.examples, signatures.CachedExamples) for s in cached)
    assert [s.examples for s in cached] == [s.examples for s in fresh]
    assert [tuple(s.examples) for s in cached] == [s.examples for s in fresh]
    assert [(s.title, s.why, s.fix, s.family, s.path, s.extra) for s in cached] == \
        [(s.title, s.why, s.fix, s.family, s.path, s.extra) for s in fresh]


def test_an_edited_signature_file_is_read_again_though_its_size_and_mtime_are_kept(
        tmp_path, monkeypatch):
    """The signature cache is keyed by one ``stat`` per rule file, not by its bytes: an edit
    that keeps the size and sets the mtime back still moves the ctime, so the edited rule is
    read again; a file changed in the last ``RECENT_NS`` is keyed by its bytes."""
    import shutil
    import time

    from envdoctor import rulefiles
    from envdoctor.explain import signatures
    monkeypatch.delenv("ENVDOCTOR_NO_CACHE", raising=False)
    monkeypatch.setenv("ENVDOCTOR_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "rules"
    path = root / "signatures" / "torch" / "ETORCH001.toml"
    path.parent.mkdir(parents=True)
    shutil.copy(rulefiles.rules_dir() / "signatures" / "torch" / "ETORCH001.toml", path)
    assert rulefiles.file_stamps([path])[0][1].startswith("b")  # just written: its bytes
    monkeypatch.setattr(rulefiles, "RECENT_NS", 0)
    assert rulefiles.file_stamps([path])[0][1].startswith("s")  # one stat

    def title() -> str:
        signatures._load.cache_clear()
        try:
            (sig,) = signatures.load_signatures(root)
        finally:
            signatures._load.cache_clear()
        return sig.title

    old = title()
    assert list((tmp_path / "cache").glob("signatures-*.json"))
    assert title() == old  # from the cache
    before = path.stat()
    time.sleep(0.05)  # past the file system clock's tick
    text = path.read_text()
    new = old.replace("refused", "REFUSED")
    assert new != old and len(new) == len(old)
    path.write_text(text.replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert title() == new


def test_raw_fast_path_equals_normalise_then_scan_on_the_corpus():
    from envdoctor.explain import scanner
    for path in sorted(CORPUS.glob("*.toml")):
        data = load_toml(path)["text"].encode()
        slow = scanner().scan(read_blocks(io.BytesIO(data)))
        assert _scan_summary(scanner().scan_stream(io.BytesIO(data))) == _scan_summary(slow), \
            path.name


@settings(max_examples=25, deadline=None)
@given(st.binary(max_size=2000))
def test_fuzz_cli_bytes_never_crash(tmp_path_factory, data):
    from envdoctor.cli import main
    path = tmp_path_factory.mktemp("fz") / "in.log"
    path.write_bytes(data)
    with pytest.raises(SystemExit) as exc:
        main(["explain", "--no-facts", "--format", "json", str(path)])
    assert exc.value.code in (0, 2)


def test_cli_reads_only_the_tail_of_a_huge_file_with_true_line_numbers(cli, tmp_path):
    big = tmp_path / "train.log"
    filler = "".join(f"step {i} loss=0.{i % 97:02d}\n" for i in range(150_000))  # ~3 MB
    big.write_text(filler + "RuntimeError: Torch not compiled with CUDA enabled\n")
    r = cli("explain", "--no-facts", "--max-mb", "1", "--format", "json", str(big))
    data = json.loads(r.stdout)
    assert r.returncode == 0 and data["diagnoses"][0]["evidence"][0]["line"] == 150_001
    r = cli("explain", "--no-facts", "--max-mb", "1", str(big))
    assert "only its last 1 MB" in r.stdout


def test_condition_sections_match_the_facts_sections():
    """explain keeps its own copy (to avoid importing envdoctor.facts early): keep in sync."""
    from envdoctor.explain.conditions import SECTIONS
    from envdoctor.facts import SECTIONS as FACT_SECTIONS
    assert SECTIONS == FACT_SECTIONS
