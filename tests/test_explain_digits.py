"""Lines that differ only in their numbers are skipped only when no pattern could tell them apart.

The scanner remembers the digit mask (every ASCII digit as ``0``) of a hit line on which every
pattern it ran is *blind* to digits and nothing matched (``digits``, ``scan._State.inert``).
These tests check which regexes count as blind, that the mask keeps a line's length and shape,
and that the fast path with the mask gives the plain path's answer, on patterns that do tell
digits apart ("with 1 GPU", ``[1-9]``, a back-reference) as well as on ones that do not.
"""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envdoctor.explain import digits, scan
from envdoctor.explain.signatures import Pattern, Signature

from tests.test_explain_fastpath import summary


@pytest.mark.parametrize(("source", "blind"), [
    (r"Created device .*GPU", True),
    (r"Step \d+/\d+ : ", True),
    (r"(?i)\bdevice\s?=\s?.cuda", True),
    (r"sm_\w+ is not compatible", True),
    (r"[0-9a-f]{12}", True),
    (r"[^0-9]+ MB", True),
    (r"(?<![\w-])--gpu", True),
    (r"(?i)\b(?:has|have|with|only) (?:a single|one|1) GPU", False),  # the digit 1
    (r"CUDA 12", False),
    (r"python ?3\.1[2-9]\b", False),
    (r"[1-9]\d* GPUs", False),        # a class with some digits, not all
    (r"(\d+) of \1", False),          # a back-reference compares the digits themselves
    (r"(?i)device_count\(\)\D{0,4}\b0\b", False),
])
def test_which_patterns_are_blind_to_digits(source, blind):
    assert digits.blind(source) is blind


def test_the_mask_keeps_length_and_everything_but_ascii_digits():
    raw = "12:00:07.123 step 4096 loss=0.98 ٣ GPU:1\r".encode()
    mask = raw.translate(digits.MASK)
    assert len(mask) == len(raw)
    assert mask == "00:00:00.000 step 0000 loss=0.00 ٣ GPU:0\r".encode()


def _signature(code: str, patterns: list[str], contexts: list[str]) -> Signature:
    from envdoctor.explain.signatures import Context, compile_pattern
    pats = tuple(compile_pattern(p, "test", "patterns") for p in patterns)
    ctx = (Context(tuple(compile_pattern(p, "test", "context") for p in contexts), (),
                   None, None, 0, "", "", False),) if contexts else ()
    return Signature(code=code, id=code.lower(), title="t", category="environment",
                     confidence="high", root_cause_rank=50, patterns=pats, anti_patterns=(),
                     why="w", fix="f", references=("https://example.org/x",), conditions=(),
                     examples=(), contexts=ctx, family="test", path="test", extra={})


SIGNATURES = (
    _signature("ETEST001", [r"with 1 GPU memory"], [r"(?i)\bwith (?:one|1) GPU\b"]),
    _signature("ETEST002", [r"GPU:[2-9] with \d+ MB"], []),
    _signature("ETEST003", [r"step (\d+) of \1 failed"], [r"Created device .*GPU"]),
    _signature("ETEST004", [r"Created device \S+ with \d{5} MB memory"], []),
)


def _line(kind: int, n: int) -> str:
    return [
        f"2025-01-01 12:00:00.{n:06d}: I gpu_device.cc:2019] Created device "
        f"/job:localhost/device:GPU:{n % 4} with {n % 3} GPU memory",
        f"[2025-01-01] epoch {n % 7} step {n} of {n if n % 5 == 0 else n + 1} failed",
        f"Created device x with {n:0{1 + n % 6}d} MB memory",
        f"{n % 100}%|{'#' * (n % 9)}| {n}/1000 [00:{n % 60:02d}<01:00]",
    ][kind]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10**6)), min_size=1,
                max_size=400),
       st.sampled_from([512, 4096, 65536]))
def test_fast_path_with_the_mask_equals_the_plain_path(lines, block):
    data = "".join(_line(k, n) + "\n" for k, n in lines).encode()
    s = scan.Scanner(SIGNATURES)
    fast = s.scan_stream(io.BytesIO(data), block_bytes=block)
    plain = s.scan_stream(io.BytesIO(data), block_bytes=block, plain=True)
    assert summary(fast) == summary(plain)


def test_lines_that_differ_only_in_numbers_are_matched_once(monkeypatch):
    """A log of step lines: after the first line of each mask no pattern runs again."""
    data = "".join(f"[12:00:{i % 60:02d}] Created device d with {i % 9} MB (none)\n"
                   for i in range(3000)).encode()
    s = scan.Scanner((_signature("ETEST005", [r"Created device \S+ with \d+ GB"], []),))
    calls = []
    real = scan._State._match

    def counting(self, *args, **kwargs):
        calls.append(args[0])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(scan._State, "_match", counting)
    result = s.scan_stream(io.BytesIO(data))
    assert not result.by_code
    assert 0 < len(calls) <= 2  # one mask ("00" seconds, one digit of MB), one line or two


def test_a_pattern_that_tells_digits_apart_still_sees_every_line():
    data = "".join(f"Created device d with {i % 10} GPU memory\n" for i in range(200)).encode()
    s = scan.Scanner(SIGNATURES)
    result = s.scan_stream(io.BytesIO(data))
    assert result.by_code["ETEST001"].count == 20  # every line with "1", none with another digit
    assert re.search(r"with 1 GPU", result.by_code["ETEST001"].hits[0].text)
