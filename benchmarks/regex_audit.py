"""Find regular expressions that go super-linear on hostile text (a test helper and a tool).

``patterns()`` collects every pattern that can see untrusted text: module-level compiled
patterns and literal patterns passed to ``re.*`` in envdoctor's parsers, probes, explain and
redaction code, plus the error signatures in rules/signatures. ``attacks(pattern)`` builds
hostile inputs: a string the pattern (nearly) matches, with a long run of one filler
character inserted at every token boundary; that is how a nested or overlapping quantifier
(``(.+?)\\s+`` over spaces, ``\\s*(\\d+\\s*)*``) is driven into backtracking. ``slow(pattern)``
times a search on runs of N and 4N characters and reports those whose time grows by more than
``RATIO`` (linear work grows 4x).

Run as a script to print every slow pattern: ``python benchmarks/regex_audit.py [NAME]``
(or ``python benchmarks/bench_linearity.py --patterns``).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import sys
import time
from pathlib import Path

try:  # Python 3.11+
    import re._constants as sre_constants  # type: ignore[import-not-found]
    import re._parser as sre_parse  # type: ignore[import-not-found]
except ImportError:  # Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

(ANY, ASSERT, ASSERT_NOT, AT, BRANCH, CATEGORY, GROUPREF, IN, LITERAL, MAX_REPEAT, MIN_REPEAT,
 NEGATE, NOT_LITERAL, RANGE, SUBPATTERN) = (
    getattr(sre_constants, name) for name in (
        "ANY", "ASSERT", "ASSERT_NOT", "AT", "BRANCH", "CATEGORY", "GROUPREF", "IN", "LITERAL",
        "MAX_REPEAT", "MIN_REPEAT", "NEGATE", "NOT_LITERAL", "RANGE", "SUBPATTERN"))

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("envdoctor.parsers", "envdoctor.probes", "envdoctor.explain")
MODULES = ("envdoctor.outputs.redact", "envdoctor.secrets", "envdoctor.bounded",
           "envdoctor.live.parse", "envdoctor.diff")
FILLERS = (" ", "a", "0", ".", "-", "|", ":", "=", "/", "\t", "_", ",", "A", "x ", "0.", "a,",
           "a ", "0 ", "| ", "a=", "(", "[", '"', "'", "<", "\\", "%", "+", "\n", "\n ", "a\n")
N = 500
MAX_CUTS = 10
RATIO = 9.0
FLOOR = 0.004  # seconds: below this at 4N, nothing to worry about


def _modules() -> list[str]:
    names = list(MODULES)
    for pkg_name in PACKAGES:
        pkg = importlib.import_module(pkg_name)
        names.append(pkg_name)
        for info in pkgutil.iter_modules(pkg.__path__):
            names.append(f"{pkg_name}.{info.name}")
    return names


def _inline(path: Path) -> list[tuple[str, int]]:
    """Literal patterns passed to re.search/match/sub/... in a source file: (pattern, flags).

    A pattern given to ``re.match``/``re.fullmatch`` only ever starts at the beginning, so it
    is audited anchored (``\\A``), as it runs."""
    out = []
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return out
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                and node.func.attr in ("search", "match", "fullmatch", "sub", "subn", "findall",
                                       "finditer", "split", "compile")
                and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            flags = 0
            for kw in node.keywords:
                if kw.arg == "flags" and isinstance(kw.value, ast.Attribute):
                    flags |= getattr(re, kw.value.attr, 0)
            pat = node.args[0].value
            if node.func.attr in ("match", "fullmatch") and not pat.startswith("(?"):
                pat = r"\A(?:" + pat + ")"
            out.append((pat, flags))
    return out


# Patterns their callers only ever apply with fullmatch (to one token): audited anchored.
FULLMATCH = ("envdoctor.parsers.installer._WHEEL",)


def patterns() -> dict[str, re.Pattern]:
    """name -> compiled pattern, for every pattern that sees untrusted text."""
    from envdoctor.lazyre import compiled
    found: dict[str, re.Pattern] = {}
    for name in _modules():
        try:
            mod = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module that cannot import has no patterns to test
            continue
        for attr, value in vars(mod).items():
            value = compiled(value)  # a re.Pattern, or a lazyre.lazy one (compiled here)
            if value is not None and isinstance(value.pattern, str):
                key = f"{name}.{attr}"
                found[key] = (re.compile(rf"\A(?:{value.pattern})\Z", value.flags)
                              if key in FULLMATCH else value)
        src = getattr(mod, "__file__", None)
        known = {v.pattern for v in map(compiled, vars(mod).values()) if v is not None}
        if src:
            for i, (pat, flags) in enumerate(_inline(Path(src))):
                if pat in known:  # the re.compile of a module constant: audited by name
                    continue
                try:
                    found[f"{name}:inline{i}"] = re.compile(pat, flags)
                except re.error:
                    continue
    try:
        from envdoctor.explain.signatures import load_signatures
        for sig in load_signatures():
            for i, pat in enumerate(_signature_patterns(sig)):
                found[f"signature {sig.code}#{i}"] = pat
    except Exception:  # noqa: BLE001 - signatures are audited when they load
        pass
    return found


def _signature_patterns(sig) -> list[re.Pattern]:
    """Every regex of a signature: patterns, anti-patterns, context ones (compiled here: a
    signature's patterns are compiled on first use)."""
    from envdoctor.explain.signatures import all_patterns
    return [p.regex for p in all_patterns(sig)]


# ------------------------------------------------------------------ building hostile inputs
def _char_for(items) -> str:
    """A character an IN (character class) accepts."""
    negate = any(op is NEGATE for op, _ in items)
    if negate:
        banned = set()
        for op, av in items:
            if op is LITERAL:
                banned.add(chr(av))
        for c in "a0 .x":
            if c not in banned:
                return c
        return "~"
    for op, av in items:
        if op is LITERAL:
            return chr(av)
        if op is RANGE:
            return chr(av[0])
        if op is CATEGORY:
            name = str(av).lower()
            if "digit" in name and "not" not in name:
                return "0"
            if "space" in name and "not" not in name:
                return " "
            return "a"
    return "a"


def _example(parsed) -> list[str]:
    """Pieces of one string the parsed pattern matches (a cut point between pieces)."""
    pieces: list[str] = []
    for op, av in parsed:
        if op is LITERAL:
            pieces.append(chr(av))
        elif op is NOT_LITERAL:
            pieces.append("a" if chr(av) != "a" else "b")
        elif op is ANY:
            pieces.append("a")
        elif op is IN:
            pieces.append(_char_for(av))
        elif op in (MAX_REPEAT, MIN_REPEAT):
            lo, _hi, sub = av
            inner = "".join(_example(sub))
            pieces.append(inner * max(lo, 1))
        elif op is SUBPATTERN:
            sub = av[-1]
            pieces.extend(_example(sub))
        elif op is BRANCH:
            pieces.extend(_example(av[1][0]))
        elif op in (ASSERT, ASSERT_NOT, AT, GROUPREF):
            continue
        else:
            continue
    return pieces


def attacks(pattern: re.Pattern, n: int = N) -> list[tuple[str, str]]:
    """(label, text) pairs: the example match with ``filler * n`` at each cut point."""
    try:
        pieces = _example(sre_parse.parse(pattern.pattern, pattern.flags))
    except Exception:  # noqa: BLE001
        pieces = []
    out = []
    for filler in FILLERS:
        run = filler * (n // len(filler))
        out.append((f"{filler!r}*n", run))
        cuts = range(0, len(pieces) + 1)
        if len(cuts) > MAX_CUTS:  # long literals: sample the cut points evenly
            step = len(cuts) / MAX_CUTS
            cuts = sorted({int(i * step) for i in range(MAX_CUTS)} | {len(pieces)})
        for cut in cuts:
            text = "".join(pieces[:cut]) + run + "".join(pieces[cut:])
            out.append((f"cut {cut} {filler!r}*n", text))
            tail = "".join(pieces[:cut]) + run  # the match never completes
            out.append((f"cut {cut} {filler!r}*n, no tail", tail))
    return out


ROW_PATTERNS = ("envdoctor.parsers.nvidia_smi.GPU_ROW", "envdoctor.parsers.nvidia_smi.LIST_ROW",
                "envdoctor.parsers.nvidia_smi.MEM", "envdoctor.probes.nvidia._TABLE_",
                "envdoctor.parsers.installer._WHEEL", "envdoctor.parsers.installer:inline")


def seen_as(name: str, text: str) -> str:
    """The text as the pattern's caller hands it over: parsers get ``clean()``ed text (runs
    of spaces, digits and blank lines capped), table-row and wheel patterns at most 512
    characters, signatures lines of at most 4096 (explain's reader)."""
    from envdoctor.bounded import defuse
    if name.startswith(ROW_PATTERNS):
        return defuse(text)[:512]
    if name.startswith("envdoctor.probes"):  # tool output and files: runner / bounded.read_text
        return defuse(text)
    if name.startswith("envdoctor.parsers"):
        from envdoctor.parsers._text import clean
        return clean(text)
    if name.startswith("signature"):
        return "\n".join(line[:4096] for line in text.split("\n"))
    return text


def _time(pattern: re.Pattern, text: str) -> float:
    start = time.perf_counter()
    for _ in pattern.finditer(text):
        pass
    return time.perf_counter() - start


def slow(pattern: re.Pattern, name: str = "") -> list[str]:
    """The attacks on which ``pattern`` grows super-linearly (empty: linear on all of them)."""
    bad = []
    small = {label: seen_as(name, text) for label, text in attacks(pattern, N)}
    for label, text in attacks(pattern, 4 * N):
        text = seen_as(name, text)
        big_t = _time(pattern, text)
        if big_t < FLOOR:
            continue
        small_t = max(min(_time(pattern, small[label]), _time(pattern, small[label])), 1e-6)
        big_t = min(big_t, _time(pattern, text))
        if big_t < FLOOR:
            continue
        if big_t / small_t > RATIO:
            bad.append(f"{label}: {small_t * 1000:.1f} ms -> {big_t * 1000:.1f} ms")
    return bad


def slow_isolated(pattern: re.Pattern, name: str = "", limit: float = 30.0) -> list[str]:
    """``slow`` in a forked child: a pattern that backtracks for minutes (the regex engine
    holds the GIL, so no timer in this process can stop it) is reported, not waited for."""
    import json
    import os
    import signal

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read)
        try:
            data = json.dumps(slow(pattern, name)).encode()
        except BaseException as exc:  # noqa: BLE001
            data = json.dumps([f"audit failed: {exc}"]).encode()
        os.write(write, data)
        os._exit(0)
    os.close(write)
    deadline = time.monotonic() + limit
    chunks = []
    import select
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([read], [], [], max(0.0, left))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read)
            return [f"still backtracking after {limit:g} s (exponential?)"]
        piece = os.read(read, 65536)
        if not piece:
            break
        chunks.append(piece)
    os.close(read)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks) or b"[]")


def main() -> int:
    sys.path.insert(0, str(ROOT))
    found = patterns()
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    print(f"{len(found)} patterns", flush=True)
    n_bad = 0
    for name, pattern in sorted(found.items()):
        if only and only not in name:
            continue
        bad = slow_isolated(pattern, name)
        if bad:
            n_bad += 1
            print(f"SLOW {name}: {pattern.pattern[:120]!r}", flush=True)
            for line in bad[:3]:
                print(f"     {line}", flush=True)
    print(f"{n_bad} slow")
    return 1 if n_bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
