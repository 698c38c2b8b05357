"""A second reading of a pasted text that explained nothing: hard wraps undone, plain quotes.

A log copied out of a terminal (or an old issue template) may be cut every W characters, in the
middle of a word: ``Failed to find dynamic library: libc`` / ``udnn.so (libcudnn.so: ...``.
Signatures match one line at a time, so such a text can match nothing. The cut lines are the
longest lines of the text and share one exact length, which an ordinary log rarely does; that
is the sign we look for. ``unwrap`` joins each line of exactly that width with the next one.
A paste wrapped at words instead (a mail client, a narrow editor) goes on after each cut in a
line that starts with one space, or keeps that space at the end of the cut line;
``join_continuations`` joins those (two spaces or a tab indent a traceback frame, which is
never joined; two spaces at a line's end are Markdown's hard break).

A text that went through a word processor, a chat app or a web page carries typographic quotes
(``couldn’t``, ``‘GLIBC_2.28’``) and no-break spaces (``&nbsp;``) where the program printed
ASCII; ``plain_punctuation`` puts the ASCII back.

A report typed by hand misspells library names (``lidcuda.so``); ``textfacts`` reads a
near-miss of a known library as that library (a bounded edit distance, not a list of typos).
Status and error identifiers typed by hand (``miOpenStatusUknownError``, ``miopen status
unknown error``) are read the same way against the identifiers the signatures' own examples
show (``identifiers``).

An error copied out of a JSON document (a notebook front end's ``{"name": "OSError", "message":
"... Error loading \\"c:\\\\Users\\\\...\\\\fbgemm.dll\\" or one ..."}``) carries the string's escapes:
quotes and backslashes doubled where the program printed one; ``json_unescape`` undoes them.

A message retyped by hand, or written with French typography, puts a space before the loader's
colon or none after it (``libsscl.so.2 : cannot open shared object file``,
``libncurses.so.5:cannot open``); ``tight_colons`` writes them as the loader does.

A message retyped by hand puts spaces around a slash the program printed tight (``Driver /
library version mismatch``, ``CUDA / cuDNN``); ``tight_slashes`` closes them between two words.

A log pasted with a space between every character (``L o a d L i b r a r y``) is read as the
characters it spells, with word spaces put back where the letters are known words (``spaced``).

A report typed by hand misspells the plain words of the error it retells (``CUDA out of
mempry``); ``words`` reads a near-miss of a word the signatures read as that word. A CJK
character is a word character to ``re``, so ``显示cublas64_12.dll`` defeats a signature's ``\b``;
``space_cjk`` puts a space where CJK touches an ASCII letter or digit.

A report written in Chinese, Japanese, Russian, Spanish… states the cause in that language
or in a localised OS message (``找不到指定的模块``); ``phrases.normalise`` reads the known
phrases as the English the signatures match (vocabulary in ``rules/phrases``).

Python before 3.8 (and 2) says ``ImportError: cannot import name 'PILLOW_VERSION'`` with no module;
the module is the one the traceback's last ``from M import …, NAME`` line imports it from.
``import_name_modules`` writes the message as Python 3.8+ does (``… from 'PIL'``), which is what
the signatures read.

A call typed at a Python prompt and the boolean it printed (``>>> torch.cuda.is_available()`` /
``False``) are read as one line, as a sentence retelling it reads (``repl_results``).

All of these are a fallback: ``explain`` reads a text this way only when, as given, it
explains nothing (so the fast path over big logs never pays for it).
"""

from __future__ import annotations

import re
from collections import Counter

MIN_WIDTH = 40        # narrower "wraps" are ordinary short lines
MIN_CUT_LINES = 2     # lines of exactly the wrap width needed to call the text wrapped
MAX_TEXT = 4 << 20    # pasted texts; a big log is not re-read
TABLE_EDGES = ("|", "+", "-", "=")
MAX_JOINED = 16 << 10  # a joined line stays a line
# typographic quotes and no-break / thin spaces -> the ASCII a program prints
_PLAIN = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
                        "\u2032": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"',
                        "\u00a0": " ", "\u2007": " ", "\u2009": " ", "\u202f": " ",
                        # CJK corner brackets around a name (``cannot find 「cudnn64_5.dll」``)
                        "\u300c": "'", "\u300d": "'", "\u300e": '"', "\u300f": '"'})
# a JSON string's escaped quote or backslash (``\\"``, ``\\\\``, ``\\/``): one pass, left to right
_JSON_ESCAPE = re.compile(r'\\(["\\/])')
# a slash with spaces on both sides between two words, as typed by hand (never a path, a
# division or a ratio: the sides are letters)
_SPACED_SLASH = re.compile(r"(?<=[A-Za-z]) +/ +(?=[A-Za-z])")
# the loader's colons as typed by hand or with French typography: "libsscl.so.2 : cannot open
# shared object file : No such file", "libncurses.so.5:cannot open shared object file"; only
# after a library's file name, after the loader's own phrase, or after an exception's name
_LOOSE_COLON = re.compile(r"(\.(?:so(?:\.\d{1,6}){0,4}|dll|pyd)|cannot open shared object file"
                          r"|\b[A-Z]\w{0,40}(?:Error|Exception)|error while loading shared libraries)"
                          r"(?: :[ \t]?|:(?=[A-Za-z]))")
_TYPOGRAPHIC = frozenset("\u2018\u2019\u201a\u201b\u2032\u201c\u201d\u201e\u00a0\u2007\u2009\u202f"
                         "\u300c\u300d\u300e\u300f")
# where a CJK character (ideograph, kana, hangul: word characters to ``re``) touches an ASCII
# letter or digit (``显示cublas64_12.dll不存在``, ``CUDA:没有``), so that a signature's ``\b``
# before a library or error name holds as it does in an English sentence
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_CJK_EDGE = re.compile(f"(?<=[{_CJK}])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[{_CJK}])")


def second_reading(text: str, undo_wrap: bool = True) -> str | None:
    """The text with typographic punctuation made plain and (``undo_wrap``) a hard wrap undone,
    or None if neither applies (then there is nothing new to read)."""
    if len(text) > MAX_TEXT:
        return None
    plain = plain_punctuation(text)
    if undo_wrap:  # a text that explained nothing: hand-typed names read as meant
        from envdoctor.explain.identifiers import correct_identifiers
        from envdoctor.explain.phrases import normalise
        from envdoctor.explain.spaced import despace
        from envdoctor.explain.textfacts import correct_library_names
        from envdoctor.explain.words import correct_words
        plain = correct_identifiers(correct_words(tight_colons(space_cjk(normalise(
            correct_library_names(tight_slashes(json_unescape(despace(
                import_name_modules(repl_results(plain)))))))))))
    width = wrap_width(plain) if undo_wrap else None
    if width is not None:
        return unwrap(plain, width)
    if undo_wrap and soft_wrapped(plain):
        return join_continuations(plain)
    return plain if plain != text else None


# a line a paste wrapped at a word and went on with one space (``...caused\n "process_linux...``,
# ``file creation failed:\n /var/lib/...``); two spaces or a tab indent a traceback's frame
_CONTINUATION = re.compile(r" (?=[^\s|+=-])")


def _continues(prev: str, line: str) -> bool:
    if not prev.strip() or prev.rstrip().endswith(TABLE_EDGES):
        return False
    if _CONTINUATION.match(line) is not None:
        return True
    # an editor that wraps at words and keeps the space at the end of the cut line
    # (``...is not compatible with \nthe current PyTorch installation``): a line of prose, as
    # long as a wrap width makes it (a short word padded with spaces, a phrase read in
    # another language, is not cut); two trailing spaces are Markdown's hard line break
    return (prev.endswith(" ") and not prev.endswith("  ") and len(prev) > MIN_WIDTH
            and bool(line) and not line[0].isspace() and not line.startswith(TABLE_EDGES))


def soft_wrapped(text: str) -> bool:
    """Was the text wrapped at words, each cut line going on in the next after one space (at
    least MIN_CUT_LINES such lines)?"""
    lines = text.splitlines()
    cuts = sum(1 for a, b in zip(lines, lines[1:], strict=False) if _continues(a, b))
    return cuts >= MIN_CUT_LINES


def join_continuations(text: str) -> str:
    """Each line that goes on after one space joined to the line before it."""
    out: list[str] = []
    for line in text.splitlines():
        if out and _continues(out[-1], line) and len(out[-1]) + len(line) < MAX_JOINED:
            out[-1] += line
            continue
        out.append(line)
    return "\n".join(out) + "\n"


# an interactive session's call and the boolean it printed on the next line
# (``>>> paddle.is_compiled_with_cuda()`` / ``False``, ``In [3]: torch.cuda.is_available()`` /
# ``Out[3]: False``)
_REPL_RESULT = re.compile(r"(?m)^([ \t]*(?:>>>|In \[\d{1,4}\]:)[ \t]?[^\n]{1,300}\))[ \t]*\n"
                          r"[ \t]*(?:Out\[\d{1,4}\]:[ \t]*)?(True|False)[ \t]*$")


def repl_results(text: str) -> str:
    """``>>> torch.cuda.is_available()`` / ``False`` -> ``>>> torch.cuda.is_available() False``:
    a call typed at a Python prompt joined with the boolean it printed on the next line, as a
    sentence retelling it reads (the text itself when it has none)."""
    if ">>>" not in text and "In [" not in text:
        return text
    return _REPL_RESULT.sub(r"\1 \2", text)


# Python <= 3.7's ``cannot import name 'X'`` and Python 2's ``cannot import name X``: no module
# follows the name (nothing but a closing quote, backtick or full stop up to the line's end)
_NAME_NO_MODULE = re.compile(r"""(?m)(cannot import name )(['"]?)([A-Za-z_]\w{0,79})\2(?=[ \t`'".]*$)""")
# a traceback's source line (or an IPython frame's ``----> 6 from …``) importing names from an
# absolute module; the names up to a comment or the line's end
_FROM_IMPORT = re.compile(r"(?m)^[^\n]{0,40}?\bfrom[ \t]+([A-Za-z_]\w{0,60}(?:\.[A-Za-z_]\w{0,60}){0,8})"
                          r"[ \t]+import[ \t]+\(?([^\n#]{1,400})")


def _imported(names: str) -> set[str]:
    """The names a ``from M import`` line binds from M (``a, b as c`` -> {a, b})."""
    out: set[str] = set()
    for part in names.replace("(", " ").replace(")", " ").replace("\\", " ").split(","):
        words = part.strip(" \t`'\"").split()
        if words and re.fullmatch(r"[A-Za-z_]\w*", words[0]):
            out.add(words[0])
    return out


def import_name_modules(text: str) -> str:
    """``cannot import name 'X'`` (Python <= 3.7) -> ``cannot import name 'X' from 'M'`` where
    the text's ``from M import …, X`` line names the module (the last such line before the
    message, else the first after it: a title quoting the message above its traceback); the
    text itself when no message lacks its module or no line names one."""
    if "cannot import name" not in text:
        return text
    sources = [(m.start(), m.group(1), _imported(m.group(2))) for m in _FROM_IMPORT.finditer(text)]
    if not sources:
        return text

    def with_module(m: re.Match[str]) -> str:
        name = m.group(3)
        before = [mod for at, mod, names in sources if at < m.start() and name in names]
        after = [mod for at, mod, names in sources if at > m.start() and name in names]
        module = before[-1] if before else (after[0] if after else None)
        if module is None:
            return m.group(0)
        return f"{m.group(1)}'{name}' from '{module}'"

    return _NAME_NO_MODULE.sub(with_module, text)


def has_typographic(text: str) -> bool:
    """Does the text carry typographic quotes or no-break spaces (a reading worth redoing)?"""
    return not _TYPOGRAPHIC.isdisjoint(text)


def plain_punctuation(text: str) -> str:
    """``couldn’t`` -> ``couldn't``, no-break spaces -> spaces (the text itself if it has none)."""
    if _TYPOGRAPHIC.isdisjoint(text):
        return text
    return text.translate(_PLAIN)


def space_cjk(text: str) -> str:
    """``显示cublas64_12.dll不存在`` -> ``显示 cublas64_12.dll 不存在``: a space wherever a CJK
    character touches an ASCII letter or digit, and a fullwidth colon read as ``:`` (the text
    itself when it is all ASCII)."""
    if text.isascii():
        return text
    # a fullwidth colon where the program printed ``:`` (an IME, a translated page)
    return _CJK_EDGE.sub(" ", text.replace("\uff1a", ":"))


def tight_colons(text: str) -> str:
    """``libsscl.so.2 : cannot open shared object file : No such file`` and
    ``libncurses.so.5:cannot open`` -> the loader's own ``name: text``: a colon with a space
    before it, or none after it, following a library's file name, the loader's phrase or an
    exception's name (the text itself when it has none)."""
    if ":" not in text:
        return text
    return _LOOSE_COLON.sub(r"\1: ", text)


def tight_slashes(text: str) -> str:
    """``Driver / library version mismatch`` -> ``Driver/library version mismatch``: a slash
    between two words with spaces on both sides, as a hand-typed message writes it."""
    if " / " not in text:
        return text
    return _SPACED_SLASH.sub("/", text)


def json_unescape(text: str) -> str:
    """A text holding a JSON-escaped quote (``\\"``) with its escapes undone (``\\"`` -> ``"``,
    ``\\\\`` -> ``\\``); the text itself when it holds none (a Windows path's single
    backslashes are never an escape of a quote)."""
    if '\\"' not in text:
        return text
    return _JSON_ESCAPE.sub(r"\1", text)


def wrap_width(text: str) -> int | None:
    """The width the text was hard-wrapped at, or None when it does not look wrapped."""
    if len(text) > MAX_TEXT:
        return None
    lines = text.splitlines()
    lengths = Counter(len(line) for line in lines if line.strip())
    if not lengths:
        return None
    width = max(lengths)
    if width < MIN_WIDTH or lengths[width] < MIN_CUT_LINES:
        return None
    # a cut line goes on in a shorter one; a text of equally long lines is a table or data
    pairs = zip(lines, lines[1:], strict=False)
    if not any(len(a) == width and b.strip() and len(b) < width for a, b in pairs):
        return None
    return width


def unwrap(text: str, width: int) -> str:
    """Join every line of exactly ``width`` characters with the line after it.

    Table rows (``| ... |``, ``+---+``) keep their line breaks: a table's rows all share one
    width and are not wrapped text.
    """
    out: list[str] = []
    pending = ""
    for line in text.splitlines():
        joined = pending + line
        if (len(line) == width and line.strip() and not line.rstrip().endswith(TABLE_EDGES)
                and len(joined) < MAX_JOINED):
            pending = joined
            continue
        out.append(joined)
        pending = ""
    if pending:
        out.append(pending)
    return "\n".join(out) + "\n"
