"""Prefilter literals that healthy training logs hold are a speed defect, so each is named here.

Every line whose reduced text holds a pattern's literal is decoded and run through the regex
(~15 us a line). A literal that ordinary log lines hold ('site-packages' in pip output,
'cuda_visible_devices' in a launcher's banner) makes ``explain`` on a healthy 100 MB log do that
for a large share of its lines. The loader prefers any other required literal of the pattern
(``signatures._score``); a pattern whose only literals are ordinary is listed below with the
reason it has no better one, and a new one fails this test.
"""

from __future__ import annotations

import io

from envdoctor.explain import scan as scan_mod
from envdoctor.explain import scan_stream, scanner
from envdoctor.explain.reduced import HEALTHY_LINES, ordinary
from envdoctor.explain.signatures import required_literals

# (code, pattern source prefix): the regex's only required text is an ordinary word
ORDINARY_ONLY = {
    # 'CUDA_VISIBLE_DEVICES=1': the digit and '=' are dropped from the reduced text
    ("ECUDA015", 'CUDA_VISIBLE_DEVICES["'),
    # '--device 0' / '--device cuda:0': '-', '=', ':' and the digits are dropped, 'device' is left
    ("ETORCH006", "(?<![\\w-])--device[= ]"),
    # 'cuda>=12.1' (a container's requirement): '>', '=', '.' and the digits are dropped
    ("ECTR003", "(?i)(?<![=\"'\\w.-])cuda ?>= ?"),
    # 'BLAS = 0' (llama.cpp's system-info line, and 'BLAS=0' said in titles and prose): ' ', '='
    # and the digit are dropped, 'blas' is left; the line's other keys (AVX, FMA, SSE3) are as
    # ordinary, and the prose forms have none
    ("EOLLAMA004", "(?i)(?<![\\w.])BLAS ?= ?0"),
}


def _ordinary_patterns() -> set[tuple[str, str]]:
    found = set()
    for sig in scanner().signatures:
        for pat in sig.patterns + sig.anti_patterns:
            if pat.literals and any(ordinary(lit) for lit in pat.literals):
                found.add((sig.code, pat.source))
    return found


def test_no_pattern_anchors_on_what_healthy_logs_hold():
    found = _ordinary_patterns()
    unexplained = {(code, src) for code, src in found
                   if not any(code == c and src.startswith(p) for c, p in ORDINARY_ONLY)}
    assert not unexplained, f"patterns whose prefilter literal healthy log lines hold: {unexplained}"


def test_the_loader_prefers_a_rarer_literal():
    # 'site-packages' (pip's every line) is the longest run, and still the worse anchor
    lits = required_literals(r"AppData[\\/]Roaming[\\/]Python[\\/]\w+[\\/]site-packages")
    assert lits and "appdata/roaming/python/" in lits and "site-packages" not in lits
    assert ordinary("site-packages") and not ordinary("appdata")


def test_healthy_log_lines_rarely_reach_the_regexes(monkeypatch):
    """A healthy log made of HEALTHY_LINES: only the listed ordinary-only patterns' lines and
    each line shape's first line per block (contexts) reach the regexes."""
    lines = [line.replace("1200", str(step))
             for step in range(30_000) for line in (HEALTHY_LINES[step % len(HEALTHY_LINES)],)]
    reached = []
    original = scan_mod._State._match

    def counting(self, line_no, text, entries, above, *memo):
        reached.append(text)
        return original(self, line_no, text, entries, above, *memo)

    monkeypatch.setattr(scan_mod._State, "_match", counting)
    result = scan_stream(io.BytesIO(("\n".join(lines) + "\n").encode()))
    assert not result.by_code
    banner = sum(1 for t in lines if "CUDA_VISIBLE_DEVICES" in t)  # ECUDA015's ordinary literal
    assert len(reached) - banner < 0.02 * len(lines), len(reached)
