"""``ast.parse`` behind one lock: CPython 3.11 keeps the AST constructor's recursion depth in
interpreter-wide state, so two threads parsing at once (the checks loaded in a thread while
the main thread reads a framework's version.py) can fail with "SystemError: AST constructor
recursion depth mismatch" (python/cpython#106905). Every parse in envdoctor goes through here.
"""

from __future__ import annotations

import ast
import threading
from typing import Any

_LOCK = threading.Lock()


def parse(source: str, mode: str = "exec") -> Any:
    """``ast.parse(source, mode=mode)``, one thread at a time."""
    with _LOCK:
        return ast.parse(source, mode=mode)
