"""`suggest torch` on machines whose GPU is an Intel one: PyTorch's +xpu wheels
(download.pytorch.org/whl/xpu) for a GPU PyTorch's XPU notes list, by the releases the data
says have XPU wheels; the CPU build, with the reason, for older integrated graphics; never a
CUDA wheel."""

from __future__ import annotations

from packaging.version import Version

from envdoctor.engine import example_facts
from envdoctor.suggest import suggest
from envdoctor.suggest.data import torch_rows
from envdoctor.suggest.xpu_plan import family

XPU_INDEX = "https://download.pytorch.org/whl/xpu"


def _intel(device, slot="0000:03:00.0", driver="xe", python="3.12", os="Linux", arch="x86_64",
           torch=None, dists=None, nvidia=None):
    data = {"host": {"os": os, "arch": arch, "python_version": python,
                     "intel_gpus": [{"pci_address": slot, "device": device, "driver": driver}]},
            "nvidia": nvidia or {"probe": {"status": "not_found"}},
            "rocm": {"probe": {"status": "not_found"}}}
    if torch:
        data["frameworks"] = {"torch": {"version": torch}}
        data["packages"] = {"distributions": {"torch": torch, **(dists or {})}}
    return example_facts(data)


def _torch(facts, keep=False, names=("torch",)):
    return suggest(facts, list(names), keep_installed=keep).suggestions[0]


def _texts(s) -> str:
    return "\n".join(r.text for r in s.reasons)


def _newest_xpu(platform: str, python: str) -> str:
    """The newest release whose row lists an xpu build for this platform and Python: read
    from the data, so a new row moves the expectation with it."""
    from packaging.specifiers import SpecifierSet
    return next(str(r["torch"]) for r in torch_rows() if "xpu" in r.get(platform, [])
                and SpecifierSet(r.get("python", "")).contains(python))


def test_an_arc_b580_gets_the_newest_xpu_build_from_the_xpu_index():
    s = _torch(_intel("0xe20b"))
    want = _newest_xpu("linux_x86_64", "3.12")
    assert (s.status, s.version, s.variant) == ("ok", want, "xpu")
    assert s.command and s.command.endswith(f"--index-url {XPU_INDEX}")
    assert "cu1" not in s.command and "/whl/cpu" not in s.command
    text = _texts(s)
    assert "Intel Arc B-Series Graphics (Battlemage) (0xe20b)" in text
    assert "Intel GPU driver" in text
    driver = next(r for r in s.reasons if r.constraint == "driver")
    assert driver.source.startswith("https://docs.pytorch.org/")
    assert "get_start_xpu" in driver.source


def test_the_newest_release_without_an_xpu_row_is_not_claimed_to_have_one():
    newest = torch_rows()[0]
    s = _torch(_intel("0x56a0", driver="i915", python="3.12"))
    if "xpu" in newest.get("linux_x86_64", []):
        assert s.version == str(newest["torch"])
    else:
        assert Version(s.version) < Version(str(newest["torch"]))
        assert f"no xpu (Intel GPU) build of torch {newest['torch']}" in _texts(s)


def test_a_data_center_max_and_windows_get_xpu_too():
    s = _torch(_intel("0x0bd5", driver="i915", python="3.11"))
    assert s.variant == "xpu"
    w = _torch(_intel("0xe20b", os="Windows", arch="AMD64", python="3.12"))
    assert (w.variant, w.version) == ("xpu", _newest_xpu("win_amd64", "3.12"))
    assert XPU_INDEX in (w.command or "")


def test_core_ultra_arc_graphics_is_an_xpu_target_but_old_uhd_graphics_is_not():
    mtl = _torch(_intel("0x7d55", slot="0000:00:02.0", driver="i915"))
    assert mtl.variant == "xpu"
    uhd = _torch(_intel("0x9a49", slot="0000:00:02.0", driver="i915"))   # Tiger Lake Iris Xe
    assert uhd.status == "ok" and uhd.variant == "cpu" and "/whl/cpu" in (uhd.command or "")
    assert "not in the hardware PyTorch's XPU notes validate" in _texts(uhd)
    assert family("0x9a49") is None


def test_flex_is_named_and_not_an_xpu_target():
    s = _torch(_intel("0x56c0", driver="i915"))
    assert s.variant == "cpu"
    assert "Data Center GPU Flex" in _texts(s)


def test_a_python_no_xpu_wheel_has_gets_cpu_and_says_why():
    s = _torch(_intel("0xe20b", python="3.15"))
    from packaging.specifiers import SpecifierSet
    has = any("xpu" in r.get("linux_x86_64", [])
              and SpecifierSet(r.get("python", "")).contains("3.15") for r in torch_rows())
    if has:
        assert s.variant == "xpu"
        return
    assert s.variant == "cpu"
    assert "no torch release in the data has an XPU wheel" in _texts(s)
    assert any(a.variant == "xpu" for a in s.alternatives)


def test_an_unknown_discrete_intel_gpu_is_undecided_not_cpu_and_not_cuda():
    s = _torch(_intel("0xffff"))
    assert s.status == "undecided" and s.command is None
    assert any("whl/xpu" in a.text for a in s.alternatives)


def test_keep_realigns_an_installed_xpu_torch_and_moves_a_cuda_one():
    dists = {"torchvision": "0.28.0+xpu"}
    kept = _torch(_intel("0x56a0", driver="i915", torch="2.13.0+xpu", dists=dists), keep=True)
    assert (kept.status, kept.version, kept.variant) == ("installed", "2.13.0", "xpu")
    cuda = _torch(_intel("0x56a0", driver="i915", torch="2.13.0+cu126"), keep=True)
    assert cuda.variant == "xpu" and XPU_INDEX in (cuda.command or "")
    assert "--force-reinstall" in (cuda.command or "")


def test_torchaudio_comes_from_the_xpu_index_when_asked():
    s = _torch(_intel("0xe20b", python="3.12"), names=("torch", "torchaudio"))
    assert s.variant == "xpu" and XPU_INDEX in (s.command or "")
    row = next(r for r in torch_rows() if str(r["torch"]) == s.version)
    if row.get("torchaudio"):
        assert f"torchaudio=={row['torchaudio']}" in (s.command or "")


def test_an_nvidia_gpu_beside_the_intel_one_keeps_the_cuda_answer():
    nv = {"probe": {"status": "ok"}, "driver_version": "580.65.06",
          "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}]}
    s = _torch(_intel("0x7d55", slot="0000:00:02.0", driver="i915", nvidia=nv))
    assert s.variant is not None and s.variant.startswith("cu")


def test_online_reads_the_xpu_folder_for_an_intel_gpu(tmp_path, monkeypatch):
    """--online: an Intel GPU machine reads the index's xpu folder (never a CUDA one), and a
    release the shipped data lists no xpu build of is taken from what the folder lists."""
    import os

    from envdoctor.suggest.index import Online

    from .index_fixture import serving
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    for name in ("ENVDOCTOR_CACHE_DIR", "ENVDOCTOR_NO_CACHE", "PIP_INDEX_URL",
                 "ENVDOCTOR_INDEX_TTL", "http_proxy", "https_proxy", "HTTP_PROXY",
                 "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    with serving("json") as index:
        got = suggest(_intel("0xe20b", python="3.12"), ["torch"],
                      online=Online(index.url, index.torch_root, 10)).suggestions[0]
        asked = list(index.paths)
    assert (got.version, got.variant) == ("2.16.0", "xpu")
    assert got.command and got.command.endswith("/whl/xpu")
    assert not any("/cu1" in p for p in asked)
