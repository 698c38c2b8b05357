"""Platform tools' output pasted into an issue -> the facts the probes would fill
(envdoctor/parsers/platform_lines.py), and the platform checks that judge them.

Texts marked with a source are excerpts of public threads/files, cut at whole lines, never
reworded. Texts marked "constructed" are in the tool's exact output shape but describe no
real machine: they exercise a verdict (a shut node, a Rosetta shell) that no stored public
paste of that tool showed; they say so in their name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envdoctor import pipeline
from envdoctor.parsers import detect, parse_pasted, parse_text

LOUD = {"warning", "error", "critical"}


def loud(text: str) -> list[tuple[str, str]]:
    facts = parse_pasted(text)
    found = [] if facts is None else pipeline.diagnose(facts).findings
    return [(f.code, f.title) for f in found if f.severity.value in LOUD]


# https://github.com/ROCm/ROCm-docker/pull/93 (a container started with --group-add video
# --group-add render, run as uid 1000 with no passwd entry: its groups are not printed)
ROCM_DOCKER_LS = """\
I have no name!@39764af76254:/$ ls -lart /dev/dri/
total 0
crw-rw---- 1 root render 226, 129 Aug 22 21:34 renderD129
crw-rw---- 1 root render 226, 128 Aug 22 21:34 renderD128
crw-rw---- 1 root video  226,   2 Aug 22 21:34 card2
crw-rw---- 1 root video  226,   1 Aug 22 21:34 card1
crw-rw---- 1 root video  226,   0 Aug 22 21:34 card0
drwxr-xr-x 2 root root        140 Aug 22 21:34 .
drwxr-xr-x 6 root root        400 Aug 22 21:34 ..
I have no name!@39764af76254:/$ ls -lart /dev/kfd
crw-rw---- 1 root render 509, 0 Aug 22 21:34 /dev/kfd
"""

# https://github.com/ROCm/rocm-systems/pull/2987 (amd-smi static on an MI350X host)
AMD_SMI_STATIC = """\
$ amd-smi static --bus --ifwi --asic --board --vbios --driver --vram --ras -g 0 1
GPU: 0
    ASIC:
        MARKET_NAME: AMD Instinct MI350X
        VENDOR_ID: 0x1002
        VENDOR_NAME: Advanced Micro Devices Inc. [AMD/ATI]
        DEVICE_ID: 0x75a0
        NUM_COMPUTE_UNITS: 128
        TARGET_GRAPHICS_VERSION: gfx950
        FLAGS: 16
    BUS:
        BDF: 0000:05:00.0
        MAX_PCIE_WIDTH: 16
"""

# https://github.com/easybuilders/easybuild-framework/pull/3978 (rocm-smi of ROCm 4/5 prints
# no "GFX Version" line: the card's name alone is no gfx target)
ROCM_SMI_NO_GFX = """\
$ rocm-smi --showproductname


======================= ROCm System Management Interface =======================
================================= Product Info =================================
GPU[0]          : Card series:          Fiji [Radeon R9 FURY / NANO Series]
GPU[0]          : Card model:           Radeon R9 FURY X
GPU[0]          : Card vendor:          Advanced Micro Devices, Inc. [AMD/ATI]
GPU[0]          : Card SKU:             C88001
"""

# the nv_tegra_release line quoted in dusty-nv/jetson-containers
# (jetson_containers/l4t_version.py), with a pip listing of NVIDIA's JetPack 4 torch wheel
NV_TEGRA_RELEASE = """\
$ cat /etc/nv_tegra_release
# R32 (release), REVISION: 7.1, GCID: 29689809, BOARD: t186ref, EABI: aarch64, DATE: Wed Feb  2 21:33:23 UTC 2022
$ pip3 list | grep torch
torch              1.10.0
"""

# constructed: `ls -l` and `groups` as a shell prints them, a user outside render/video
CONSTRUCTED_SHUT = """\
$ ls -l /dev/kfd /dev/dri/renderD128
crw-rw---- 1 root render 235,   0 Mar  3 10:12 /dev/kfd
crw-rw---- 1 root render 226, 128 Mar  3 10:12 /dev/dri/renderD128
$ groups
alice adm cdrom sudo dip plugdev lpadmin
"""

# constructed: `sysctl` and sw_vers as macOS prints them, in a Rosetta 2 shell
CONSTRUCTED_ROSETTA = """\
$ sw_vers
ProductName:		macOS
ProductVersion:		14.2.1
BuildVersion:		23C71
$ sysctl sysctl.proc_translated
sysctl.proc_translated: 1
$ pip list | grep torch
torch                     2.1.2
"""


def test_ls_dev_kfd_nodes_read_without_groups_stay_undecided():
    facts = parse_text(ROCM_DOCKER_LS)
    assert facts is not None and "platform" in detect(ROCM_DOCKER_LS)
    kfd = facts.rocm.kfd
    assert kfd is not None and (kfd.path, kfd.group, kfd.mode) == ("/dev/kfd", "render", "0660")
    assert [n.path for n in facts.rocm.render_nodes] == ["/dev/dri/renderD129",
                                                         "/dev/dri/renderD128"]
    # whose access it is the paste does not show: never judged shut
    assert kfd.accessible is None and all(n.accessible is None for n in facts.rocm.render_nodes)
    assert not loud(ROCM_DOCKER_LS)


def test_ls_dev_kfd_with_groups_outside_render_names_rocm003():
    facts = parse_text(CONSTRUCTED_SHUT)
    assert facts is not None and facts.rocm.kfd is not None
    assert facts.rocm.kfd.accessible is False
    assert "render" not in facts.rocm.user_groups
    assert any(code == "ROCM003" for code, _ in loud(CONSTRUCTED_SHUT))


@pytest.mark.parametrize("groups_line, acl", [
    ("alice adm video render", ""),          # in the group that owns the nodes
    ("alice adm cdrom sudo", "+"),           # an ACL (udev uaccess) may grant it: undecided
])
def test_ls_dev_kfd_open_or_acl_is_no_alarm(groups_line: str, acl: str):
    text = (CONSTRUCTED_SHUT.replace("alice adm cdrom sudo dip plugdev lpadmin", groups_line)
            .replace("crw-rw---- 1", f"crw-rw----{acl} 1"))
    facts = parse_text(text)
    assert facts is not None and facts.rocm.kfd is not None
    assert facts.rocm.kfd.accessible is (None if acl else True)
    assert not any(code == "ROCM003" for code, _ in loud(text))


def test_amd_smi_static_gpus_read_and_healthy_clean():
    facts = parse_text(AMD_SMI_STATIC)
    assert facts is not None
    assert [(g.name, g.gfx) for g in facts.rocm.gpus] == [("AMD Instinct MI350X", "gfx950")]
    assert not loud(AMD_SMI_STATIC)


def test_rocm_smi_without_gfx_line_states_no_gpu_target():
    # the name alone is not read as a gfx target: unknown stays unknown
    facts = parse_text(ROCM_SMI_NO_GFX)
    assert facts is None or not facts.rocm.gpus


def test_rocm_smi_gfx_version_line_is_read():
    text = ROCM_SMI_NO_GFX + "GPU[0]          : GFX Version:          gfx803\n"
    facts = parse_text(text)
    assert facts is not None
    assert [g.gfx for g in facts.rocm.gpus] == ["gfx803"]


def test_nv_tegra_release_is_a_jetson_and_healthy_clean():
    facts = parse_text(NV_TEGRA_RELEASE)
    assert facts is not None
    assert str(facts.jetson.l4t) == "32.7.1" and facts.jetson.board == "t186ref"
    assert facts.host.arch == "aarch64"
    # a bare torch version on a Jetson says nothing of its build: no CPU-only alarm
    assert not loud(NV_TEGRA_RELEASE)


def test_rosetta_shell_names_apple001_and_native_shell_stays_clean():
    facts = parse_text(CONSTRUCTED_ROSETTA)
    assert facts is not None
    assert facts.apple.translated is True and facts.apple.apple_silicon is True
    assert any(code == "APPLE001" for code, _ in loud(CONSTRUCTED_ROSETTA))
    native = CONSTRUCTED_ROSETTA.replace("proc_translated: 1", "proc_translated: 0")
    facts = parse_text(native)
    assert facts is not None and facts.apple.translated is False
    assert not loud(native)


def test_system_profiler_chip_needs_its_model_identifier():
    # "Chip:" alone (a sentence, another tool) is not system_profiler's
    assert parse_text("Chip: Apple M2\nsomething else\n") is None or \
        parse_text("Chip: Apple M2\nsomething else\n").host.os != "Darwin"  # type: ignore[union-attr]


def test_wsl2_uname_r_line():
    text = "$ uname -r\n5.15.153.1-microsoft-standard-WSL2\n"
    facts = parse_text(text)
    assert facts is not None and facts.host.wsl == 2 and facts.host.os == "Linux"


# --------------------------------------------------------------- paste == probe, on real output
TOOLS = Path(__file__).parent / "data" / "tools"


def _body(path: Path) -> str:
    """A tools file without its "# source:" header lines."""
    return "\n".join(ln for ln in path.read_text().splitlines() if not ln.startswith("# source"))


@pytest.mark.parametrize("path", sorted((TOOLS / "rocm-smi").glob("*.txt"))
                         + sorted((TOOLS / "amd-smi").glob("*.txt")), ids=lambda p: p.name)
def test_pasted_amd_tool_gives_the_probes_gpus(path: Path):
    from envdoctor.probes.rocm_output import parse_amd_smi_static, parse_rocm_smi
    body = _body(path)
    probe = parse_rocm_smi(body.strip()) if path.parent.name == "rocm-smi" \
        else parse_amd_smi_static(body)
    want = [(n, g) for n, g in probe if g]  # a name without a gfx target is not a GPU read
    facts = parse_text(body)
    if not want:
        assert facts is None or all(g.gfx for g in facts.rocm.gpus)
        return
    assert facts is not None
    assert [(g.name, g.gfx) for g in facts.rocm.gpus] == want


@pytest.mark.parametrize("path", sorted((TOOLS / "sysctl").glob("*.txt")), ids=lambda p: p.name)
def test_pasted_sysctl_gives_the_probes_answers(path: Path):
    from envdoctor.probes.apple import parse_sysctl
    body = _body(path)
    answers, _ = parse_sysctl(body, "")
    facts = parse_text(body)
    assert facts is not None and facts.host.os == "Darwin"
    assert facts.apple.translated is (answers["sysctl.proc_translated"] == "1")
    assert facts.apple.apple_silicon is (answers["hw.optional.arm64"] == "1")
    assert facts.apple.cpu_brand == answers["machdep.cpu.brand_string"]


def test_amd_smi_no_gpu_line_is_the_tools_error_not_a_gpu_list():
    body = _body(TOOLS / "amd-smi" / "01-version-no-gpu.txt")
    facts = parse_text(body)
    assert facts is not None
    assert "Unable to detect any GPU devices" in facts.rocm.smi_error
    assert str(facts.rocm.version) == "7.11.0"


# https://github.com/rapidsai/docker/issues/680 (PowerShell: every distribution is WSL 2)
WSL_LIST_ALL_2 = """\
> wsl --version
WSL version: 2.1.5.0
Kernel version: 5.15.146.1-2
WSLg version: 1.0.60

> wsl --list -v
  NAME                   STATE           VERSION
* Ubuntu-24.04           Running         2
  docker-desktop         Running         2
  docker-desktop-data    Running         2
  Ubuntu-22.04           Running         2
"""


def test_wsl_list_reads_the_distributions_version():
    facts = parse_text(WSL_LIST_ALL_2)
    assert facts is not None and facts.host.wsl == 2
    assert not any(code == "WSL003" for code, _ in loud(WSL_LIST_ALL_2))
    # "WSL version: 1.2.5.0" is the WSL app's release, not WSL 1
    assert parse_text(WSL_LIST_ALL_2.replace("2.1.5.0", "1.2.5.0")).host.wsl == 2  # type: ignore[union-attr]


def test_wsl_list_version_1_names_wsl003_and_mixed_lists_decide_nothing():
    one = WSL_LIST_ALL_2.replace("Running         2\n  docker", "Running         1\n  docker", 1) \
        .replace("Ubuntu-22.04           Running         2", "Ubuntu-22.04           Running         1")
    facts = parse_text(one)  # constructed from the rows above: both user distributions on 1
    assert facts is not None and facts.host.wsl == 1
    assert any(code == "WSL003" for code, _ in loud(one))
    mixed = WSL_LIST_ALL_2.replace("Ubuntu-22.04           Running         2",
                                   "Ubuntu-22.04           Running         1")
    facts = parse_text(mixed)
    assert facts is None or facts.host.wsl is None


def test_wsl1_kernel_release_line():
    facts = parse_text("$ uname -r\n4.4.0-19041-Microsoft\n")
    assert facts is not None and facts.host.wsl == 1


# https://github.com/zeam-vm/cpu_info/issues/17 (system_profiler on an Intel iMac Pro: an AMD
# GPU, no Apple chip; nothing of Apple silicon may be read from it)
SPDISPLAYS_INTEL_IMAC = """\
$ system_profiler SPDisplaysDataType
Graphics/Displays:

    Radeon Pro Vega 64:

      Chipset Model: Radeon Pro Vega 64
      Type: GPU
      Bus: PCIe
      PCIe Lane Width: x16
      VRAM (Total): 16 GB
      Vendor: AMD (0x1002)
      Metal: Supported, feature set macOS GPUFamily2 v1
"""


def test_spdisplays_of_an_intel_mac_states_no_apple_silicon():
    facts = parse_text(SPDISPLAYS_INTEL_IMAC)
    assert facts is None or facts.apple.apple_silicon is not True
    apple = SPDISPLAYS_INTEL_IMAC.replace("Chipset Model: Radeon Pro Vega 64",
                                          "Chipset Model: Apple M1 Max") \
        .replace("Metal: Supported, feature set macOS GPUFamily2 v1", "Metal Support: Metal 3")
    facts = parse_text(apple)  # the same block as an M1 Max prints it (constructed)
    assert facts is not None and facts.apple.apple_silicon is True
    assert facts.host.cpu_model == "Apple M1 Max"


def test_df_dev_shm_in_a_docker_container_names_host001_and_tmpfs_does_not():
    text = ("root@4f2c1a:/workspace# df -h /dev/shm\n"
            "Filesystem      Size  Used Avail Use% Mounted on\n"
            "shm              64M     0   64M   0% /dev/shm\n"
            "(inside docker run --gpus all pytorch/pytorch)\n")  # constructed, df's layout
    facts = parse_text(text)
    assert facts is not None and facts.host.container == "docker"
    assert facts.host.shm_total_gb == pytest.approx(0.0625)
    assert any(code == "HOST001" for code, _ in loud(text))
    host = text.replace("shm              64M     0   64M", "tmpfs            16G     0   16G")
    facts = parse_text(host)
    assert facts is not None and facts.host.container != "docker"
    assert not any(code == "HOST001" for code, _ in loud(host))


# https://github.com/NVIDIA/k8s-device-plugin/issues/377 (`dpkg -l` on a Jetson Nano, L4T 32.7.3)
DPKG_L4T = """\
ii  nvidia-l4t-init                                            32.7.3-20221122092935              arm64                              NVIDIA Init debian package
ii  nvidia-l4t-initrd                                          32.7.3-20221122092935              arm64                              NVIDIA initrd debian package
ii  nvidia-l4t-jetson-io                                       32.7.3-20221122092935              arm64                              NVIDIA Jetson.IO debian package
ii  nvidia-l4t-kernel                                          4.9.299-tegra-32.7.3-2022112209293 arm64                              NVIDIA Kernel Package
ii  nvidia-l4t-kernel-dtbs                                     4.9.299-tegra-32.7.3-2022112209293 arm64                              NVIDIA Kernel DTB Package
"""


def test_dpkg_l4t_packages_give_the_release_and_stay_clean():
    facts = parse_text(DPKG_L4T)
    assert facts is not None and str(facts.jetson.l4t) == "32.7.3"
    assert not loud(DPKG_L4T)
    # two releases listed (an upgrade half done): which one runs is not said
    mixed = DPKG_L4T.replace("nvidia-l4t-init                                            32.7.3",
                             "nvidia-l4t-init                                            32.7.4")
    facts = parse_text(mixed)
    assert facts is None or facts.jetson.l4t is None


# https://github.com/NVIDIA/nvidia-docker/issues/904 (`nvidia-container-cli -k -d /dev/tty info`)
NVC_INFO_1080 = """\
I0114 04:33:38.553037 7944 nvc_info.c:489] requesting device information with ''
I0114 04:33:38.559326 7944 nvc_info.c:519] listing device /dev/nvidia0 (GPU-e572b8ee-523e-f7be-a359-33149791a02a at 00000000:01:00.0)
NVRM version:   390.87
CUDA version:   9.1

Device Index:   0
Device Minor:   0
Model:          GeForce GTX 1080 with Max-Q Design
Brand:          GeForce
GPU UUID:       GPU-e572b8ee-523e-f7be-a359-33149791a02a
Bus Location:   00000000:01:00.0
Architecture:   6.1
I0114 04:33:38.559343 7944 nvc.c:318] shutting down library context
"""

# https://github.com/NVIDIA/nvidia-docker/issues/1775 (the same tool on a Jetson Xavier: no NVRM)
NVC_INFO_XAVIER = """\
I0814 14:27:07.712233 513982 nvc_info.c:803] listing device (null) ((null) at (null))
NVRM version:   (null)
CUDA version:   10.2

Device Index:   0
Device Minor:   0
Model:          Xavier
Brand:          (null)
GPU UUID:       (null)
Bus Location:   (null)
Architecture:   7.2
"""


def test_nvidia_container_cli_info_gives_the_driver_and_gpus():
    facts = parse_text(NVC_INFO_1080)
    assert facts is not None
    assert str(facts.nvidia.driver_version) == "390.87"
    assert str(facts.nvidia.cuda_driver_version) == "9.1"
    assert [(g.name, str(g.cc)) for g in facts.nvidia.gpus] == [
        ("GeForce GTX 1080 with Max-Q Design", "6.1")]
    assert not loud(NVC_INFO_1080)


def test_nvidia_container_cli_on_a_jetson_states_no_driver():
    # "(null)" is no driver version: a Jetson's iGPU is not an NVML GPU, nothing is read
    facts = parse_text(NVC_INFO_XAVIER)
    assert facts is None or facts.nvidia.driver_version is None


# constructed in `ldconfig -p`'s layout (WSL 2: the loader cache lists only the Windows driver's
# libcuda); the stored public pastes of this shape are quoted elsewhere in the project
LDCONFIG_WSL = """\
$ ldconfig -p | grep cuda
        libcudart.so.12 (libc6,x86-64) => /usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.12
        libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1
libcuda.so (libc6,x86-64) => /usr/local/cuda/targets/x86_64-linux/lib/libcuda.so
"""


def test_ldconfig_under_wsl2_reads_the_driver_library_and_stays_clean():
    facts = parse_text(LDCONFIG_WSL)
    assert facts is not None and facts.host.wsl == 2
    # a libcuda.so in the toolkit's folder (a stub or a hand-made link) is no driver package
    assert [lib.path for lib in facts.libraries.libraries if lib.name == "libcuda"] == [
        "/usr/lib/wsl/lib/libcuda.so.1"]
    assert not any(code == "DRV004" for code, _ in loud(LDCONFIG_WSL))


def test_ldconfig_with_a_linux_libcuda_inside_wsl_names_drv004():
    # constructed: the rows above plus a second libcuda.so.1 from a Linux driver package
    text = LDCONFIG_WSL.replace(
        "        libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1\n",
        "        libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1\n"
        "        libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n")
    assert any(code == "DRV004" for code, _ in loud(text))


def test_id_with_a_bare_gid_opens_a_node_of_that_gid():
    # constructed: a container user added by GID (`docker run --group-add 109`), where the
    # group has no name inside the image, so both `id` and `ls -l` print the number
    text = ("$ id\nuid=1000 gid=1000 groups=1000,44(video),109\n"
            "$ ls -l /dev/kfd\ncrw-rw---- 1 root 109 235, 0 Aug 22 21:34 /dev/kfd\n")
    facts = parse_text(text)
    assert facts is not None and facts.rocm.kfd is not None
    assert facts.rocm.kfd.accessible is True
    assert not any(code == "ROCM003" for code, _ in loud(text))
    shut = text.replace(",109\n", "\n")
    facts = parse_text(shut)
    assert facts is not None and facts.rocm.kfd is not None and facts.rocm.kfd.accessible is False
