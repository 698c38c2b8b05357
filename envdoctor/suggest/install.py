"""Spelling one install as a pip, uv or conda command line.

Requirements are quoted when they hold shell-special characters (extras, ``*``, ``<``), so the
line can be pasted as is into bash, zsh or PowerShell.
"""

from __future__ import annotations

INSTALLERS = ("pip", "uv", "conda")
CONDA_NOTE = ("conda: no conda-forge builds are in the data, so this is pip inside the active "
              "conda environment")


def quote(req: str) -> str:
    return f'"{req}"' if any(c in req for c in "[]*<>!~ ") else req


def command(requirements: list[str], index_url: str | None, installer: str = "pip",
            extra_args: tuple[str, ...] = (), index_option: str = "--index-url") -> str:
    """``pip install torch==2.13.0 torchvision==0.28.0 --index-url https://…/cu130``;
    ``index_option`` "--extra-index-url" for releases whose own instructions use it (1.12,
    1.13: the variant's index next to PyPI, with local-version pins)."""
    reqs = " ".join(quote(r) for r in requirements)
    tail = "".join(f" {a}" for a in extra_args)
    if index_url:
        tail += f" {index_option} {index_url}"
    if installer == "uv":
        return f"uv pip install {reqs}{tail}"
    if installer == "conda":
        return f"python -m pip install {reqs}{tail}"
    return f"pip install {reqs}{tail}"
