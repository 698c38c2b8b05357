"""Environment signatures that must win over nearby generic readings (real texts, URLs cited)."""

from __future__ import annotations

from envdoctor.explain import diagnose_text, primary

# https://github.com/zbf1991/WeCLIP/issues/5
PAGING = (
    '  File "D:\\Anaconda3\\envs\\wssam\\lib\\site-packages\\torch\\__init__.py", line 124, '
    'in <module>\n    raise err\n'
    'OSError: [WinError 1455] 页面文件太小，无法完成操作。 Error loading "D:\\Anaconda3\\envs\\wssam'
    '\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its dependencies.\n')


def _primary_code(text: str) -> str | None:
    got = primary(diagnose_text(text))
    return None if got is None else got.code


def test_paging_file_too_small_is_not_a_missing_dll():
    diags = diagnose_text(PAGING)
    assert primary(diags).code == "EWIN003"
    assert "EWIN001" not in {d.code for d in diags}
    assert "num_workers" in primary(diags).fix


def test_a_missing_dependency_of_the_same_dll_stays_ewin001():
    text = PAGING.replace("[WinError 1455] 页面文件太小，无法完成操作。",
                          "[WinError 126] The specified module could not be found.")
    assert _primary_code(text) == "EWIN001"


def test_duplicate_openmp_names_the_unsafe_workaround_as_such():
    # https://github.com/kuprel/min-dalle/issues/12
    text = ("OMP: Error #15: Initializing libiomp5.dylib, but found libomp.dylib already "
            "initialized.\n")
    got = primary(diagnose_text(text))
    assert got is not None and got.code == "EMKL002"
    assert "KMP_DUPLICATE_LIB_OK" in got.fix and "unsafe" in got.fix


def test_file_too_short_is_jetson_placeholder_only_on_jetson():
    lib = "ImportError: /usr/lib/aarch64-linux-gnu/libcudnn.so.8: file too short\n"
    assert _primary_code("Model: NVIDIA Jetson Nano - Jetpack 4.6.1 [L4T 32.7.1]\n" + lib) \
        == "ETEGRA007"
    assert _primary_code(lib) == "ESYS025"
    # https://github.com/traveller59/second.pytorch/issues/339
    assert _primary_code("ImportError: /home/mike/.local/lib/python3.7/site-packages/spconv/"
                         "spconv_utils.cpython-37m-x86_64-linux-gnu.so: file too short\n") \
        == "ESYS025"


def test_apex_and_spconv_compiled_modules_are_their_own_causes():
    # https://github.com/NVIDIA/apex/issues/1488
    assert _primary_code("ModuleNotFoundError: No module named 'fused_layer_norm_cuda'\n") \
        == "EBUILD012"
    # https://github.com/traveller59/spconv/issues/641
    assert _primary_code("ModuleNotFoundError: No module named 'spconv.core_cc'\n") \
        == "EBUILD013"


def test_compiled_ops_missing_in_a_source_checkout_says_run_elsewhere():
    # https://github.com/facebookresearch/detectron2/issues/125
    checkout = (
        '  File "/home/zhiyongzhang/venv/AutomatedFishDetection/detectron2/detectron2/layers/'
        '__init__.py", line 3, in <module>\n'
        "ImportError: cannot import name '_C'\n")
    got = primary(diagnose_text(checkout))
    assert got is not None and got.code == "EBUILD008"
    assert "cloned repository" in got.fix and "another folder" in got.fix
    installed = checkout.replace("/home/zhiyongzhang/venv/AutomatedFishDetection/detectron2/",
                                 "/home/u/venv/lib/python3.8/site-packages/")
    got = primary(diagnose_text(installed))
    assert got is not None and got.code == "EBUILD008"
    assert "cloned repository" not in got.fix
