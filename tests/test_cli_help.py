"""`envdoctor --help` lists the subcommands without importing them, and says what they say."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]


def test_lazy_help_is_each_commands_own_first_paragraph():
    from envdoctor import cli as cli_mod
    ctx = click.Context(cli_mod.cli)
    names = cli_mod.cli.list_commands(ctx)
    assert sorted(cli_mod.LAZY_HELP) == sorted(cli_mod.cli.lazy) == names
    for name in names:
        cmd = cli_mod.cli.get_command(ctx, name)
        assert not cmd.hidden and not cmd.short_help, name
        for limit in range(10, 160, 7):
            stand_in = click.Command(name, help=cli_mod.LAZY_HELP[name])
            assert stand_in.get_short_help_str(limit) == cmd.get_short_help_str(limit), \
                (name, limit)


def test_help_imports_no_subcommand_and_prints_what_click_would():
    code = ("import sys\nfrom click.testing import CliRunner\nfrom envdoctor.cli import cli\n"
            "out = CliRunner().invoke(cli, ['--help'], terminal_width=100).output\n"
            "print(sorted(m for m in sys.modules if m.startswith('envdoctor.commands.')))\n"
            "print(out)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    loaded, _, lazy_out = proc.stdout.partition("\n")
    assert loaded == "[]"
    from envdoctor.cli import cli
    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):
        cli.get_command(ctx, name)  # now every command is imported: click's own listing
    eager = CliRunner().invoke(cli, ["--help"], terminal_width=100).output
    assert lazy_out.rstrip("\n") == eager.rstrip("\n")
    assert "explain  Explain an error" in eager
