"""install: the command `envdoctor suggest` gives for this machine, for install-type fixes.

The planners live in ``envdoctor.suggest``; this family module only names them for the
registry.
"""

from envdoctor.suggest.knowledge import install_line, install_lines, install_why, kept_install_line

__all__ = ["install_line", "install_lines", "install_why", "kept_install_line"]
