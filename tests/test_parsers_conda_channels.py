"""conda's platform read from the "Current channels:" list of its own errors.

PackagesNotFoundError prints the channel URLs conda searched, each ending in conda's platform
subdir or noarch. An osx-64 list beside an Apple M-series chip is an x86_64 conda under
Rosetta 2 (APPLE001); an osx-arm64 list, or one that mixes platforms, is no such statement.
"""

from __future__ import annotations

from envdoctor import pipeline
from envdoctor.parsers import parse_parts, parse_pasted

_ERROR = """PackagesNotFoundError: The following packages are not available from current channels:

  - tensorflow-deps

Current channels:

  - https://conda.anaconda.org/apple/{sub}
  - https://conda.anaconda.org/apple/noarch
  - https://repo.anaconda.com/pkgs/main/{sub}
  - https://repo.anaconda.com/pkgs/main/noarch
  - https://repo.anaconda.com/pkgs/r/{sub2}
  - https://repo.anaconda.com/pkgs/r/noarch

To search for alternate channels that may provide the conda package you're
looking for, navigate to

    https://anaconda.org
"""

# https://github.com/conda/conda/issues/12502 ("system: MacOS 13 m1 (arm64)", conda 23.1.0)
CONDA_12502 = ("system: MacOS 13 m1 (arm64)\nconda version: 23.1.0\nbug:\n"
               "I ran `conda install -c apple tensorflow-deps`, it reports to me "
               "`PackagesNotFoundError`. below is full log:\n```\n"
               + _ERROR.format(sub="osx-64", sub2="osx-64") + "```\n")

# https://github.com/https-deeplearning-ai/machine-learning-engineering-for-production-public/issues/90
MLEP_90 = ("# Unable to install tensorflow-deps on Mac M1\n\nWhen I run the code "
           "`conda install -c apple tensorflow-deps`, I received the follow error:\n\n```\n"
           + _ERROR.format(sub="osx-64", sub2="osx-64") + "```\n")


def _conda_values(text: str) -> dict[str, object]:
    return next((dict(p.values) for p in parse_parts(text) if p.source == "conda_info"), {})


def _loud(text: str) -> set[str]:
    facts = parse_pasted(text)
    found = [] if facts is None else pipeline.diagnose(facts).findings
    return {f.code for f in found if f.severity.value in ("error", "warning")}


def test_channel_list_states_condas_platform() -> None:
    assert _conda_values(MLEP_90) == {"host.os": "Darwin", "host.arch": "x86_64"}
    arm = MLEP_90.replace("osx-64", "osx-arm64").replace("Mac M1", "Mac")
    assert _conda_values(arm) == {"host.os": "Darwin", "host.arch": "arm64"}


def test_mixed_platforms_state_none() -> None:
    mixed = _ERROR.format(sub="osx-64", sub2="osx-arm64")
    assert _conda_values(mixed) == {}


def test_x86_conda_on_apple_silicon_is_named() -> None:
    assert "APPLE001" in _loud(MLEP_90)
    assert "APPLE001" in _loud(CONDA_12502)


def test_arm64_conda_on_apple_silicon_stays_quiet() -> None:
    # the same error from an arm64 conda (a package missing for another reason)
    arm = CONDA_12502.replace("osx-64", "osx-arm64")
    assert "APPLE001" not in _loud(arm)


def test_x86_conda_without_apple_silicon_stays_quiet() -> None:
    # an Intel Mac's conda prints the same list: no chip named, no verdict
    intel = MLEP_90.replace(" on Mac M1", "")
    assert "APPLE001" not in _loud(intel)
