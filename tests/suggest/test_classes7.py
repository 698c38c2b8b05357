"""The classes batch 7's first run found wrong, fixed by class (tests/suggest/heldout/README.md,
"Batch 7 after this round"), on machines of our own (not the held-out profiles)."""

from __future__ import annotations

from typing import Any

from packaging.tags import Tag

from envdoctor.suggest import suggest
from envdoctor.suggest.index import wheels

from .test_heldout7 import snapshot


def _row(**kw: Any) -> dict[str, Any]:
    return {"name": "own", "os": "Linux", "arch": "x86_64", "python": "3.12.3", **kw}


def _torch(row: dict[str, Any], keep: bool = False) -> Any:
    return suggest(snapshot(row), ["torch"], keep_installed=keep).suggestions[0]


def _text(s: Any) -> str:
    return " ".join(r.text for r in s.reasons)


def test_a_gpu_older_than_every_build_gets_the_cpu_build():
    s = _torch(_row(gpu=["Tesla K20Xm", "3.5"], driver="470.256.02", python="3.10.12"))
    assert (s.status, s.variant) == ("ok", "cpu") and "whl/cpu" in (s.command or "")
    assert "sm_35" in _text(s) and "no driver upgrade" in _text(s)


def test_a_new_gpu_on_an_old_driver_stays_none():
    # a driver upgrade makes a CUDA build run: the answer stays "none" with that way out
    s = _torch(_row(gpu=["NVIDIA L40S", "8.9"], driver="470.256.02", python="3.11.9"))
    assert s.status == "none" and s.alternatives


def test_cuda_101_driver_gets_torch_181_cu101_as_previous_versions_installs_it():
    s = _torch(_row(gpu=["Tesla V100-PCIE-16GB", "7.0"], driver="418.87.01", python="3.8.10"))
    assert (s.status, s.version, s.variant) == ("ok", "1.8.1", "cu101")
    assert "torch==1.8.1+cu101" in (s.command or "")
    assert (s.command or "").endswith("-f https://download.pytorch.org/whl/torch_stable.html")
    # below CUDA 10.1's 418.39 nothing runs
    s = _torch(_row(gpu=["Tesla V100-PCIE-16GB", "7.0"], driver="410.79", python="3.8.10"))
    assert s.status == "none"


def _mac(macos: str | None, python: str = "3.12.8") -> dict[str, Any]:
    return {"name": "own-mac", "os": "Darwin", "arch": "arm64", "python": python,
            **({"macos": macos} if macos else {})}


def test_apple_silicon_torch_follows_the_macos_of_its_wheels():
    old = _torch(_mac("13.6.1"))
    assert (old.version, old.variant) == ("2.11.0", "cpu")
    assert "need macOS >= 14.0 (their platform tag); this Mac runs macOS 13.6.1" in _text(old)
    assert _torch(_mac("14.2")).version == "2.15.0"
    assert _torch(_mac(None)).version == "2.15.0"   # macOS not stated: not held against it


def test_macos_min_reads_the_wheel_tag():
    tags14 = frozenset({Tag("cp312", "cp312", "macosx_14_0_arm64")})
    tags11 = frozenset({Tag("cp312", "cp312", "macosx_11_0_arm64")})
    assert wheels.macos_min([tags14], "macos_arm64", 12) == "14.0"
    assert wheels.macos_min([tags14, tags11], "macos_arm64", 12) == "11.0"
    assert wheels.macos_min([tags14], "macos_arm64", 13) is None   # no cp313 wheel
    assert wheels.macos_min([tags14], "linux_x86_64", 12) is None


def test_keep_keeps_an_installed_build_the_data_does_not_list():
    row = _row(gpu=["NVIDIA GeForce RTX 3080", "8.6"], driver="555.42.06",
               installed=["torch==2.15.0+cu126", "torchvision==0.29.2+cu126"], torch_cuda="12.6")
    s = _torch(row, keep=True)
    assert (s.status, s.version, s.variant) == ("installed", "2.15.0", "cu126")
    assert "does not list a cu126 build of torch 2.15.0" in _text(s)
    assert _torch(row).version != "2.15.0" or _torch(row).variant != "cu126"


def test_jetson_torch_without_board_files_says_what_was_not_seen():
    row = _row(arch="aarch64", python="3.8.10", gpu=["Orin", "8.7"], driver="35.4.1",
               installed=["torch==2.1.0a0+41361538.nv23.06"], torch_cuda="11.4")
    for keep in (False, True):
        s = _torch(row, keep)
        assert s.status == "undecided" and "nv_tegra_release" in _text(s)
        assert "2.1.0a0+41361538.nv23.06 is NVIDIA's JetPack build" in _text(s)


def test_online_views_are_per_machine_not_per_platform_and_python(tmp_path, monkeypatch):
    """Two GPU boxes of one platform and Python, drivers 535 and 580, read through one Online:
    each gets its own plugins (535: jax 0.12.0.1 [cuda12], saying which newer CPU-only jax it
    passed over; 580: jax 0.13.0 [cuda13]), in either order."""
    from envdoctor.suggest.index import Online

    from .heldout7_index import serving
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    old = _row(gpu=["NVIDIA GeForce RTX 4090", "8.9"], driver="535.274.02", python="3.14.0")
    new = _row(gpu=["NVIDIA GeForce RTX 4090", "8.9"], driver="580.95.05", python="3.14.0")
    for order in ((old, new), (new, old)):
        with serving("json") as index:
            online = Online(index.url, index.torch_root, 10)
            got = {r["driver"]: suggest(snapshot(r), ["jax"], online=online).suggestions[0]
                   for r in order}
        assert (got["535.274.02"].version, got["535.274.02"].variant) == \
            ("0.12.0.1", "jax[cuda12]")
        assert "beats a newer CPU-only release" in _text(got["535.274.02"])
        assert (got["580.95.05"].version, got["580.95.05"].variant) == ("0.13.0", "jax[cuda13]")
