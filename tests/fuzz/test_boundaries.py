"""Property-based tests at every input boundary (DESIGN.md section 5, "Proof").

Random, truncated, nested, huge-number and control-character data go into each command's
inputs — pasted reports (``check --from``), tracebacks (``explain``), snapshots (``check
--facts``, ``diff``, ``fleet compare``), policy files (``--policy``), rule files (an
``ENVDOCTOR_RULES`` copy) — through ``envdoctor.cli.main`` in this process (a subprocess costs
~0.3 s), and into the tool-output parsers directly. Every run must end with exit 0, 1 or 2
(never 3, never a traceback), one stderr line with exit 2, no raw control character but
``\\n``/``\\t`` in stdout or stderr, within its time guard, and with no child process left.

Deterministic for CI: ``derandomize=True`` and no example database; ``deadline=None`` with an
explicit per-example guard (SIGALRM raises ``Hung`` in Python code; a hang inside C code, a
backtracking regex, is ended by faulthandler, which dumps the stacks and fails the run).
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import json
import math
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rules"
GUARD_S = 10.0          # per example: far above what one in-process run takes (~50 ms)
CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
TRACE = "Traceback (most recent call last)"

# No "explain" phase: it re-runs a failing example under sys.settrace, ~20x slower, which
# trips the hang guard and hides the real failure.
FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=25,
                suppress_health_check=list(HealthCheck), print_blob=True,
                phases=[Phase.explicit, Phase.generate, Phase.shrink])


class Hung(BaseException):
    """Raised by the guard's alarm; a BaseException so the CLI's crash boundary (which turns
    an Exception into exit 3) lets it through to the test."""


@contextlib.contextmanager
def guard(seconds: float = GUARD_S):
    def ring(signum, frame):
        raise Hung(f"no answer within {seconds:g} s")
    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    faulthandler.dump_traceback_later(seconds * 4, exit=True, file=sys.__stderr__)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        faulthandler.cancel_dump_traceback_later()


class _Stream(io.TextIOWrapper):
    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)

    def text(self) -> str:
        self.flush()
        return self.buffer.getvalue().decode("utf-8", "replace")  # type: ignore[attr-defined]


def run_cli(argv: list[str], stdin: bytes = b"", env: dict[str, str] | None = None
            ) -> tuple[int, str, str]:
    """``envdoctor ARGV`` in this process: (exit code, stdout, stderr)."""
    from envdoctor import cli
    out, err = _Stream(), _Stream()
    saved = sys.stdout, sys.stderr, sys.stdin
    saved_env = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    sys.stdout, sys.stderr = out, err
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    code: int | None = 0
    try:
        with guard():
            try:
                cli.main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdout, sys.stderr, sys.stdin = saved
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return int(code or 0), out.text(), err.text()


def assert_boundary(argv: list[str], code: int, out: str, err: str) -> None:
    what = f"envdoctor {' '.join(a[-40:] for a in argv)}"
    assert code in (0, 1, 2), f"{what}: exit {code}; stderr {err[-600:]!r}"
    assert TRACE not in err and TRACE not in out.split("{", 1)[0], f"{what}: traceback"
    if code == 2:
        lines = [x for x in err.splitlines() if x.strip()]
        assert len(lines) == 1, f"{what}: exit 2 with {len(lines)} stderr lines: {err[-600:]!r}"
    for name, text in (("stdout", out), ("stderr", err)):
        hit = CTRL.findall(text)
        assert not hit, f"{what}: raw control chars {sorted({hex(ord(c)) for c in hit})} in {name}"
    assert not psutil.Process().children(recursive=True), f"{what}: child process left"


def run_and_check(argv: list[str], **kw) -> tuple[int, str, str]:
    code, out, err = run_cli(argv, **kw)
    assert_boundary(argv, code, out, err)
    return code, out, err


@pytest.fixture(scope="module", autouse=True)
def _quiet_env():
    """No rule cache on disk, no policy from the cwd, our rules: each example sees the same."""
    keep = {k: os.environ.get(k) for k in ("ENVDOCTOR_NO_CACHE", "ENVDOCTOR_RULES",
                                           "GITHUB_ACTIONS", "HOME")}
    home = tempfile.mkdtemp(prefix="edfuzz-home-")
    cwd = os.getcwd()
    os.chdir(home)
    os.environ.update(ENVDOCTOR_NO_CACHE="1", ENVDOCTOR_RULES=str(RULES), HOME=home)
    os.environ.pop("GITHUB_ACTIONS", None)
    yield
    os.chdir(cwd)
    for k, v in keep.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture()
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


# --------------------------------------------------------------------------- strategies
HOSTILE_CHARS = ("\x00\x01\x07\x08\x0b\x0c\x0d\x1b\x7f\x85\x9b\x9c\x9d\u2028\u202e\u2066"
                 "\ufeff\ufffe\uffff\ud800\udfff<>&|`*_[]()#:\\\"'")
hostile_text = st.text(alphabet=st.one_of(st.characters(codec=None),
                                          st.sampled_from(list(HOSTILE_CHARS))), max_size=80)
escapes = st.sampled_from(["\x1b[2J", "\x1b]8;;https://e.x/\x1b\\l\x1b]8;;\x1b\\",
                           "\x1b]52;c;eA==\x07", "\x9b31m", "::error::x", "##[group]x",
                           "<script>x</script>", "\r", "\x00", "\u202e"])
huge_numbers = st.one_of(st.integers(min_value=-(10 ** 30), max_value=10 ** 30),
                         st.sampled_from([10 ** 400, -(10 ** 400), 2 ** 63, -1, 0]),
                         st.floats(allow_nan=True, allow_infinity=True))
scalars = st.one_of(st.none(), st.booleans(), huge_numbers, hostile_text)
json_values = st.recursive(scalars, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(hostile_text, kids, max_size=4)), max_leaves=20)
SECTIONS = ("nvidia", "cuda", "libraries", "packages", "frameworks", "env", "host", "live")


def _base_snapshot() -> dict:
    return {"schema_version": 1,
            "nvidia": {"probe": {"status": "ok"}, "driver_version": "470.82.01",
                       "cuda_driver_version": "11.4",
                       "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "cc": "8.6",
                                 "memory_total_mib": 24576}]},
            "frameworks": {"probe": {"status": "ok"},
                           "torch": {"version": "2.3.1+cu121", "cuda": "12.1"}},
            "host": {"probe": {"status": "ok"}, "os": "Linux", "hostname": "node-a"},
            "env": {"probe": {"status": "ok"}, "vars": {"CUDA_VISIBLE_DEVICES": "0"}}}


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*prefix, i))


BASE_PATHS = [p for p in _paths(_base_snapshot()) if p]


def _at(node, path):
    for k in path:
        node = node[k]
    return node


def _reachable(snap, path) -> bool:
    """Whether ``path``'s parent is still a container holding it (or a dict to add it to)."""
    try:
        parent = _at(snap, path[:-1])
    except (KeyError, IndexError, TypeError):
        return False
    return isinstance(parent, dict) or (isinstance(parent, list)
                                        and isinstance(path[-1], int)
                                        and path[-1] < len(parent))


# free text the schema takes as it is (a version or a status must parse, so a splice there only
# tests the schema's refusal, which "retype" already does)
STRING_PATHS = [("nvidia", "gpus", 0, "name"), ("host", "hostname"), ("host", "os"),
                ("env", "vars", "CUDA_VISIBLE_DEVICES"), ("env", "vars", "NCCL_DEBUG")]
VERSION_PATHS = [("nvidia", "driver_version"), ("frameworks", "torch", "version")]
NUMBER_PATHS = [p for p in BASE_PATHS if type(_at(_base_snapshot(), p)) is int]


@st.composite
def snapshots(draw) -> dict:
    """A real-shaped snapshot, mutated: most often its own strings with control characters,
    escape sequences, workflow commands or HTML spliced in and its numbers made huge or
    negative (types the schema accepts, so they reach the rules and renderers), sometimes a
    value or a whole section of the wrong type."""
    snap = _base_snapshot()
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["splice", "splice", "number", "version", "retype"]))
        if kind == "version":
            path = draw(st.sampled_from(VERSION_PATHS))
            value = draw(st.sampled_from(["2.", "550.", "2.3.1+cu"])) + draw(st.sampled_from(
                ["9" * 5000, "\u0663.\u0661", "1" * 30 + ".0", "-1", "0" * 400 + "1"]))
        elif kind == "splice":
            path = draw(st.sampled_from(STRING_PATHS))
            if not _reachable(snap, path):
                continue
            old = _at(snap, path[:-1]).get(path[-1], "")
            if not isinstance(old, str):  # retyped by an earlier draw: nothing to splice into
                continue
            at = draw(st.integers(0, len(old)))
            value = old[:at] + draw(st.one_of(escapes, hostile_text)) + old[at:]
        elif kind == "number":
            path = draw(st.sampled_from(NUMBER_PATHS))
            value = draw(st.one_of(st.integers(-(10 ** 30), 10 ** 30),
                                   st.sampled_from([2 ** 63, -1, 10 ** 4000])))
        else:
            path = draw(st.sampled_from(BASE_PATHS))
            value = draw(json_values)
        if _reachable(snap, path):  # an earlier "retype" may have replaced a parent section
            _at(snap, path[:-1])[path[-1]] = value
    if draw(st.integers(0, 5)) == 0:
        snap[draw(st.sampled_from(SECTIONS))] = draw(json_values)
    return snap


def dumps(value) -> str:
    """JSON as a hostile writer sends it: NaN/Infinity literals, lone surrogates as escapes."""
    return json.dumps(value)


@st.composite
def encoded_json(draw) -> bytes:
    text = dumps(draw(snapshots()))
    # whole half the time: a snapshot that parses is what reaches the rules and renderers
    how = draw(st.sampled_from(["whole"] * 4 + ["truncated", "nested", "bom", "bytes"]))
    if how == "truncated":
        text = text[:draw(st.integers(0, max(0, len(text) - 1)))]
    elif how == "nested":
        depth = draw(st.integers(50, 3000))
        text = '{"nvidia": ' + "[" * depth + "]" * depth + "}"
    elif how == "bom":
        text = "\ufeff" + text
    data = text.encode("utf-8", "surrogatepass")
    if how == "bytes":
        data = data[:draw(st.integers(0, len(data)))] + draw(st.binary(max_size=64))
    return data


CORPUS = [p.read_text(encoding="utf-8", errors="replace")
          for p in sorted((ROOT / "tests" / "data" / "tools").rglob("*.txt"))][:60]


@st.composite
def reports(draw) -> bytes:
    """A real tool output, cut, spliced with hostile lines, escapes and huge numbers."""
    text = draw(st.sampled_from(CORPUS))
    a, b = sorted((draw(st.integers(0, len(text))), draw(st.integers(0, len(text)))))
    text = text[a:b] if draw(st.booleans()) else text
    lines = text.splitlines()
    for _ in range(draw(st.integers(0, 6))):
        pos = draw(st.integers(0, len(lines)))
        lines.insert(pos, draw(st.one_of(hostile_text, escapes, st.builds(
            lambda n: f"Driver Version: {n}    CUDA Version: {n}", huge_numbers),
            st.builds(lambda n: f"torch=={n}", huge_numbers))))
    sep = draw(st.sampled_from(["\n", "\r\n", "\r", "\x00\n"]))
    data = sep.join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data += draw(st.binary(max_size=128))
    return data


@st.composite
def tracebacks(draw) -> bytes:
    frames = draw(st.lists(st.builds(lambda f, n, s: f'  File "{f}", line {n}, in {s}',
                                     hostile_text, huge_numbers, hostile_text), max_size=6))
    error = draw(st.sampled_from([
        "RuntimeError: CUDA error: out of memory",
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB",
        "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275"]))
    tail = draw(st.one_of(hostile_text, escapes))
    chain = draw(st.integers(1, 3))
    block = "Traceback (most recent call last):\n" + "\n".join(frames) + f"\n{error} {tail}\n"
    text = ("\nDuring handling of the above exception, another exception occurred:\n\n"
            .join([block] * chain))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = data[:draw(st.integers(0, len(data)))]
    return data


def toml_key(name: str) -> str:
    return json.dumps(name)  # a TOML basic string is a JSON string (\\u escapes and all)


def toml_value(v, depth=0) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x, depth + 1) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(x, depth + 1)}" for k, x in v.items()) + "}"
    return '""'


toml_values = st.recursive(st.one_of(st.booleans(), huge_numbers, hostile_text),
                           lambda kids: st.one_of(st.lists(kids, max_size=3),
                                                  st.dictionaries(hostile_text, kids, max_size=3)),
                           max_leaves=12)
POLICY_KEYS = ("require", "expect", "fail_on", "ignore")


@st.composite
def policies(draw) -> bytes:
    lines = []
    for key in draw(st.lists(st.one_of(st.sampled_from(POLICY_KEYS), hostile_text), max_size=4,
                             unique=True)):
        value = draw(st.one_of(toml_values, st.lists(st.one_of(st.sampled_from(
            ["torch>=2.4", "gpus>=8", "bf16", "cuda>=12.4", "driver>=550"]), st.builds(
            lambda n: f"gpus>={n}", huge_numbers), hostile_text), max_size=4)))
        lines.append(f"{toml_key(key)} = {toml_value(value)}")
    text = "\n".join(lines) + "\n"
    if draw(st.booleans()):
        text = "[tool.envdoctor]\n" + text
    if draw(st.integers(0, 4)) == 0:
        depth = draw(st.integers(100, 5000))
        text += "deep = " + "[" * depth + "]" * depth + "\n"
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 4)) == 0:
        data = data[:draw(st.integers(0, len(data)))]
    return data


def write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


_SNAP = json.dumps(_base_snapshot())


# --------------------------------------------------------------------------- the properties
@FUZZ
@given(data=reports(), fmt=st.sampled_from(["text", "json", "github", "markdown"]))
@example(data=b"Driver Version: " + b"9" * 5000 + b"\n", fmt="json")
@example(data=b"|   0  Tesla\x1b]52;c;eA==\x07 V100  On | 00000000:00:1E.0 Off | 0 |\n"
         + b"Driver Version: 470.82.01    CUDA Version: 11.4\n", fmt="text")
def test_pasted_report_check_from(work, data, fmt):
    run_and_check(["check", "--from", write(work / "r.txt", data), "--format", fmt])


@FUZZ
@given(data=reports())
def test_pasted_report_on_stdin_suggest(data):
    run_and_check(["suggest", "--from", "-"], stdin=data)


@FUZZ
@given(data=tracebacks(), fmt=st.sampled_from(["text", "markdown", "json"]))
@example(data=b"Traceback (most recent call last):\nRuntimeError: CUDA error: out of memory "
              b"\x1b[2J\x9b31m\xe2\x80\xae\n", fmt="text")
def test_traceback_explain(work, data, fmt):
    run_and_check(["explain", write(work / "t.txt", data), "--no-facts", "--format", fmt])


@FUZZ
@given(data=encoded_json(), fmt=st.sampled_from(["text", "json", "junit", "sarif", "github"]))
@example(data=b'{"schema_version": 1, "frameworks": {"torch": {"version": "2.' + b"1" * 5000
         + b'.0+cu121"}}}', fmt="text")
@example(data=_SNAP.replace("RTX 3090", "RTX \\u001b[31m\\u009b3090").encode(), fmt="text")
def test_snapshot_check_facts(work, data, fmt):
    code, out, _ = run_and_check(["check", "--facts", write(work / "s.json", data),
                                  "--format", fmt])
    if fmt == "junit" and code in (0, 1):
        import xml.etree.ElementTree as ET
        ET.fromstring(out.encode("utf-8"))
    if fmt in ("json", "sarif") and code in (0, 1):
        json.loads(out)


@FUZZ
@given(b=encoded_json(), fmt=st.sampled_from(["text", "json"]), swap=st.booleans())
def test_snapshot_diff(work, b, fmt, swap):
    """One side is the plain snapshot, so every difference diff shows is a fuzzed value."""
    a = write(work / "a.json", _SNAP.encode())
    files = [a, write(work / "b.json", b)]
    run_and_check(["diff", *(files[::-1] if swap else files), "--format", fmt])


@FUZZ
@given(nodes=st.lists(encoded_json(), min_size=1, max_size=4),
       fmt=st.sampled_from(["text", "json", "markdown", "junit"]))
def test_snapshot_fleet_compare(work, nodes, fmt):
    folder = work / f"nodes-{time.monotonic_ns()}"
    folder.mkdir()
    for i, data in enumerate(nodes):
        write(folder / f"n{i}.json", data)
    run_and_check(["fleet", "compare", str(folder), "--format", fmt])


@FUZZ
@given(policy=policies())
@example(policy=b'require = ["gpus>=' + b"9" * 5000 + b'"]\n')
@example(policy=b'expect = "gpu\\u001b[2J"\nfail_on = 1e400\n')
def test_policy_file(work, policy):
    snap = write(work / "s.json", _SNAP.encode())
    run_and_check(["check", "--facts", snap, "--policy", write(work / "p.toml", policy)])


def _rules_copy(work: Path) -> Path:
    """A rules folder made of links to ours, with its own (empty) fuzz area for one file."""
    root = work / f"rules-{time.monotonic_ns()}"
    root.mkdir()
    for entry in RULES.iterdir():
        if entry.name != "checks":
            (root / entry.name).symlink_to(entry)
    (root / "checks").mkdir()
    for area in (RULES / "checks").iterdir():
        (root / "checks" / area.name).symlink_to(area)
    (root / "checks" / "zfuzz").mkdir()
    return root


RULE_KEYS = ("code", "id", "severity", "title", "when", "why", "fix", "references", "evidence",
             "examples", "confirmed")


@st.composite
def rule_files(draw) -> bytes:
    base = {"code": "ZZ999", "id": "fuzzed-rule", "severity": "warning", "title": "t {x}",
            "when": "nvidia.driver_version != None", "why": "w", "fix": "f",
            "references": ["https://example.com/r"]}
    for key in draw(st.lists(st.sampled_from(RULE_KEYS), max_size=3, unique=True)):
        base[key] = draw(st.one_of(toml_values, st.builds(lambda a, b: a + b, st.sampled_from(
            ["len(", "nvidia.gpus[", "driver_below_floor(", "(" * 200, "x and " * 100, "{"]),
            hostile_text), escapes))
    text = "\n".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in base.items()) + "\n"
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 3)) == 0:
        data = data[:draw(st.integers(0, len(data)))]
    return data


@settings(FUZZ, max_examples=15)
@given(rule=rule_files())
def test_rule_file_in_rules_copy(work, rule):
    root = _rules_copy(work)
    write(root / "checks" / "zfuzz" / "ZZ999.toml", rule)
    snap = write(work / "s.json", _SNAP.encode())
    run_and_check(["check", "--facts", snap], env={"ENVDOCTOR_RULES": str(root)})


@settings(FUZZ, max_examples=10)
@given(rule=rule_files())
def test_rule_file_rules_test(work, rule):
    folder = work / f"one-{time.monotonic_ns()}"
    folder.mkdir()
    write(folder / "ZZ999.toml", rule)
    run_and_check(["rules", "test", str(folder)])


# --------------------------------------------------------------------------- tool outputs
def _tool_parsers():
    from envdoctor.parsers import collect_env, nvcc, nvidia_smi, nvidia_smi_q, packages, pip_show
    from envdoctor.probes import cuda, libraries, nvidia
    fields = nvidia.QUERY_FIELDS.split(",")
    return {
        "nvidia_smi.parse": nvidia_smi.parse, "nvidia_smi_q.parse": nvidia_smi_q.parse,
        "nvcc.parse": nvcc.parse, "packages.parse": packages.parse, "pip_show.parse": pip_show.parse,
        "collect_env.parse": collect_env.parse,
        "nvidia.parse_query_csv": lambda t: nvidia.parse_query_csv(t, fields),
        "nvidia.parse_smi_table": nvidia.parse_smi_table,
        "nvidia.parse_compute_apps_csv": nvidia.parse_compute_apps_csv,
        "nvidia.table_error_rows": nvidia.table_error_rows,
        "nvidia.parse_proc_version": nvidia.parse_proc_version,
        "cuda.parse_nvcc_version": cuda.parse_nvcc_version,
        "cuda.parse_version_json": cuda.parse_version_json,
        "cuda.parse_version_txt": cuda.parse_version_txt,
        "libraries.parse_ldconfig": libraries.parse_ldconfig,
    }


PARSERS = _tool_parsers()


@st.composite
def tool_outputs(draw) -> str:
    """A spliced real output, or nvidia-smi --query-gpu rows with hostile cells."""
    if draw(st.integers(0, 3)):
        return draw(reports()).decode("utf-8", "surrogateescape")
    from tests.faults.matrix2 import csv_row
    keys = draw(st.lists(st.sampled_from(["name", "driver_version", "memory.total", "compute_cap",
                                          "index", "power.draw"]), max_size=3, unique=True))
    cells = {k: draw(st.one_of(hostile_text, escapes, st.builds(str, huge_numbers))) for k in keys}
    return "\n".join(csv_row(i, **cells) for i in range(draw(st.integers(1, 3))))


@settings(FUZZ, max_examples=60)
@given(name=st.sampled_from(sorted(PARSERS)), text=tool_outputs())
@example(name="nvidia.parse_query_csv", text="0, H100, GPU-x, " + "5" * 5000 + ".1, 9.0\n")
@example(name="cuda.parse_version_json", text="[" * 100000)
@example(name="nvidia.parse_proc_version", text="NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
         + "\u0665\u0665\u0660.54.15  Tue Mar\n")
def test_tool_output_parsers(name, text):
    """A parser takes any text a tool can print and returns (a partial result or nothing):
    never raises, never hangs."""
    start = time.monotonic()
    with guard(5.0):
        PARSERS[name](text)
    assert time.monotonic() - start < 5.0
