"""Whose code raised the import failure a text ends with: the package's own files, or a
caller of it (EPY009 / EPY010 yielding to EPY011).

"No module named 'A.b'" or "cannot import name 'x' from 'A.b'" says the installed A lacks
something. When the innermost frame of that traceback is a file inside A's own installed
folder (``…/site-packages/A/…``), A's own code imports it: A's files do not fit together
(two releases mixed by an interrupted or overlapping install, or a process that kept old
modules loaded across an upgrade), which no other release of A's callers can fix. When the
frame is elsewhere (the project, another package) the caller wants another release of A.
"""

from __future__ import annotations

import re

_MISSING = re.compile(r"""^No module named ['"]?([A-Za-z_]\w{0,60})(?:\.[A-Za-z_]\w{0,60}){1,8}""")
_NAME_FROM = re.compile(r"""^cannot import name ['"]\w{1,80}['"] from ['"]([A-Za-z_]\w{0,60})"""
                        r"""(?:\.[A-Za-z_]\w{0,60}){0,8}['"]""")
_TYPES = ("ModuleNotFoundError", "ImportError")


def inside_package_reason(text: str) -> str | None:
    """The note when the text's last import failure of a package's part was raised by a file
    inside that package's own installed folder, else None."""
    from envdoctor.explain.textfacts import text_facts
    last = next((e for e in reversed(text_facts(text).exceptions) if e.type in _TYPES), None)
    if last is None or not last.raised_in:
        return None
    m = _MISSING.match(last.message) or _NAME_FROM.match(last.message)
    if m is None:
        return None
    top = m.group(1)
    where = last.raised_in.replace("\\", "/")
    if re.search(rf"/(?:site|dist)-packages/{re.escape(top)}/", where) is None:
        return None
    from envdoctor.engine.knowledge.imports import import_lookup
    row = import_lookup(top, "whole")
    dist = row["dist"] if row else top
    return (f"The import that failed is {top}'s own: {where} imports it, so the installed "
            f"{dist}'s files come from two releases. Restart the process, then "
            f"`python -m pip install --force-reinstall --no-deps {dist}`.")
