"""One machine per constraint where that constraint decides the answer.

Machines are facts snapshots in tests/suggest/machines; every command any of these tests sees
is checked against the index data by ``run`` (suggest_support.check_all).
"""

from __future__ import annotations

from dataclasses import replace

from packaging.version import Version

from envdoctor import pipeline
from envdoctor.suggest import suggest
from envdoctor.suggest.machine import machine_of

from .suggest_support import MACHINES, check_all, run


def _texts(s) -> str:
    return "\n".join([r.text for r in s.reasons] + [a.text for a in s.alternatives])


# ------------------------------------------------------------------ driver ceiling
def test_driver_550_keeps_cuda_12_and_prices_the_cuda_13_upgrade():
    s = run("a100-driver550", "torch")
    assert (s.status, s.version, s.variant) == ("ok", "2.14.1", "cu126")
    assert s.index_url == "https://download.pytorch.org/whl/cu126"
    assert "needs driver >= 580" in _texts(s)
    up = s.alternatives[0]   # 2.15.0 has no CUDA 12 build (cu126 ends with 2.14)
    assert (up.version, up.variant, up.price) == ("2.15.0", "cu132", "driver >= 580")
    assert "upgrade the NVIDIA driver to >= 580 to get torch 2.15.0 cu132" in up.text


def test_driver_580_gets_the_stable_cuda_13_build():
    s = run("h100-driver580-nvcc", "torch")
    assert (s.version, s.variant) == ("2.15.0", "cu132")   # 2.15's PyPI (stable) build
    assert not any(a.price.startswith("driver") for a in s.alternatives)


# ------------------------------------------------------------------ minor-version compatibility
def test_minor_version_compat_lets_a_cuda_12_1_driver_run_a_cu126_wheel():
    """Driver 530 shipped with CUDA 12.1, but 12.x wheels run on >= 525.60.13."""
    s = run("rtx4090-driver530", "torch")
    assert s.variant == "cu126"
    assert "through minor-version compatibility" in _texts(s)


def test_below_the_cuda_12_floor_only_cuda_11_builds_remain():
    s = run("rtx3090-driver520", "torch")
    assert (s.version, s.variant) == ("2.7.1", "cu118")
    assert any(a.price == "driver >= 525.60.13" for a in s.alternatives)


# ------------------------------------------------------------------ arch list
def test_pascal_gtx1080_is_not_in_cuda_13_builds():
    s = run("gtx1080-driver580", "torch")
    assert (s.version, s.variant) == ("2.14.1", "cu126")   # 2.15.0 has no cu126 build
    assert "the cu132 build of torch 2.15.0 has no code for NVIDIA GeForce GTX 1080 (sm_61)" \
        in _texts(s)
    assert "the cu130 build of torch 2.14.1 has no code for NVIDIA GeForce GTX 1080 (sm_61)" \
        in _texts(s)
    assert not any(a.variant in ("cu130", "cu132") for a in s.alternatives)


def test_blackwell_rtx5090_needs_cu128_or_newer():
    s = run("rtx5090-driver570", "torch")
    assert (s.version, s.variant) == ("2.11.0", "cu128")   # cu126 lacks sm_120, cu13x need 580
    assert "the cu126 build of torch 2.14.1 has no code for NVIDIA GeForce RTX 5090" in _texts(s)
    assert s.alternatives[0].variant == "cu132" and s.alternatives[0].price == "driver >= 580"


def test_blackwell_with_driver_580_gets_cu130():
    s = run("rtx5090-driver580", "torch")
    assert (s.version, s.variant) == ("2.15.0", "cu132")


def test_kepler_k80_last_runs_on_torch_27_cu118():
    s = run("k80-driver470", "torch")
    assert (s.version, s.variant) == ("2.7.1", "cu118")
    assert any("not supported by any build of the newest torch" in a.text
               and "torch 2.7.1 cu118" in a.text for a in s.alternatives)


def test_volta_v100_stays_on_cu126_with_a_new_driver():
    s = run("v100-driver580", "torch")
    assert (s.version, s.variant) == ("2.14.1", "cu126")   # the last release with cu126


# ------------------------------------------------------------------ index has no such release
def test_the_cu128_index_has_no_torch_212_or_newer():
    """Driver 570 runs CUDA 12.x only; the newest torch on cu128 is 2.11, and 2.15 has no CUDA
    12 build, so 2.14.1 comes as cu126."""
    s = run("rtx4090-driver570", "torch")
    assert (s.version, s.variant) == ("2.14.1", "cu126")


def test_aarch64_cu126_build_only_has_sm80_and_sm90():
    s = run("gh200-aarch64-driver560", "torch")
    assert (s.version, s.variant) == ("2.14.1", "cu126")
    # sm_90 code in the aarch64 cu126 build (8.0;9.0), said as the code it runs
    assert "the cu126 build of torch 2.14.1 has sm_90 code for NVIDIA GH200" in _texts(s)


# ------------------------------------------------------------------ Python version
def test_python_39_gets_the_last_torch_for_39():
    s = run("rtx4090-py39", "torch")
    assert (s.version, s.variant) == ("2.8.0", "cu128")
    assert any(a.price.startswith("Python") and a.version == "2.15.0" for a in s.alternatives)


def test_python_38_gets_the_last_cp38_release_and_the_way_to_the_newest():
    """torch 2.4.1 is the last release with cp38 wheels (PyPI files; 2.5.0 needs 3.9): a
    Python 3.8 box gets it, with the newest release priced by the Python it needs."""
    s = run("rtx4090-py38", "torch")
    assert (s.status, s.version, s.variant) == ("ok", "2.4.1", "cu121")
    assert "Python 3.8 is inside torch 2.4.1's range" in _texts(s)
    assert "runs the cu121 build of torch 2.4.1's sm_86 code" in _texts(s)
    assert any(a.price.startswith("Python") and a.version == "2.15.0" for a in s.alternatives)


# ------------------------------------------------------------------ platform
def test_aarch64_grace_hopper_gets_the_pypi_cu132_build():
    """2.15.0's aarch64 build is cu132 (PyPI's Linux wheels pin CUDA 13.2); its arch list is
    build_cuda.sh's 13.x list through filter_aarch64_archs (8.0;9.0;10.0;11.0;12.0+PTX), which
    has sm_90: a GH200 on 580 (the CUDA 13.x floor) gets it."""
    s = run("gh200-aarch64-driver580", "torch")
    assert (s.version, s.variant) == ("2.15.0", "cu132")
    assert "the cu132 build of torch 2.15.0 has sm_90 code" in _texts(s)
    assert "arch list of the cu132 build" not in _texts(s)


def test_windows_uses_the_windows_driver_floor():
    s = run("windows-rtx3070-driver546", "torch")
    assert (s.version, s.variant) == ("2.14.1", "cu126")
    assert "528.33" in _texts(s)  # CUDA 12.x minor-version floor on Windows (release notes Table 2)


def test_windows_blackwell_with_a_580_driver_gets_cu130():
    """No Windows CUDA build of 2.15.0 is in the data (PyPI's Windows wheel is the CPU one)."""
    s = run("windows-rtx5080-driver581", "torch")
    assert (s.version, s.variant) == ("2.14.1", "cu130")


def test_macos_arm64_is_the_pypi_wheel_without_an_index():
    s = run("macos-arm64", "torch")
    assert (s.version, s.variant, s.index_url) == ("2.15.0", "cpu", None)
    assert s.command == "pip install torch==2.15.0 torchvision==0.29.2"


def test_macos_x86_64_gets_the_last_intel_mac_release_with_numpy_1():
    s = run("macos-x86_64", "torch")
    assert (s.status, s.version, s.index_url) == ("ok", "2.2.2", None)
    assert s.command == 'pip install torch==2.2.2 torchvision==0.17.2 "numpy<2"'
    assert "macOS x86_64" in _texts(s) and "NumPy 1.x" in _texts(s)


# ------------------------------------------------------------------ CPU only
def test_cpu_only_linux_uses_the_cpu_index():
    s = run("linux-cpu-only", "torch")
    assert (s.variant, s.index_url) == ("cpu", "https://download.pytorch.org/whl/cpu")


def test_gpu_not_probed_is_undecided_not_guessed():
    s = run("gpu-not-probed", "torch")
    assert s.status == "undecided" and s.command is None
    assert any(a.variant == "cpu" and a.command for a in s.alternatives)


# ------------------------------------------------------------------ installed versions
def test_installed_matching_build_is_left_alone_with_keep():
    facts = pipeline.load_facts_file(str(MACHINES / "h200-torch213-cu130-installed.json"))
    s = suggest(facts, ["torch"], keep_installed=True).suggestions[0]
    assert (s.version, s.variant) == ("2.13.0", "cu130")
    assert s.status == "installed" and s.command is None
    assert s.reasons[0].constraint == "installed" and "nothing to change" in s.reasons[0].text


def test_a_working_install_is_upgraded_only_saying_it_works():
    s = run("h200-torch213-cu130-installed", "torch")
    assert (s.status, s.version, s.variant) == ("ok", "2.15.0", "cu132")
    assert "already runs here" in s.reasons[0].text and "--keep" in s.reasons[0].text
    assert s.alternatives[0].version == "2.13.0+cu130" and s.alternatives[0].command is None


def test_only_the_mismatched_companion_is_reinstalled(tmp_path):
    import json
    data = json.loads((MACHINES / "h200-torch213-cu130-installed.json").read_text())
    dists = data["packages"]["distributions"]
    next(d for d in dists if d["name"] == "torchvision")["version"] = "0.27.1+cu130"
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    facts = pipeline.load_facts_file(str(path))
    s = suggest(facts, ["torch"], keep_installed=True).suggestions[0]
    check_all("torchvision-mismatch", s, machine_of(facts))
    assert s.command == ("pip install torchvision==0.28.0 "
                         "--index-url https://download.pytorch.org/whl/cu130")


def test_a_torch_newer_than_the_data_is_not_downgraded():
    s = run("h200-torch216-newer-than-data", "torch")
    assert s.status == "keep" and s.command is None and s.version == "2.16.0+cu132"
    assert s.alternatives[0].version == "2.15.0"


# ------------------------------------------------------------------ JAX
def test_jax_cuda13_needs_driver_580():
    s = run("h100-driver565", "jax")
    assert (s.version, s.variant) == ("0.12.0.1", "jax[cuda12]")
    assert any(a.variant == "jax[cuda13]" and a.price == "driver >= 580" for a in s.alternatives)
    assert run("h100-driver580-nvcc", "jax").variant == "jax[cuda13]"


def test_jax_cuda13_needs_sm75_so_pascal_gets_cuda12():
    s = run("gtx1080-driver580", "jax")
    assert s.variant == "jax[cuda12]"
    assert "SM 7.5" in _texts(s)


def test_jax_on_kepler_falls_back_to_cpu():
    s = run("k80-driver470", "jax")
    assert s.variant == "cpu" and s.command == "pip install jax==0.6.2"  # Python 3.10


def test_jax_on_windows_is_cpu_with_wsl2_as_the_gpu_route():
    s = run("windows-rtx3070-driver546", "jax")
    assert (s.version, s.variant) == ("0.10.2", "cpu")   # Python 3.11: jax 0.11 needs 3.12
    assert any(a.price == "WSL2" for a in s.alternatives)


# ------------------------------------------------------------------ TensorFlow
def test_tensorflow_and_cuda_on_linux():
    s = run("h100-driver565", "tensorflow")
    assert s.command == 'pip install "tensorflow[and-cuda]==2.21.*"'


def test_tensorflow_old_driver_gets_cpu_not_an_extra_that_does_not_install():
    s = run("l40s-driver470", "tensorflow")
    assert (s.version, s.variant) == ("2.21.*", "cpu")
    assert "tensorrt" in _texts(s) or "driver" in _texts(s)


def test_tensorflow_native_windows_gpu_stops_at_210():
    s = run("windows-rtx3070-driver546", "tensorflow")
    assert s.variant == "cpu" and s.version == "2.21.*"
    assert any(a.price == "WSL2" for a in s.alternatives)
    assert any(a.version == "2.10" and a.price.startswith("Python") for a in s.alternatives)


def test_tensorflow_210_on_native_windows_needs_a_system_cuda_pip_does_not_install():
    """TF 2.10's native-Windows GPU uses a system CUDA 11.2 / cuDNN 8.1 (pip.md installs them
    first), as Linux releases before [and-cuda] do: without that toolkit in the snapshot the
    answer is the newest CPU build, with 2.10 on the GPU priced as that install."""
    old = run("windows-rtx3070-py310", "tensorflow")
    assert (old.version, old.variant) == ("2.21.*", "cpu")
    assert "uses a system CUDA 11.2 / cuDNN 8.1, which pip does not install" in _texts(old)
    alt = next(a for a in old.alternatives if a.version == "2.10")
    assert alt.price == "a system CUDA 11.2 / cuDNN 8.1" and alt.command
    facts = pipeline.load_facts_file(str(MACHINES / "windows-rtx3070-py310.json"))
    facts = replace(facts, cuda=replace(facts.cuda, nvcc_version=Version("11.2")))
    got = suggest(facts, ["tensorflow"]).suggestions[0]
    assert (got.version, got.variant) == ("2.10.*", "tensorflow")


def test_tensorflow_on_maxwell_is_the_newest_cpu_build():
    """TF 2.17.0's release notes: Maxwell (5.x) was removed from the wheels. TF 2.16's wheels
    still had sm_50, but its [and-cuda] install does not find the GPU without a manual
    LD_LIBRARY_PATH (tensorflow#63362): an alternative, not the answer."""
    s = run("maxwell-gtx980-driver580", "tensorflow")
    assert (s.version, s.variant) == ("2.21.*", "cpu")
    assert "6.0 and newer; NVIDIA GeForce GTX 980 is sm_52" in _texts(s)
    alt = next(a for a in s.alternatives if a.version == "2.16")
    assert alt.price == "a manual library path" and "63362" in alt.source


def test_tensorflow_aarch64_is_cpu_only():
    s = run("gh200-aarch64-driver580", "tensorflow")
    assert s.variant == "cpu"


def test_tensorflow_apple_silicon_gets_the_newest_release():
    s = run("macos-arm64", "tensorflow")
    assert s.version == "2.21.*" and s.variant == "cpu"


def test_tensorflow_intel_mac_is_capped_at_216():
    s = run("macos-x86_64", "tensorflow")
    assert s.version == "2.16.*"
    assert "last release" in _texts(s)


# ------------------------------------------------------------------ companions
def test_xformers_follows_the_installed_torch_index():
    s = run("h200-torch213-cu130-installed", "xformers")
    assert s.command == ("pip install xformers==0.0.35 "
                         "--index-url https://download.pytorch.org/whl/cu130")


def test_xformers_has_no_cpu_build_in_the_data():
    s = run("rtx4090-torch-cpu-installed", "xformers")
    assert s.status == "none" and "not cpu" in _texts(s)


def test_xformers_dropped_volta():
    s = run("v100-driver580", "xformers")
    assert s.status == "none" and "sm_70" in _texts(s)


def test_bitsandbytes_needs_pascal_or_newer():
    assert run("maxwell-gtx980-driver580", "bitsandbytes").status == "none"
    assert run("gtx1080-driver580", "bitsandbytes").command == "pip install bitsandbytes==0.50.0"


def test_flash_attn_needs_ampere_and_a_toolkit():
    assert run("t4-driver550", "flash-attn").status == "none"           # sm_75
    assert run("a100-driver550", "flash-attn").status == "none"         # no nvcc
    ok = run("h100-driver580-nvcc", "flash-attn")
    assert ok.status == "ok" and ok.command == "pip install flash-attn --no-build-isolation"


# ------------------------------------------------------------------ installers
def test_uv_and_conda_spellings():
    uv = run("a100-driver550", "torch", installer="uv")
    assert uv.command.startswith("uv pip install torch==2.14.1 ")
    conda = run("a100-driver550", "torch", installer="conda")
    assert conda.command.startswith("python -m pip install torch==2.14.1 ")
    assert any(r.constraint == "installer" and "2.5.1" in r.text for r in conda.reasons)


def test_no_framework_named_means_the_installed_ones():
    got = run("rtx4090-torch-cpu-installed")
    assert [s.framework for s in got] == ["torch", "xformers"]
    assert got[0].variant == "cu126"   # the CPU wheel on a GPU box gets the CUDA build


def test_platforms_without_wheels_in_the_data_are_none_not_assumed():
    for machine in ("windows-arm64-cpu", "linux-ppc64le-cpu"):
        for s in run(machine, "torch", "jax", "tensorflow"):
            assert s.status == "none" and s.command is None, (machine, s.framework)
            assert not any("assumed" in r.text or "this answer is for" in r.text
                           for r in s.reasons)


def test_rocm_torch_stays_on_its_rocm_release_and_prices_the_newer_one():
    s = run("rocm-torch291-installed", "torch")
    assert (s.status, s.version, s.variant) == ("installed", "2.9.1", "rocm6.4")
    alt = next(a for a in s.alternatives if a.variant == "rocm7.14")
    assert alt.version == "2.14.1" and alt.price == "ROCm 7.14"


# ------------------------------------------------------------ driver branch vs the GPU
def test_a_driver_older_than_the_gpu_gets_no_wheel_but_a_driver_upgrade():
    """Driver 470 predates Ada (sm_89 came with CUDA 11.8 / driver 520): cu118 would pass the
    CUDA 11 floor but the driver cannot drive an L40S at all."""
    s = run("l40s-driver470", "torch")
    assert (s.status, s.command) == ("none", None)
    assert "predates NVIDIA L40S (sm_89)" in _texts(s)
    assert s.alternatives and s.alternatives[0].price.startswith("driver >= ")


def test_blackwell_on_driver_535_is_not_offered_cu128_through_compat():
    """cu128's minor-version floor (525) admits 535, but sm_120 needs the 570 branch."""
    s = run("rtx5090-driver535", "torch")
    assert (s.status, s.command) == ("none", None)
    assert "CUDA 12.8, whose driver is 570" in _texts(s)
    assert not any(a.variant == "cu128" and a.price is None for a in s.alternatives)


def test_releases_before_2_0_are_installed_the_way_their_own_page_says():
    """previous-versions for 1.12.1 / 1.13.1: local-version pins with --extra-index-url (PyPI
    serves the other dependencies); conda 1.12 takes cudatoolkit= (pytorch-cuda came with 1.13)."""
    from envdoctor.facts import Facts
    from envdoctor.suggest import suggest
    facts = Facts.from_dict({
        "schema_version": 1, "origin": "example",
        "host": {"probe": {"status": "ok"}, "os": "Linux", "arch": "x86_64",
                 "python_version": "3.8.10"},
        "nvidia": {"probe": {"status": "ok"}, "driver_version": "450.51.06",
                   "gpus": [{"name": "Tesla V100-SXM2-16GB", "cc": "7.0"}]}})
    pip = suggest(facts, ["torch"]).suggestions[0]
    assert pip.command == ('pip install torch==1.12.1+cu102 torchvision==0.13.1+cu102 "numpy<2" '
                           "--extra-index-url https://download.pytorch.org/whl/cu102")
    assert "before CUDA 11 there is no minor-version compatibility" in _texts(pip)
    conda = suggest(facts, ["torch"], installer="conda").suggestions[0]
    assert conda.command == ('conda install pytorch==1.12.1 torchvision==0.13.1 "numpy<2" '
                             "cudatoolkit=10.2 -c pytorch")


def test_an_older_release_on_linux_aarch64_comes_from_pypi():
    """torch 2.4.1's Linux aarch64 wheel is PyPI's CPU build (cp38-cp312, PyPI's files), and
    2.5+ needs Python 3.9: a Python 3.8 Graviton box gets it from PyPI, said as such."""
    from envdoctor.facts import Facts
    from envdoctor.suggest import suggest
    facts = Facts.from_dict({
        "schema_version": 1, "origin": "example",
        "host": {"probe": {"status": "ok"}, "os": "Linux", "arch": "aarch64",
                 "python_version": "3.8.10"},
        "nvidia": {"probe": {"status": "not_found"}}})
    s = suggest(facts, ["torch"]).suggestions[0]
    assert (s.status, s.version, s.variant) == ("ok", "2.4.1", "cpu")
    assert s.command == "pip install torch==2.4.1 torchvision==0.19.1"
    assert "PyPI carries torch 2.4.1's CPU wheel for Linux aarch64" in _texts(s)


# ------------------------------------------------------------------ WSL: the Windows driver
def test_jax_in_wsl_reads_the_windows_drivers_numbering():
    """Under WSL nvidia-smi shows the Windows driver: 527.56 is below CUDA 12.x's Windows floor
    (528.33) though above jax's Linux figure (525), so no CUDA plugin runs: CPU jaxlib, with the
    driver upgrade priced in Windows numbers."""
    s = run("wsl2-rtx3060-windriver527", "jax")
    assert s.variant == "cpu"
    assert "jax[cuda12] needs driver >= 528.33 in WSL (the Windows driver's numbering)" in _texts(s)
    assert any(a.variant == "jax[cuda12]" and a.price == "driver >= 528.33" for a in s.alternatives)
