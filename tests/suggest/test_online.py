"""`suggest --online` against a package index served on 127.0.0.1 (never the network).

The fixture (``index_fixture``) lists newer releases than the shipped data: each profile must
get the newest release that fits its platform, Python, GPU and driver, from either page
flavour, through a mirror named in pip's configuration, with yanked files and pre-releases
skipped and ``requires-python`` respected.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from packaging.version import Version

from envdoctor import pipeline
from envdoctor.suggest import data, suggest
from envdoctor.suggest.data import data_as_of
from envdoctor.suggest.index import Online
from envdoctor.suggest.index.config import pip_index_url

from .index_fixture import serving

AS_OF = data_as_of()  # the date every answer resting on rules/matrices names

MACHINES = Path(__file__).parent / "machines"
PROXIES = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY")


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    """A private cache and seal key, no proxy, no pip configuration of this machine."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    for name in ("ENVDOCTOR_CACHE_DIR", "ENVDOCTOR_NO_CACHE", "PIP_INDEX_URL",
                 "ENVDOCTOR_INDEX_TTL", *PROXIES):
        monkeypatch.delenv(name, raising=False)


def facts(name: str):
    return pipeline.load_facts_file(str(MACHINES / f"{name}.json"))


def picks(name: str, online: Online | None, frameworks=("torch", "jax", "tensorflow")):
    got = suggest(facts(name), list(frameworks), online=online)
    return {s.framework: s for s in got.suggestions}, got


def shipped(name: str, framework: str = "torch"):
    """The answer of the shipped data alone (no index): what an unreadable index leaves."""
    return picks(name, None, (framework,))[0][framework]


# profile -> framework -> (status, version, variant, packages); derived by hand from the fixture
EXPECTED = {
    # Python 3.12, driver 580: torch 2.16.0 on the stable (PyPI) cu132, its torchvision by
    # metadata
    "h100-driver580-nvcc": {
        "torch": ("ok", "2.16.0", "cu132", ("torch==2.16.0", "torchvision==0.30.0")),
        "jax": ("ok", "0.13.0", "jax[cuda13]", ("jax[cuda13]==0.13.0",)),
        "tensorflow": ("ok", "2.22.*", "tensorflow[and-cuda]",
                       ("tensorflow[and-cuda]==2.22.*",))},
    # driver 550: CUDA 12.x builds only, the newest of them (cu129: from the root's page)
    "a100-driver550": {
        "torch": ("ok", "2.16.0", "cu129", ("torch==2.16.0", "torchvision==0.30.0")),
        "jax": ("ok", "0.13.0", "jax[cuda12]", ("jax[cuda12]==0.13.0",))},
    # Python 3.10: 2.16.0 requires >= 3.11 and 2.16.1 is yanked, so 2.14.1
    "windows-rtx3070-py310": {
        "torch": ("ok", "2.14.1", "cu126", ("torch==2.14.1", "torchvision==0.29.1"))},
    # aarch64: the cu132 build's arch list (filter_aarch64_archs) has sm_90, as on x86_64
    "gh200-aarch64-driver580": {
        "torch": ("ok", "2.16.0", "cu132", ("torch==2.16.0", "torchvision==0.30.0")),
        "jax": ("ok", "0.13.0", "jax[cuda13]", ("jax[cuda13]==0.13.0",))},
    # Apple silicon: PyPI's wheels, TensorFlow 2.22 (macOS arm64 wheels listed), not 2.16
    "macos-arm64": {
        "torch": ("ok", "2.16.0", "cpu", ("torch==2.16.0", "torchvision==0.30.0")),
        "jax": ("ok", "0.13.0", "cpu", ("jax==0.13.0",)),
        "tensorflow": ("ok", "2.22.*", "cpu", ("tensorflow==2.22.*",))},
    # Intel Mac: the last x86_64 wheels on the index, with the shipped pairing and NumPy 1.x
    "macos-x86_64": {
        "torch": ("ok", "2.2.2", "cpu", ("torch==2.2.2", "torchvision==0.17.2", "numpy<2")),
        "tensorflow": ("ok", "2.16.*", "cpu", ("tensorflow==2.16.*",))},
    "linux-cpu-only": {
        "torch": ("ok", "2.16.0", "cpu", ("torch==2.16.0", "torchvision==0.30.0"))},
    "rtx5090-driver580": {
        "torch": ("ok", "2.16.0", "cu132", ("torch==2.16.0", "torchvision==0.30.0"))},
    # driver 570 (CUDA 12.x) and sm_120 (cu128+): cu129, a variant only the root's page names
    "rtx5090-driver570": {
        "torch": ("ok", "2.16.0", "cu129", ("torch==2.16.0", "torchvision==0.30.0"))},
    # installed 2.16.0+cu132 is what the index says is newest: nothing to change
    "h200-torch216-newer-than-data": {"torch": ("installed", "2.16.0", "cu132", ())},
}


@pytest.mark.parametrize("flavour", ["json", "html"])
def test_online_picks_the_newest_release_that_fits_each_profile(flavour):
    with serving(flavour) as index:
        online = Online(index.url, index.torch_root, 10)
        for name, want in EXPECTED.items():
            got, result = picks(name, online, tuple(want))
            assert result.notes == (), (name, result.notes)
            for framework, (status, version, variant, packages) in want.items():
                s = got[framework]
                assert (s.status, s.version, s.variant, s.packages) == \
                    (status, version, variant, packages), (name, framework, s.reasons)
                if s.command and variant.startswith("cu"):
                    assert s.command.endswith(f"--index-url {index.torch_root}/{variant}")
                if s.command and name.startswith("macos"):
                    assert "--index-url" not in s.command
                assert "releases as" in s.data and f"as of {AS_OF}" in s.data
        assert any(p.endswith(".metadata") for p in index.paths)  # pins read from metadata


def test_the_fixture_is_newer_than_the_shipped_data():
    """Without the index the same profiles get older answers: the online picks above come
    from the index, not the shipped rows (when the data catches up with the fixture, this
    fails until the fixture lists newer releases again)."""
    got, result = picks("h100-driver580-nvcc", None, ("torch", "jax"))
    online = EXPECTED["h100-driver580-nvcc"]
    assert Version(got["torch"].version) < Version(online["torch"][1])
    assert Version(got["jax"].version) < Version(online["jax"][1])
    assert got["torch"].version == str(data.torch_rows()[0]["torch"])   # the newest shipped
    assert not result.online and got["torch"].data == f"rules/matrices as of {AS_OF}"


def test_what_no_index_states_of_a_new_release_is_said_to_be_assumed():
    """torch 2.16.0+cu129 and TF 2.22 are listed by the index but not described by the data:
    the arch list and the CUDA they are built with are inferred from the data's nearest rows,
    and every reason resting on them says so and is unconfirmed."""
    with serving("json") as index:
        online = Online(index.url, index.torch_root, 10)
        torch, _ = picks("a100-driver550", online, ("torch",))
        tf, _ = picks("h100-driver580-nvcc", online, ("tensorflow",))
        v100, _ = picks("v100-driver580", online, ("torch",))
    arch = [r for r in torch["torch"].reasons if r.constraint == "arch"]
    assert len(arch) == 1 and not arch[0].confirmed
    assert arch[0].text.startswith("the cu129 build of torch 2.16.0 has sm_80 code")
    assert "assuming it keeps the arch list of the cu129 build of torch 2.8.0" in arch[0].text
    assert "less sm_70" in arch[0].text          # Volta left cu128 with torch 2.11
    built = [r for r in tf["tensorflow"].reasons if "is built with CUDA" in r.text]
    assert built and all("assumed" in r.text and "TF 2.21's" in r.text and not r.confirmed
                         for r in built)
    # a GPU the inferred list leaves out is never "ok" on that build
    assert v100["torch"].variant != "cu129"
    assert any("cu129 build of torch 2.16.0" in r.text and "unknown" in r.text
               for r in v100["torch"].reasons)
    # a variant the data never described (cu134 of the shipped 2.14.0) has nothing to go on
    from envdoctor.suggest.archs import derived_archs
    assert derived_archs(Version("2.14.0"), "cu134", "linux_x86_64") is None
    assert derived_archs(Version("2.16.0"), "cu129", "linux_aarch64") is None  # no aarch64 row


def test_yanked_and_prereleases_are_never_suggested():
    with serving("html") as index:
        online = Online(index.url, index.torch_root, 10)
        for path in sorted(MACHINES.glob("*.json")):
            if path.name.endswith(".expected.json"):
                continue
            result = suggest(pipeline.load_facts_file(str(path)), ["torch"], online=online)
            text = json.dumps(result.to_dict())
            assert "2.16.1" not in text and "2.17.0" not in text, path.name


def test_a_mirror_configured_in_pip_conf_is_read(tmp_path, monkeypatch):
    with serving("json") as index:
        conf = tmp_path / "pip.conf"
        conf.write_text(f"[global]\nindex-url = http://127.0.0.1:{index.port}/mirror/simple\n")
        monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
        got, result = picks("macos-arm64", Online(None, index.torch_root, 10), ("torch",))
        assert got["torch"].version == "2.16.0" and result.notes == ()
        assert any(p.startswith("/mirror/simple/torch/") for p in index.paths)
        assert not any(p.startswith("/simple/") for p in index.paths)


def test_pip_configuration_order(tmp_path, monkeypatch):
    """pip's order: the user file, then PIP_CONFIG_FILE ([install] over [global]), then
    PIP_INDEX_URL over every file."""
    user = tmp_path / "xdg" / "pip" / "pip.conf"
    user.parent.mkdir(parents=True)
    user.write_text("[global]\nindex-url = https://user.example/simple\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("PIP_CONFIG_FILE")
    assert pip_index_url() == ("https://user.example/simple", str(user))
    env_file = tmp_path / "env.ini"
    env_file.write_text("[global]\nindex-url = https://global.example/simple\n"
                        "[install]\nindex-url = https://install.example/simple\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(env_file))
    assert pip_index_url() == ("https://install.example/simple", str(env_file))
    monkeypatch.setenv("PIP_INDEX_URL", "https://env.example/simple")
    assert pip_index_url() == ("https://env.example/simple", "PIP_INDEX_URL")
    monkeypatch.delenv("PIP_INDEX_URL")
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    assert pip_index_url() is None


def test_a_mirror_token_is_never_printed():
    with serving("json") as index:
        root = index.torch_root.replace("http://", "http://user:s3cret@")
        got, result = picks("a100-driver550", Online(index.url, root, 10), ("torch",))
        text = json.dumps(result.to_dict())
        assert got["torch"].version == "2.16.0" and "s3cret" not in text
        assert f"{index.torch_root}/cu129" in got["torch"].command
        assert "Basic dXNlcjpzM2NyZXQ=" in index.auth   # user:s3cret, as pip sends it


def test_pages_come_from_the_sealed_cache_within_its_lifetime(tmp_path):
    with serving("json") as index:
        url, root = index.url, index.torch_root
        first, _ = picks("h100-driver580-nvcc", Online(url, root, 10), ("torch",))
    # the server is gone: the cache answers
    again, result = picks("h100-driver580-nvcc", Online(url, root, 5), ("torch",))
    assert again["torch"].version == first["torch"].version == "2.16.0"
    assert result.notes == ()
    # a forged entry is not used: the page must be fetched, and the closed server says no
    entries = list((tmp_path / "cache" / "envdoctor" / "index").glob("*.json"))
    assert entries
    for entry in entries:
        head, _, body = entry.read_text().partition("\n")
        entry.write_text(head + "\n" + body.replace("2.16.0", "2.99.0"))
    forged, result = picks("h100-driver580-nvcc", Online(url, root, 3), ("torch",))
    assert forged["torch"].version == shipped("h100-driver580-nvcc").version != "2.16.0"
    assert len(result.notes) == 1
    assert "could not be read" in result.notes[0]


def test_no_cache_past_its_lifetime(monkeypatch):
    monkeypatch.setenv("ENVDOCTOR_INDEX_TTL", "0")
    with serving("json") as index:
        url, root = index.url, index.torch_root
        picks("linux-cpu-only", Online(url, root, 10), ("torch",))
    got, result = picks("linux-cpu-only", Online(url, root, 3), ("torch",))
    assert got["torch"].version == shipped("linux-cpu-only").version != "2.16.0"
    assert len(result.notes) == 1


def test_metadata_pins_pair_torchaudio():
    with serving("json") as index:
        got = suggest(facts("h100-driver580-nvcc"), ["torch", "torchaudio"],
                      online=Online(index.url, index.torch_root, 10)).suggestions[0]
    assert got.packages == ("torch==2.16.0", "torchvision==0.30.0", "torchaudio==2.16.0")


def test_a_plugin_the_index_lacks_is_not_suggested():
    with serving("json") as index:
        index.pages["simple/jax-cuda13-plugin"] = []
        got, result = picks("h100-driver580-nvcc", Online(index.url, index.torch_root, 10),
                            ("jax",))
    assert (got["jax"].version, got["jax"].variant) == ("0.13.0", "jax[cuda12]")
    assert any("lists no jax-cuda13-plugin 0.13.0" in r.text for r in got["jax"].reasons)


def test_data_line_names_the_index_and_the_shipped_date():
    with serving("json") as index:
        got, result = picks("linux-cpu-only", Online(index.url, index.torch_root, 10),
                            ("torch", "xformers"))
    assert got["torch"].data.startswith(f"releases as {index.torch_root} lists them")
    assert got["xformers"].data == f"rules/matrices as of {AS_OF}"   # not read online
    assert result.to_dict()["online"] is True
    assert re.search(r"as of \d{4}-\d\d-\d\d", got["torch"].data)


def test_a_variant_without_a_driver_floor_in_the_data_is_never_suggested():
    """cu140 (CUDA 14: no driver floor in the shipped data) is listed by the root but never
    asked for, so no answer rests on a driver nobody checked."""
    with serving("json") as index:
        online = Online(index.url, index.torch_root, 10)
        for name in ("h100-driver580-nvcc", "rtx5090-driver580", "a100-driver550"):
            got, _ = picks(name, online, ("torch",))
            assert got["torch"].variant != "cu140"
        assert not any("/cu140/" for p in index.paths if "/cu140/" in p)
        assert any(p.startswith("/whl/cu129/torch/") for p in index.paths)


def test_a_gpu_machine_gets_the_newest_jax_with_a_plugin_for_its_driver():
    """jax 0.13.0 without a CUDA 12 plugin: driver 550 keeps jax[cuda12] 0.11.1, driver 580
    gets jax[cuda13] 0.13.0."""
    with serving("json") as index:
        page = index.pages["simple/jax-cuda12-plugin"]
        page[:] = [f for f in page if "-0.13.0-" not in f["filename"]]
        online = Online(index.url, index.torch_root, 10)
        old, _ = picks("a100-driver550", online, ("jax",))
        new, _ = picks("h100-driver580-nvcc", online, ("jax",))
    assert (old["jax"].version, old["jax"].variant) == ("0.11.1", "jax[cuda12]")
    assert (new["jax"].version, new["jax"].variant) == ("0.13.0", "jax[cuda13]")


class _Drip:
    """A body that never ends: one piece per read."""

    def __init__(self, piece: bytes = b"x" * 1000, pause: float = 0.0) -> None:
        self.piece, self.pause, self.reads = piece, pause, 0

    def read1(self, n: int) -> bytes:
        import time
        self.reads += 1
        time.sleep(self.pause)
        return self.piece[:n]


def test_the_bounded_body_reader_stops_at_its_limit_and_deadline():
    import time

    from envdoctor.bounded import InputError, read_stream
    endless = _Drip()
    with pytest.raises(InputError, match="larger than 100000 bytes"):
        read_stream(endless, 100_000, "a page")
    assert endless.reads == 101
    start = time.monotonic()
    with pytest.raises(InputError, match="deadline"):
        read_stream(_Drip(b"x", 0.05), 1 << 20, "a page", time.monotonic() + 0.3)
    assert time.monotonic() - start < 1.0


def test_an_unreadable_torch_root_leaves_the_build_pypi_carries(monkeypatch):
    """Only the simple index answers (the torch root is down): PyPI's own torch build (cu132
    on Linux x86_64) still gets the new release, and one line says what was read instead."""
    from .index_fixture import closed_port
    with serving("json") as index:
        dead = f"http://127.0.0.1:{closed_port()}/whl"
        got, result = picks("h100-driver580-nvcc", Online(index.url, dead, 10), ("torch",))
        old, old_result = picks("a100-driver550", Online(index.url, dead, 10), ("torch",))
    assert (got["torch"].version, got["torch"].variant) == ("2.16.0", "cu132")
    assert got["torch"].packages == ("torch==2.16.0", "torchvision==0.30.0")
    assert len(result.notes) == 1 and "only the build PyPI carries (cu132)" in result.notes[0]
    # driver 550 cannot run cu132: the CUDA 12 builds stay the shipped ones
    want = shipped("a100-driver550")
    assert (old["torch"].version, old["torch"].variant) == (want.version, want.variant)
    assert old["torch"].variant == "cu126" and old["torch"].version != "2.16.0"
    assert len(old_result.notes) == 1


def test_one_run_reads_an_amd_box_and_a_cpu_box_of_the_same_python_apart():
    """The index view is chosen per machine by every fact the page choice reads: an AMD box
    asks for the rocm* folders, a CPU-only box of the same platform and Python for cpu; one
    Online object (one run, several profiles) must not answer the second from the first's."""
    from .heldout6_index import serving as serving6
    from .test_heldout5 import snapshot
    amd = {"name": "amd", "os": "Linux", "arch": "x86_64", "python": "3.13.5",
           "rocm": {"version": "7.2.0", "gpu": "AMD Instinct MI300X", "gfx": "gfx942"}}
    cpu = {"name": "cpu", "os": "Linux", "arch": "x86_64", "python": "3.13.5"}
    with serving6("json") as index:
        online = Online(index.url, index.torch_root, 10)
        first = suggest(snapshot(amd), ["torch"], online=online).suggestions[0]
        second = suggest(snapshot(cpu), ["torch"], online=online).suggestions[0]
    assert first.variant and first.variant.startswith("rocm")
    assert (second.version, second.variant) == ("2.16.0", "cpu")


def test_a_rocm_variant_the_data_does_not_order_is_priced_as_its_own_upgrade():
    """rocm7.14 (the index's only ROCm build of 2.16.0) is newer than the data's ROCm order:
    whether a ROCm 7.2 kernel driver runs its user space no source here states (AMD lists the
    amdgpu 30.30 driver with ROCm 6.3-7.2 user space, 31.40 with 7.14), so the answer stays on
    rocm7.2 and 2.16.0 is the upgrade to ROCm 7.14's own driver, not dropped."""
    from .heldout6_index import serving as serving6
    from .test_heldout5 import snapshot
    amd = {"name": "amd", "os": "Linux", "arch": "x86_64", "python": "3.13.5",
           "rocm": {"version": "7.2.0", "gpu": "AMD Instinct MI300X", "gfx": "gfx942"}}
    with serving6("json") as index:
        s = suggest(snapshot(amd), ["torch"],
                    online=Online(index.url, index.torch_root, 10)).suggestions[0]
    assert (s.version, s.variant) == ("2.15.1", "rocm7.2")
    up = next(a for a in s.alternatives if a.variant == "rocm7.14")
    assert (up.version, up.price) == ("2.16.0", "ROCm 7.14") and up.command
    assert "ROCm 7.14 is not in the data's order of ROCm releases: whether the kernel driver " \
        "of ROCm 7.2 runs the user space of rocm7.14 is unknown" in \
        "\n".join(r.text for r in s.reasons)
