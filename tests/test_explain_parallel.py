"""A big log scanned in two to four processes gives exactly the one-process scan.

``explain.parallel`` cuts the file at a block boundary, scans the rest in a forked child and
merges. Here the cut is forced on small files (``minimum=0``, small blocks), so the split falls
inside tracebacks, CRLF and long lines, escapes, multi-byte characters and repeated corpus
texts, and every field ranking reads is compared with ``Scanner.scan_stream``.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envdoctor.explain import parallel, scan, scanner
from envdoctor.rulefiles import load_toml

CORPUS = Path(__file__).parent / "corpus" / "explain"
TEXTS = [load_toml(p)["text"] for p in sorted(CORPUS.glob("*.toml"))]
PIECES = ["step {i} loss=0.{i:04d}\n", "Epoch {i}: 100%|####| 9/9 [00:0{d}<00:00]\r",
          "\x1b[32mINFO\x1b[0m worker {i} ready\n", "caf\u00e9 \u2502 {i}\r\n",
          "x" * 5000 + "\n", "&quot;{i}&quot;\n", "> quoted {i}\n", "\n"]


@pytest.fixture(autouse=True)
def _spare_cpu(monkeypatch):
    monkeypatch.setattr(parallel, "spare_cpus", lambda: 1)  # split even on a busy machine


def summary(result):
    return (result.lines, result.chars, result.tracebacks, result.chains, sorted(
        (code, sh.count, sh.anti_lines, sorted(sh.context_seen),
         [(h.line, h.text, h.role, h.cause_depth) for h in sh.hits])
        for code, sh in result.by_code.items()))


def build(seed: int, texts: int) -> bytes:
    rng = random.Random(seed)
    out = []
    for n in range(texts):
        for i in range(rng.randrange(200)):
            out.append(rng.choice(PIECES).format(i=i + n, d=i % 10))
        out.append(rng.choice(TEXTS) + rng.choice(["\n", "\r\n", ""]))
    return "".join(out).encode("utf-8", "surrogatepass")


def both(path: Path, block: int, first_line: int = 1):
    s = scanner()
    with open(path, "rb") as fh:
        split = parallel.scan_file(s, fh, first_line, block_bytes=block, minimum=0)
    with open(path, "rb") as fh:
        one = s.scan_stream(fh, first_line, block_bytes=block)
    return split, one


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.integers(2, 40), st.sampled_from([4096, 8192, 65536]))
def test_two_processes_give_the_one_process_scan(tmp_path_factory, seed, texts, block):
    path = tmp_path_factory.mktemp("par") / "train.log"
    path.write_bytes(build(seed, texts))
    split, one = both(path, block)
    if split is None:  # too small for a cut with a short line before it
        assert path.stat().st_size < 4 * block or path.read_bytes().count(b"\n") < 8
        return
    assert summary(split) == summary(one)


def test_the_corpus_twice_split_in_the_middle(tmp_path):
    path = tmp_path / "corpus.log"
    path.write_bytes(("\n".join(TEXTS * 2) + "\n").encode("utf-8", "surrogatepass"))
    split, one = both(path, 16384, first_line=7)
    assert split is not None and summary(split) == summary(one)
    assert len(one.by_code) > 100


def test_marker_caps_are_replayed_block_by_block(tmp_path, monkeypatch):
    monkeypatch.setattr(scan, "MAX_MARKERS", 40)
    monkeypatch.setattr(parallel, "MAX_MARKERS", 40)
    path = tmp_path / "tracebacks.log"
    path.write_bytes("".join(
        f"Traceback (most recent call last):\n  File \"t.py\", line {i}, in <module>\n"
        f"RuntimeError: CUDA error: out of memory\n"
        + "".join(f"step {i}.{k} loss=0.5\n" for k in range(i % 40)) for i in range(300)
    ).encode())
    split, one = both(path, 4096)
    assert split is not None and summary(split) == summary(one)
    assert 40 <= one.tracebacks < 100  # the cap (checked per block) was reached


def test_a_failed_child_leaves_the_rest_to_this_process(tmp_path, monkeypatch):
    def broken(*_args):
        raise RuntimeError("child fails")
    monkeypatch.setattr(parallel, "_scan_part", broken)
    path = tmp_path / "train.log"
    path.write_bytes(build(9, 30))
    split, one = both(path, 8192)
    assert split is not None and summary(split) == summary(one)


def test_when_not_to_split(tmp_path, monkeypatch):
    s = scanner()
    assert parallel.scan_file(s, io.BytesIO(build(1, 20)), minimum=0) is None  # no file
    utf16 = tmp_path / "ps.log"
    utf16.write_bytes("\ufeff".encode("utf-16-le") + "x\n".join(TEXTS).encode("utf-16-le"))
    with open(utf16, "rb") as fh:
        assert parallel.scan_file(s, fh, block_bytes=4096, minimum=0) is None
    small = tmp_path / "small.log"
    small.write_bytes(build(2, 3))
    with open(small, "rb") as fh:
        assert parallel.scan_file(s, fh) is None  # under PARALLEL_MIN
    monkeypatch.setenv("ENVDOCTOR_NO_FORK", "1")
    big = tmp_path / "big.log"
    big.write_bytes(build(3, 30))
    with open(big, "rb") as fh:
        assert parallel.scan_file(s, fh, block_bytes=4096, minimum=0) is None


def test_no_split_on_one_cpu_or_a_machine_busy_on_every_core(monkeypatch):
    monkeypatch.undo()  # the real spare_cpus, with the machine's numbers faked
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda _pid: {0}, raising=False)
    assert parallel.spare_cpus() == 0
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3},
                        raising=False)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (4.0, 4.0, 4.0))
    assert parallel.spare_cpus() == 0


def test_idle_cpus_counted_from_the_tasks_running_now(monkeypatch):
    monkeypatch.undo()
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda _pid: set(range(8)),
                        raising=False)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    import envdoctor.bounded
    for running, spare in ((1, 7), (3, 5), (8, 0), (12, 0)):
        monkeypatch.setattr(envdoctor.bounded, "read_proc",
                            lambda *_a, r=running: f"1.00 1.00 1.00 {r}/300 4242\n")
        assert parallel.spare_cpus() == spare


@pytest.mark.parametrize("spare", [2, 3, 7])
def test_three_and_four_processes_give_the_one_process_scan(tmp_path, monkeypatch, spare):
    """Cut in three, four or eight parts (MAX_PARTS), middle parts bounded at both ends, each child
    its own: the same scan, and a failed middle child is scanned here."""
    monkeypatch.setattr(parallel, "spare_cpus", lambda: spare)
    path = tmp_path / "train.log"
    path.write_bytes(build(spare, 60))
    split, one = both(path, 4096)
    assert split is not None and summary(split) == summary(one)
    real_scan, real_reader = parallel._scan_part, parallel._PartReader
    here: list[int | None] = []  # parts read by this process (a child's reads stay there)

    def middle_fails(scanner, fd, carry, split, end, block):
        if end is not None:
            raise RuntimeError("child fails")
        return real_scan(scanner, fd, carry, split, end, block)

    def reader(fd, carry, split, block, end=None):
        here.append(end)
        return real_reader(fd, carry, split, block, end)

    monkeypatch.setattr(parallel, "_scan_part", middle_fails)
    monkeypatch.setattr(parallel, "_PartReader", reader)
    split, one = both(path, 4096)
    assert split is not None and summary(split) == summary(one)
    assert here and all(end is not None for end in here)  # the middle parts, read here


def test_a_part_per_idle_cpu_up_to_max_parts(tmp_path, monkeypatch):
    path = tmp_path / "train.log"
    path.write_bytes(build(4, 60))
    for spare, parts in ((1, 2), (2, 3), (3, 4), (6, 7), (12, parallel.MAX_PARTS)):
        monkeypatch.setattr(parallel, "spare_cpus", lambda s=spare: s)
        with open(path, "rb") as fh:
            plan = parallel._plan(fh, 4096, 0)
        assert plan is not None and len(plan[2]) == parts - 1
        splits = [split for split, _ in plan[2]]
        assert splits == sorted(set(splits))


def test_idle_sees_a_part_of_the_matches_and_cannot_change_the_scan(tmp_path):
    path = tmp_path / "log.txt"
    path.write_bytes(build(5, 60))
    s = scanner()
    seen: list[list[str]] = []

    def idle(found):
        seen.append([sig.code for sig in found])
        raise RuntimeError("an idle task that fails")

    with open(path, "rb") as fh:
        split = parallel.scan_file(s, fh, block_bytes=4096, minimum=0, idle=idle)
    with open(path, "rb") as fh:
        one = s.scan_stream(fh, block_bytes=4096)
    assert split is not None and summary(split) == summary(one)
    assert len(seen) == 1 and seen[0] and set(seen[0]) <= set(one.by_code)


def _probed(sec):
    """A section as a probe that answered nothing else would give it (its reason names it)."""
    from dataclasses import replace

    from envdoctor.facts import Facts, ProbeInfo, Status
    return replace(getattr(Facts(), sec), probe=ProbeInfo(Status.NOT_FOUND, f"probed {sec}"))


def _fake_collect(calls, where=None):
    import threading

    from envdoctor.facts import Facts

    def collect(sections=None, **_):
        if where is not None:
            where.append(threading.current_thread().name)
        from envdoctor.explain.conditions import SECTIONS
        chosen = SECTIONS if sections is None else sections
        calls.append(tuple(chosen))
        return Facts().with_sections({sec: _probed(sec) for sec in chosen})
    return collect


def test_probes_started_during_the_scan_give_the_facts_of_one_collect(tmp_path, monkeypatch):
    """explain of a big log starts probing while the child scans (when its own part needs
    facts) and adds the sections the whole scan needs beyond those: the diagnoses and the
    facts the conditions read are those of probing once after the scan."""
    import envdoctor.probes
    from envdoctor.commands import explain as cmd
    from envdoctor.explain import conditions
    path = tmp_path / "log.txt"
    path.write_bytes(build(8, 400))
    assert path.stat().st_size > 4 * (64 << 10)  # four blocks: the file is split
    read: list[object] = []
    real = conditions.ConditionEvaluator.__init__

    def evaluator(self, facts, *args, **kwargs):
        read.append({sec: getattr(facts, sec) for sec in conditions.SECTIONS})
        real(self, facts, *args, **kwargs)

    monkeypatch.setattr(conditions.ConditionEvaluator, "__init__", evaluator)
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 0)
    answers = []
    for fork in (True, False):
        calls: list[tuple[str, ...]] = []
        where: list[str] = []
        monkeypatch.setattr(envdoctor.probes, "collect", _fake_collect(calls, where))
        monkeypatch.setattr(parallel, "spare_cpus", lambda fork=fork: int(fork))
        ex = cmd.run(str(path))
        answers.append([(d.code, d.confidence, d.notes) for d in ex.diagnoses])
        if fork:  # probed during the scan, then the missing sections (if any) after it
            assert where[0] == "early-probes" and len(calls) in (1, 2), (where, calls)
        else:
            assert where == ["MainThread"]
    assert answers[0] == answers[1] and answers[0]
    assert len(read) == 2 and read[0] == read[1]


def test_the_early_probe_adds_only_missing_sections(monkeypatch):
    import envdoctor.probes
    from envdoctor.commands.explain import _EarlyProbe
    from envdoctor.explain import load_signatures
    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(envdoctor.probes, "collect", _fake_collect(calls))
    early = _EarlyProbe()
    early.start([sig for sig in load_signatures() if not sig.conditions][:3])
    assert early.thread is None and not calls  # nothing found needs facts: nothing probed
    sig = next(sig for sig in load_signatures() if sig.conditions)
    from envdoctor.explain.conditions import sections_needed
    first = sections_needed([sig])
    early.start([sig])
    facts = early.facts(None)  # the whole scan needs every section
    assert calls[0] == first
    want = tuple(sec for sec in conditions_sections() if sec not in (first or ()))
    assert calls[1:] == ([want] if first is not None and want else [])
    assert all(getattr(facts, sec) == _probed(sec) for sec in conditions_sections())


def conditions_sections():
    from envdoctor.explain.conditions import SECTIONS
    return SECTIONS


def test_this_process_scans_a_smaller_part_when_it_probes_facts_after(tmp_path, monkeypatch):
    """``busy`` (facts will be probed after this process's part): with eight parts it scans
    about 3 % of the log instead of 10 %, and the merge is still the one-process scan."""
    path = tmp_path / "train.log"
    path.write_bytes(build(4, 60))
    monkeypatch.setattr(parallel, "spare_cpus", lambda: 12)
    size = path.stat().st_size
    with open(path, "rb") as fh:
        idle = parallel._plan(fh, 4096, 0)
    with open(path, "rb") as fh:
        busy = parallel._plan(fh, 4096, 0, busy=True)
    assert idle is not None and busy is not None
    assert len(idle[2]) == len(busy[2]) == parallel.MAX_PARTS - 1
    assert busy[2][0][0] < idle[2][0][0]
    assert busy[2][0][0] / size < 0.06 and 0.08 < idle[2][0][0] / size < 0.14
    s = scanner()
    with open(path, "rb") as fh:
        split = parallel.scan_file(s, fh, block_bytes=4096, minimum=0, busy=True)
    with open(path, "rb") as fh:
        one = s.scan_stream(fh, block_bytes=4096)
    assert split is not None and summary(split) == summary(one)
