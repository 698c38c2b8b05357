"""``conda info`` pasted into an issue: the subdir states the Python's OS and architecture;
osx-64 on a Mac whose CPU the paste names as Apple silicon is Rosetta (a warning), while osx-64
alone is no verdict (an Intel Mac prints the same lines)."""

from __future__ import annotations

from envdoctor import pipeline
from envdoctor.parsers import conda_info, parse_pasted

OSX64 = """
     active environment : base
          conda version : 23.5.2
         python version : 3.11.3.final.0
       virtual packages : __archspec=1=x86_64
                          __osx=10.16=0
                          __unix=0=0
           channel URLs : https://repo.anaconda.com/pkgs/main/osx-64
               platform : osx-64
"""
LINUX = OSX64.replace("osx-64", "linux-64").replace("__osx=10.16=0", "__glibc=2.31=0")


def _loud(text: str) -> set[str]:
    facts = parse_pasted(text)
    assert facts is not None
    return {f.id for f in pipeline.diagnose(facts).findings
            if f.severity.value in ("error", "warning")}


def test_subdir_states_os_arch_and_python():
    part = conda_info.parse(OSX64)
    assert part.values["host.os"] == "Darwin" and part.values["host.arch"] == "x86_64"
    assert str(part.values["host.python_version"]) == "3.11"
    assert conda_info.parse(OSX64.replace("osx-64", "osx-arm64")).values["host.arch"] == "arm64"
    assert conda_info.parse(LINUX).values["host.os"] == "Linux"


def test_osx64_alone_is_no_alarm():
    assert not _loud(OSX64)


def test_osx64_on_a_named_apple_chip_is_rosetta():
    loud = _loud(OSX64 + "\nOn my MacBook Air (Apple M2) this fails.\n")
    assert any("rosetta" in i or "x86-python" in i for i in loud), loud


def test_other_text_is_not_conda_info():
    assert not conda_info.parse("the platform : osx-64 was mentioned in passing")
