"""`suggest` on a Jetson whose L4T files were read: NVIDIA's torch for that JetPack, for the
Python the JetPack's wheels are built for; "undecided" with the reason where no source in the
data states a wheel (rules/matrices/jetson.toml)."""

from __future__ import annotations

from envdoctor.facts import Facts
from envdoctor.suggest import suggest


def board(python: str, l4t: str, jetpack: str | None, soc: str, torch: dict | None = None,
          dists: tuple = ()) -> Facts:
    return Facts.from_dict({
        "schema_version": 3,
        "host": {"probe": {"status": "ok"}, "os": "Linux", "arch": "aarch64",
                 "python_version": python},
        "nvidia": {"probe": {"status": "not_found"}},
        "jetson": {"probe": {"status": "ok"}, "l4t": l4t, "jetpack": jetpack, "soc": soc,
                   "model": "NVIDIA Jetson AGX Orin Developer Kit"},
        "packages": {"probe": {"status": "ok"}, "distributions": list(dists)},
        "frameworks": {"probe": {"status": "ok"}, **({"torch": torch} if torch else {})}})


def torch_of(facts: Facts):
    return suggest(facts, ["torch"]).suggestions[0]


def _text(s) -> str:
    return " ".join([r.text for r in s.reasons] + [a.text for a in s.alternatives])


def test_jetpack_62_gets_nvidias_wheel_for_python_310():
    s = torch_of(board("3.10.12", "36.4.3", "6.2", "tegra234"))
    assert s.status == "ok" and s.command is not None
    assert "redist/jp/v61/pytorch" in s.command and "cp310" in s.command
    assert "download.pytorch.org" not in s.command and "nvidia-jetpack 6.2" in _text(s)
    assert "jp6/cu126" in _text(s)  # the newer builds' index, as an alternative


def test_another_python_has_no_wheel_and_says_which_python():
    s = torch_of(board("3.11.9", "36.4.3", "6.2", "tegra234"))
    assert s.status == "none" and s.command is None
    assert "Python 3.10" in _text(s)
    assert s.alternatives and "python3.10 -m venv" in s.alternatives[0].text


def test_jetpack_from_the_l4t_release_when_nvidia_jetpack_is_not_installed():
    s = torch_of(board("3.8.10", "35.4.1", None, "tegra194"))
    assert s.status == "ok" and "redist/jp/v512/pytorch" in (s.command or "")
    assert "L4T 35.4.1 is JetPack 5.1.2" in _text(s)


def test_thor_on_jetpack_7_gets_the_cu13x_server_wheels():
    # JetPack 7 is SBSA-aligned: the Arm-server planner answers (the newest CUDA 13 build
    # whose aarch64 arch list has sm_110), for any Python PyTorch builds, not NVIDIA's one
    s = torch_of(board("3.12.3", "38.2.0", "7.0", "tegra264"))
    assert s.status == "ok" and "download.pytorch.org/whl/cu13" in (s.command or "")
    assert "SBSA-aligned" in _text(s) and "JetPack's own" in _text(s)
    s = torch_of(board("3.14.0", "38.2.0", "7.0", "tegra264"))
    assert s.status == "ok" and (s.variant or "").startswith("cu13")


def test_unknown_l4t_release_stays_undecided_with_the_reason():
    s = torch_of(board("3.10.12", "36.9.0", None, "tegra234"))
    assert s.status == "undecided" and s.command is None
    assert "L4T 36.9.0" in _text(s) and "states no NVIDIA PyTorch wheel" in _text(s)
    assert all("cu1" not in (a.command or "") for a in s.alternatives)


def test_jetpack_60_is_not_given_the_cuda_126_wheel():
    s = torch_of(board("3.10.12", "36.3.0", "6.0", "tegra234"))
    assert s.status == "undecided" and s.command is None


def test_nvidias_wheel_installed_is_nothing_to_change():
    s = torch_of(board("3.10.12", "36.4.3", "6.2", "tegra234",
                       torch={"version": "2.5.0a0+872d972e41.nv24.08", "cuda": "12.6"}))
    assert s.status == "installed"


def test_the_sbsa_wheel_installed_is_replaced():
    s = torch_of(board("3.10.12", "36.4.3", "6.2", "tegra234",
                       torch={"version": "2.9.0", "cuda": "12.8"},
                       dists=({"name": "nvidia-cudnn-cu12", "version": "9.10.2.21"},)))
    assert s.status == "ok" and "redist/jp/v61" in (s.command or "")


def test_tensorflow_on_a_known_jetpack_names_it_and_stays_undecided():
    s = suggest(board("3.10.12", "36.4.3", "6.2", "tegra234"), ["tensorflow"]).suggestions[0]
    assert s.status == "undecided" and "nvidia-jetpack 6.2" in _text(s)
    assert "is not in the facts" not in _text(s)
