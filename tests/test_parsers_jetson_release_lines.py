"""L4T's release as its own files print it, in a pasted report: ``cat /etc/nv_tegra_release``
and ``dpkg -l | grep nvidia-l4t-core``. Jetson threads paste these far more often than the
words "L4T 35.4.1"; without them the report's board stayed unknown and no Jetson check ran."""

from __future__ import annotations

from envdoctor.parsers import informal

# the first line of /etc/nv_tegra_release on JetPack 5.1.2 (L4T 35.4.1), as pasted after the command
RELEASE_35 = """automat@agx01:~/Downloads$ cat /etc/nv_tegra_release
# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: aarch64, DATE: Tue Aug  1 19:57:35 UTC 2023
"""
# JetPack 4.6.4's file, indented inside a code block
RELEASE_32 = """        $ cat /etc/nv_tegra_release
        # R32 (release), REVISION: 7.4, GCID: 33514132, BOARD: t210ref, EABI: aarch64, DATE: Fri Jun  9 04:25:08 UTC 2023
"""
# dpkg's listing of L4T's core package (JetPack 6.2)
DPKG_36 = """$ dpkg -l | grep 'nvidia-l4t-core'
ii  nvidia-l4t-core                                   36.4.3-20250107174145                       arm64        NVIDIA Core Package
"""


def _l4t(text: str) -> str | None:
    value = informal.parse(text).values.get("jetson.l4t")
    return None if value is None else str(value)


def test_release_file_gives_l4t_and_the_board_architecture():
    part = informal.parse(RELEASE_35)
    assert str(part.values["jetson.l4t"]) == "35.4.1"
    assert part.values["host.arch"] == "aarch64"
    assert _l4t(RELEASE_32) == "32.7.4"


def test_dpkg_core_package_gives_l4t():
    assert _l4t(DPKG_36) == "36.4.3"


def test_same_release_twice_is_one_value_and_two_releases_are_none():
    assert _l4t(RELEASE_35 + "Jetpack 5.1.2 [L4T 35.4.1]\n") == "35.4.1"
    assert _l4t(RELEASE_35 + DPKG_36) is None  # two boards' releases: say nothing


def test_release_words_without_the_files_format_say_nothing():
    for text in ("We moved from R35 to R36 last week.\n",
                 "# R35 release notes: REVISION history below\n",
                 "ii  nvidia-l4t-core-dev  some text\n"):
        assert _l4t(text) is None
