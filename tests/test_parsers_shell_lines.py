"""Version and platform lines a shell printed (python --version, uname -a, sw_vers,
/etc/os-release, /proc/driver/nvidia/version), and what a paste that shows only them leaves
undecided."""

from __future__ import annotations

from packaging.version import Version

from envdoctor.facts import Status
from envdoctor.facts.states import State, state_of
from envdoctor.parsers import parse_text

LINUX = """$ python --version
Python 3.10.12
$ uname -a
Linux box 5.15.0-91-generic #101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023 x86_64 x86_64 x86_64 GNU/Linux
$ cat /etc/os-release
PRETTY_NAME="Ubuntu 22.04.3 LTS"
NAME="Ubuntu"
$ cat /proc/driver/nvidia/version
NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024
"""
# pytorch/pytorch#139425
MAC = """>> sw_vers
ProductName:\tmacOS
ProductVersion:\t12.7.6
BuildVersion:\t21H1320
Python 3.11.9 (main, Apr  4 2024, 05:10:52) [Clang 14.0.3 (clang-1403.0.22.14.1)] on darwin
"""


def test_linux_shell_lines():
    facts = parse_text(LINUX)
    assert facts is not None
    assert facts.host.python_version == Version("3.10.12")
    assert (facts.host.os, facts.host.arch, facts.host.kernel) == \
        ("Linux", "x86_64", "5.15.0-91-generic")
    assert facts.host.distro == "Ubuntu 22.04.3 LTS"
    assert facts.nvidia.kernel_module_version == Version("550.90.07")
    # no nvidia-smi table, no nvcc: not shown is not observed, never "none"
    assert state_of(facts, "nvidia.gpus")[0] is State.UNOBSERVED
    assert facts.cuda.probe.status is Status.UNKNOWN


def test_sw_vers_and_python_banner():
    facts = parse_text(MAC)
    assert facts is not None
    assert facts.host.os == "Darwin" and facts.host.distro == "macOS 12.7.6"
    assert facts.host.python_version == Version("3.11.9")


def test_a_version_in_a_sentence_is_not_a_shell_line():
    assert parse_text("I think Python 3.10.12 is fine, and Linux 5.15 too.\n") is None


def test_suggest_from_shell_lines_states_python_and_leaves_the_gpu_open(cli, tmp_path):
    path = tmp_path / "paste.txt"
    path.write_text(LINUX, encoding="utf-8")
    result = cli("suggest", "--from", str(path), "torch", "flash-attn")
    assert result.returncode in (0, 1), result.stderr
    first = result.stdout.splitlines()[0]
    assert "Python 3.10" in first and "not stated" not in first.split("·")[1]
    assert "no NVIDIA GPU" not in first  # a kernel module was shown, the GPU list was not
    assert "none was found" not in result.stdout  # nvcc was not shown: undecided


def test_the_interpreter_banner_names_the_platform():
    from envdoctor.parsers import shell_lines

    text = ("$ python\nPython 3.11.14 (main, Oct 10 2025, 08:54:03) [GCC 11.4.0] on linux\n"
            'Type "help", "copyright", "credits" or "license" for more information.\n')
    assert shell_lines.parse(text).values.get("host.os") == "Linux"
    win = "Python 3.10.11 (tags/v3.10.11:7d4cc5a, Apr  5 2023) [MSC v.1929 64 bit (AMD64)] on win32\n"
    assert shell_lines.parse(win).values.get("host.os") == "Windows"
    both = text + win  # two interpreters: which one ran is not said
    assert "host.os" not in shell_lines.parse(both).values
