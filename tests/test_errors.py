"""The one mapping from file-reading failures to one-line BadInput messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from envdoctor.errors import EXIT_USAGE, BadInput, reading


@pytest.mark.parametrize("make,expected", [
    (lambda tmp: tmp / "missing.json", "no such file"),
    (lambda tmp: tmp, "is a directory, not a facts file"),
])
def test_reading_failures_become_one_line_bad_input(tmp_path, make, expected):
    path = make(tmp_path)
    with pytest.raises(BadInput) as caught, reading(path, "a facts file"):
        Path(path).read_text(encoding="utf-8")
    message = caught.value.format_message()
    assert expected in message and "\n" not in message
    assert caught.value.exit_code == EXIT_USAGE


def test_non_utf8_input_is_named(tmp_path):
    path = tmp_path / "blob"
    path.write_bytes(b"\xff\xfe\x00\xc3")
    with pytest.raises(BadInput, match="not UTF-8 text"), reading(path, "a facts file"):
        path.read_text(encoding="utf-8")
