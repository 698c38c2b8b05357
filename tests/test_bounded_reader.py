"""The one reader's limits, piece by piece, and a property: whatever the bytes, decoding ends
in a value or an ``InputError`` (one line), never another exception, in bounded time."""

from __future__ import annotations

import json
import math
import os
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envdoctor import bounded
from envdoctor.bounded import InputError


# ------------------------------------------------------------------ files
def test_a_fifo_is_refused_at_once_unless_a_stream_is_asked_for(tmp_path):
    fifo = tmp_path / "entry.json"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(InputError, match="pipe"):
        bounded.read_file(fifo, "a cache entry")
    assert time.monotonic() - start < 1


def test_a_sparse_file_past_the_limit_is_refused_unread(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(1 << 40)  # 1 TB of holes: reading it would never end
    start = time.monotonic()
    with pytest.raises(InputError, match="larger than 32 MB"):
        bounded.read_file(big, "a snapshot")
    assert time.monotonic() - start < 1


def test_a_file_that_grows_past_the_limit_while_read_is_refused(tmp_path):
    """/proc files state size 0: the limit holds on what is read, not on what is stated."""
    with pytest.raises(InputError, match="larger than 100 bytes"):
        bounded.read_file("/proc/self/maps", "maps", 100)
    assert bounded.read_proc("/proc/self/maps")  # the bounded read for /proc


@pytest.mark.parametrize("target,message", [("/dev/zero", "device"), ("/", "directory")])
def test_devices_and_folders_are_named(tmp_path, target, message):
    link = tmp_path / "x.toml"
    link.symlink_to(target)
    with pytest.raises(InputError, match=message):
        bounded.read_file(link, "a rule file")


# ------------------------------------------------------------------ JSON
@pytest.mark.parametrize("text,message", [
    ("[" * 100000, "nested deeper than 64"),
    ("[" * 65 + "]" * 65, "nested deeper than 64"),
    ('{"a": NaN}', "NaN is not a number"),
    ('{"a": -Infinity}', "Infinity is not a number"),
    ('{"a": 1e400}', "out of range"),
    ('{"a": ' + "1" * 41 + "}", "41 digits"),
    ('{"a": 1} x', "extra data"),
    ('{"a": ', "not valid JSON"),
])
def test_json_limits(text, message):
    with pytest.raises(InputError, match=message):
        bounded.decode_json(text)


def test_a_refused_number_is_located_by_line_and_key():
    text = '{\n  "gpus": [\n    {"memory_total_mb": ' + "9" * 50 + "}\n  ]\n}"
    with pytest.raises(InputError, match=r"^line 3: 'memory_total_mb': a number of 50 digits"):
        bounded.decode_json(text)


def test_json_within_the_limits_is_read_as_json_reads_it():
    data = {"a": [1, 2.5, -3, None, True, "x" * 1000], "b": {"c": [[[]]]}, "n": 2 ** 62}
    assert bounded.decode_json(json.dumps(data)) == data
    assert bounded.decode_json(b'\xef\xbb\xbf{"bom": 1}') == {"bom": 1}


def test_worker_answers_may_say_nan():
    value = bounded.decode_json('{"max_err": NaN}', nan=True)
    assert math.isnan(value["max_err"])


# ------------------------------------------------------------------ TOML
def test_a_key_of_120000_parts_is_refused_before_tomllib_sees_it():
    text = "a" + ".a" * 120000 + " = 1\n"
    start = time.monotonic()
    with pytest.raises(InputError, match="more than 32 dotted parts"):
        bounded.decode_toml(text)
    assert time.monotonic() - start < 1
    quoted = '"a"' + '."a"' * 40 + " = 1\n"
    with pytest.raises(InputError, match="dotted parts"):
        bounded.decode_toml(quoted)
    with pytest.raises(InputError, match="dotted parts"):
        bounded.decode_toml("[" + ".".join(["t"] * 40) + "]\n")


@pytest.mark.parametrize("text,message", [
    ("a = " + "[" * 5000, "nested too deeply"),
    ("a = 1" + "0" * 25, "64 bits"),
    ("a = nan", "not finite"),
    ("a = -inf", "not finite"),
    ("a = " + "9" * 5000, "thousands of digits"),
    ("a = = 1", "not valid TOML"),
])
def test_toml_limits(text, message):
    with pytest.raises(InputError, match=message):
        bounded.decode_toml(text)


def test_ordinary_toml_with_dots_in_values_passes():
    text = ('[tool.envdoctor]\nrequire = ["torch>=2.4.1.post1", "cuda>=12.4"]\n'
            'url = "https://docs.nvidia.com/a/b/c.d.e.f.g.html"\nx.y.z = 1.5\n')
    assert bounded.decode_toml(text)["tool"]["envdoctor"]["x"]["y"]["z"] == 1.5


# ------------------------------------------------------------------ environment
def test_an_environment_value_past_the_cap_is_unset(monkeypatch):
    monkeypatch.setenv("ENVDOCTOR_RULES", "x" * (bounded.MAX_ENV + 1))
    assert bounded.env("ENVDOCTOR_RULES") is None
    assert bounded.env("ENVDOCTOR_RULES", "") == ""
    assert "ENVDOCTOR_RULES" not in bounded.environ()
    monkeypatch.setenv("ENVDOCTOR_RULES", "/rules")
    assert bounded.env("ENVDOCTOR_RULES") == "/rules"


# ------------------------------------------------------------------ properties
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=30)


@settings(max_examples=200, deadline=None)
@given(_json, st.integers(0, 400), st.sampled_from(["", "[", "{", "]", "NaN", "9" * 60, "\\"]))
def test_any_cut_or_spliced_json_is_a_value_or_one_input_error(value, cut, splice):
    text = json.dumps(value)
    text = text[:cut] + splice + text[cut:]
    try:
        bounded.decode_json(text)
    except InputError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='ab.="[]{}\n 19-+einf', max_size=300))
def test_any_toml_like_text_is_a_table_or_one_input_error(text):
    try:
        assert isinstance(bounded.decode_toml(text), dict)
    except InputError as exc:
        assert str(exc)
