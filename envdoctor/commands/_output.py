"""Where a command's text goes: ``--output FILE`` or stdout, with colour only on a terminal.

Shared by every command (check, explain, facts, report, diff) so that a file that cannot be
written is the same one-line exit-2 error everywhere. Kept free of heavy imports: `explain`
starts in a fraction of a second.
"""

from __future__ import annotations

import os
import sys

from envdoctor.errors import BadInput


def emit(text: str, output: str | None) -> None:
    """Write to --output (a file) or stdout."""
    if output and output != "-":
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise BadInput(f"{output}: cannot write: {exc.strerror or exc}") from None
    else:
        from envdoctor.streams import write_stdout
        write_stdout(text)


def use_color(output: str | None) -> bool:
    """Colour only for a terminal on stdout, and never under NO_COLOR or TERM=dumb."""
    if output and output != "-":
        return False
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def check_output_paths(output: str | None, reports: tuple[str, ...] | list[str]) -> None:
    """Before any work: every output file can be written, and no two outputs are one file.

    ``-o X --report json:X`` would silently overwrite one with the other, and an unwritable
    ``--report`` path would otherwise be found only after the whole run.
    """
    paths = []
    if output and output != "-":
        paths.append(("--output", output))
    for spec in reports:
        fmt, sep, path = spec.partition(":")
        if sep and path:
            paths.append((f"--report {fmt}", path))
    seen: dict[str, str] = {}
    for option, path in paths:
        real = os.path.realpath(path)
        if real in seen:
            raise BadInput(f"{option} {path}: the same file as {seen[real]}; give each output "
                           "its own file")
        seen[real] = f"{option} {path}"
        if os.path.isdir(real):
            raise BadInput(f"{option} {path}: is a directory")
        folder = os.path.dirname(real) or "."
        if not os.path.isdir(folder):
            raise BadInput(f"{option} {path}: cannot write: folder {folder} does not exist")
        target = real if os.path.exists(real) else folder
        if not os.access(target, os.W_OK):
            raise BadInput(f"{option} {path}: cannot write: permission denied")
