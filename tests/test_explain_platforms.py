"""The platform vocabulary (rules/platforms): what names a Jetson or WSL in a text, read once
for every signature whose cause exists on that platform only."""

from __future__ import annotations

from pathlib import Path

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.platforms import expand, load_platforms
from envdoctor.explain.signatures import load_signatures
from envdoctor.rulefiles import RuleFileError

PLATFORMS = load_platforms()


def test_the_platforms_are_defined():
    assert {"jetson", "wsl", "mac"} <= set(PLATFORMS)


@pytest.mark.parametrize("name", sorted(PLATFORMS))
def test_each_platform_names_its_fire_texts_and_not_its_quiet_ones(name):
    platform = PLATFORMS[name]
    for text in platform.fire:
        assert platform.named_in(text), f"{name} should be named in {text!r}"
    for text in platform.quiet:
        assert platform.named_in(text) is None, f"{name} must not be named in {text!r}"


def test_a_context_reference_expands_to_the_platform_list():
    sig = next(s for s in load_signatures() if s.code == "ETEGRA003")
    sources = {p.source for c in sig.contexts for p in c.absent}
    assert set(PLATFORMS["jetson"].mentions) <= sources
    assert "@jetson" not in sources


def test_an_unknown_platform_is_a_load_error():
    with pytest.raises(RuleFileError):
        expand(["@amiga"], None, Path("rules/signatures/x/X.toml"), "context[0].absent")


def _code(text: str) -> str | None:
    got = primary(diagnose_text(text))
    return got.code if got else None


ILLEGAL = "Python 3.8.10 (default, Jun 22 2022, 20:18:18)\n>>> import numpy\nIllegal instruction (core dumped)\n"


def test_a_jetson_named_by_its_host_name_gets_the_jetson_cause():
    assert _code("ubuntu@orin-devkit:~$ python3\n" + ILLEGAL) == "ETEGRA003"
    assert _code("  File \"/home/nvidia/.local/lib/python3.6/site-packages/x.py\"\n"
                 + ILLEGAL) == "ETEGRA003"


def test_the_same_crash_off_a_jetson_keeps_the_generic_answer():
    assert _code("user@desktop:~$ python3\n" + ILLEGAL) not in (None, "ETEGRA003")
    assert _code("user@desktop:~$ nano run.sh\n" + ILLEGAL) != "ETEGRA003"


NO_DRIVER = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have "
             "an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n")


def test_torch_finding_no_driver_under_wsl_is_the_unmapped_libcuda():
    assert _code("me@DESKTOP-AB12CD3:~/proj$ python train.py\n" + NO_DRIVER) == "EWSL006"
    assert _code("Running it inside WSL2 on Windows 11.\n" + NO_DRIVER) == "EWSL006"


def test_torch_finding_no_driver_on_linux_keeps_its_answer():
    assert _code("root@gpu-node-3:~# python train.py\n" + NO_DRIVER) == "ECUDA009"


def test_the_toolkit_probe_line_is_not_a_wsl_mention():
    text = ("nvc.c:393] attempting to load dxcore to see if we are running under Windows "
            "Subsystem for Linux (WSL)\nnvc.c:395] dxcore initialization failed, continuing "
            "assuming a non-WSL environment\n" + NO_DRIVER)
    assert _code(text) == "ECUDA009"


CNN = "Could not load library libcudnn_cnn_infer.so.8\nPlease make sure libcudnn_cnn_infer.so.8 is in your library path!\n"


def test_cudnn_convolution_library_under_wsl_is_the_unversioned_libcuda():
    assert _code("On WSL Ubuntu 22.04:\n" + CNN) == "EWSL002"
    assert _code(CNN) == "ECUDNN008"
    missing = ("On WSL Ubuntu 22.04:\nCould not load library libcudnn_cnn_infer.so.8. Error: "
               "libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory\n")
    assert _code(missing) == "ECUDNN008"


WRAPPED_MOUNT = '''docker: Error response from daemon: OCI runtime create failed: container_linux.go:349: starting container process caused
 "process_linux.go:449: container init caused \\"process_linux.go:432: running prestart hook 0 caused \\\\\\"error running hook:
 exit status 1, stdout: , stderr: exec command: [/usr/bin/nvidia-container-cli --load-kmods configure
 --ldconfig=@/sbin/ldconfig.real --device=all --compute --utility --pid=2817 /var/lib/docker/overlay2/0f3a/merged]\\\\\\\\nnvidia-container-cli:
 mount error: file creation failed:
 /var/lib/docker/overlay2/0f3a/merged/usr/lib/aarch64-linux-gnu/libnvidia-tls.so.32.7.1:
 file exists\\\\\\\\n\\\\\\"\\"": unknown.
'''


def test_a_paste_wrapped_at_words_is_read_joined():
    from envdoctor.explain.unwrap import join_continuations, soft_wrapped
    assert soft_wrapped(WRAPPED_MOUNT)
    assert "file creation failed: /var/lib/" in join_continuations(WRAPPED_MOUNT)
    assert _code(WRAPPED_MOUNT) == "ECTR006"


def test_a_traceback_is_not_read_as_wrapped():
    from envdoctor.explain.unwrap import soft_wrapped
    tb = ('Traceback (most recent call last):\n  File "a.py", line 1, in <module>\n'
          '    import torch\n  File "b.py", line 2, in <module>\n    x()\nValueError: bad\n')
    assert not soft_wrapped(tb)


def test_a_cpu_torch_on_a_board_named_by_its_host_is_the_jetson_wheel_answer():
    text = ("ubuntu@orin-devkit:~$ python3 -c 'import torch; print(torch.__version__); "
            "torch.zeros(1).cuda()'\n2.1.0+cpu\nAssertionError: Torch not compiled with CUDA enabled\n")
    assert _code(text) == "ETEGRA005"
    assert _code(text.replace("orin-devkit", "workstation")) == "ETORCH006"


BNB = ("CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed? If you "
       "are on a cluster, make sure you are on a CUDA machine!\nUserWarning: WARNING: No GPU "
       "detected! Check your CUDA paths. Proceeding to load CPU-only library...\n")


def test_bitsandbytes_missing_unversioned_libcuda_under_wsl_is_the_loader_path():
    assert _code("me@DESKTOP-AB12CD3:~/lora$ python train.py\n" + BNB) == "EWSL002"
    assert _code("root@gpu-node-3:~# python train.py\n" + BNB) == "EBNB001"


def test_a_mac_named_as_people_name_it_keeps_the_metal_answer():
    # jax-metal's lowering failure is Metal's only where the text names a Mac; the chip and
    # release names ("M1 Pro", "Sequoia") are enough, a Linux box with the same XLA text is not
    line = "XlaRuntimeError: failed to legalize operation 'mhlo.popcnt'"
    assert primary(diagnose_text(f"{line} during sampling on Sequoia 15.3/M1 Pro\n")).code == "EMPS020"
    assert primary(diagnose_text(f"{line}\nUbuntu 22.04, RTX 4090\n")) is None
