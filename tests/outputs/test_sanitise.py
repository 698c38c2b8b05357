"""The sanitiser of each output kind (envdoctor.outputs.sanitise), on hostile and on random
text: nothing unsafe stays raw, controls are shown (not deleted), own markup only survives."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from envdoctor.outputs import sanitise
from tests.outputs.hostile import HOSTILE, commands_by_kind, honoured, raw_unsafe

ANY_TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF),
                   max_size=300)


def test_terminal_shows_every_control_instead_of_deleting_it():
    out = sanitise.terminal("a\x1b]0;t\x07b\x9b31mc\u202ed\te\nf\r")
    assert out == "a\\x1b]0;t\\x07b\\x9b31mc\\u202ed\te\nf\\x0d"
    assert raw_unsafe(sanitise.terminal(HOSTILE)) == []
    assert "pwned-title" in sanitise.terminal(HOSTILE)  # the text is still there, inert


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_every_sink_leaves_nothing_raw_and_is_idempotent(text):
    for kind in ("terminal", "github", "markdown", "xml"):
        once = sanitise.clean(kind, text)
        assert raw_unsafe(once) == [], kind
        assert sanitise.clean(kind, once) == once, kind
        once.encode("utf-8")  # a lone surrogate would make the write fail


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_no_line_of_github_log_text_is_a_command(text):
    assert honoured(sanitise.github_log(text + HOSTILE)) == []
    assert honoured(sanitise.github(sanitise.github_log(text))) == []


def test_github_sink_keeps_only_the_commands_envdoctor_writes():
    own = sanitise.command("error", "why ##[error] %\nfix: x::y, z\r",
                           {"file": "envdoctor.toml", "title": "E1 a: b, c"})
    assert own == ("::error file=envdoctor.toml,title=E1 a%3A b%2C c::why ## [error] %25"
                   "%0Afix: x::y, z%0D")
    group = sanitise.command("group", "envdoctor report")
    doc = "\n".join([own, group, sanitise.github_log(HOSTILE), sanitise.command("endgroup", "")])
    kinds = commands_by_kind(sanitise.github(doc))
    assert kinds["other"] == []
    assert kinds["annotation"] == [own] and kinds["group"] == [group, "::endgroup::"]
    # data a renderer forgot to pass through github_log: the sink still lets no command
    # through but an annotation or a group (no stop-commands, add-mask, set-output ...)
    raw = "\n".join([HOSTILE, "::stop-commands::tok", "\t::set-env name=A::B", "::add-path::/x"])
    assert commands_by_kind(sanitise.github(raw))["other"] == []


def test_a_command_cannot_carry_a_raw_escape_or_line_break():
    line = sanitise.command("warning", "a\x1b]0;x\x07\u2028b\x85c", {"title": "t\r\n\x9b"})
    assert "\n" not in line and raw_unsafe(line) == []
    assert line == "::warning title=t%0D%0A\\x9b::a\\x1b]0;x\\x07\\u2028b\\x85c"


def test_markdown_data_shows_as_text():
    cell = sanitise.md_cell("a | b\n<script>x</script> [l](javascript:y) `c` *e* &lt;")
    assert cell == ("a \\| b &lt;script>x&lt;/script> \\[l\\](javascript:y) \\`c\\` \\*e\\* "
                    "&amp;lt;")
    assert sanitise.md_cell(None) == "—" and sanitise.md_cell("  ") == "—"
    assert sanitise.md_line("# heading") == "\\# heading"
    assert sanitise.md_line("1. item") == "1\\. item" and sanitise.md_line("> q") == "\\> q"
    assert sanitise.md_code("a`b|c") == "``a`b\\|c``"
    assert sanitise.md_code("`x`") == "`` `x` ``"
    fence = sanitise.md_fence("x\n```\n*b*\n````")
    assert fence[0] == fence[-1] == "`````" and fence[1:-1] == ["x", "```", "*b*", "````"]
    pre = sanitise.md_fence("x\n<script>a&lt;</script>\n```")
    assert pre == ["<pre>", "x", "&lt;script&gt;a&amp;lt;&lt;/script&gt;", "```", "</pre>"]


def test_a_workflow_command_inside_a_line_is_inert_but_cpp_names_stay():
    for sink in (sanitise.terminal, sanitise.github, sanitise.one_line):
        out = sink("H100 ::error title=X::y (::add-mask::z) std::vector ::x a::b")
        assert "::error" not in out and "::add-mask" not in out
        assert "std::vector" in out and "a::b" in out
    line = sanitise.command("error", "GPU H100 ::stop-commands::t", {"title": "T"})
    assert line == "::error title=T::GPU H100 : :stop-commands::t"
    assert sanitise.github(line) == line
    assert sanitise.md_link("https://a.b/c?d=e") == "<https://a.b/c?d=e>"
    assert sanitise.md_link("javascript:alert(1)") == "`javascript:alert(1)`"
    assert sanitise.md_link("https://a.b/<x>") == "`https://a.b/<x>`"


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_junit_text_always_parses_and_is_inert_in_a_log(text):
    root = ET.Element("testsuite", name=text)
    ET.SubElement(root, "failure", message=text).text = text + HOSTILE
    doc = sanitise.clean("junit", ET.tostring(root, encoding="unicode"))
    parsed = ET.fromstring(doc)
    assert parsed.tag == "testsuite" and honoured(doc) == [] and raw_unsafe(doc) == []
    if not raw_unsafe(text) and "\r" not in text:  # safe text is kept exactly
        assert parsed.get("name") == text


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_json_stays_valid_exact_and_inert(text):
    for ascii_only in (True, False):
        doc = sanitise.clean("json", json.dumps({"v": text + HOSTILE, "k" + text: [text]}, indent=1,
                                                ensure_ascii=ascii_only))
        assert raw_unsafe(doc) == [] and honoured(doc) == []
        data = json.loads(doc)
        assert data["v"] == text + HOSTILE and data["k" + text] == [text]  # exactly the original


def test_colour_only_from_envdoctors_marks():
    styled = sanitise.style("ERROR", "bold red") + " gpu \x1b[8mhidden\x1b[0m"
    assert sanitise.terminal(styled, color=True) == \
        "\x1b[1;31mERROR\x1b[0m gpu \\x1b[8mhidden\\x1b[0m"
    assert sanitise.terminal(styled) == "ERROR gpu \\x1b[8mhidden\\x1b[0m"
    forged = "[1;31m"  # the mark cannot be typed: without it, a colour is just text
    assert sanitise.terminal(forged, color=True) == forged


def test_the_live_progress_bar_shows_a_workers_words_as_text():
    """The bar is rich markup on the terminal: a worker's ImportError cannot style it, and
    its escapes are shown."""
    from rich.console import Console
    from rich.text import Text

    from envdoctor.live.progress import _shown
    shown = _shown("torch: ImportError [bold red]x[/] \x1b]0;t\x07\u202e")
    console = Console(force_terminal=True, color_system="standard", width=200)
    with console.capture() as capture:
        console.print(Text.from_markup(shown), end="")
    out = capture.get()
    assert "[bold red]x[/]" in out and "\\x1b]0;t\\x07\\u202e" in out
    assert "\x1b]" not in out and raw_unsafe(out.replace("\x1b[", "")) == []
