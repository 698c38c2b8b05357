"""An Intel integrated GPU before Arc graphics under the XPU runtime's "no usable GPU" is the
XPU software not supporting it (envdoctor.explain.stated.intel_igpu_only_reason, EXPU004 ->
EXPU010); an Arc, a Core Ultra's Arc graphics or an NVIDIA GPU beside it keeps EXPU004. Texts are
built in the forms the cited threads print (intel-extension-for-pytorch#712, #714, #406); none is
a held-out text."""

from __future__ import annotations

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.stated import intel_igpu_only_reason

NO_DEVICE = ("UserWarning: XPU Device count is zero! (Triggered internally at "
             "/build/intel-pytorch-extension/csrc/gpu/runtime/Device.cpp:127.)\n")


def _code(text: str) -> str | None:
    d = primary(diagnose_text(text))
    return d.code if d else None


def test_an_iris_xe_only_machine_is_the_unsupported_igpu():
    text = "Laptop with Intel(R) Iris(R) Xe Graphics, intel_extension_for_pytorch 2.1.10+xpu\n" + NO_DEVICE
    assert intel_igpu_only_reason(text) is not None
    assert _code(text) == "EXPU010"


def test_lspci_codename_form_is_read():
    text = "00:02.0 VGA compatible controller: Intel Corporation RocketLake-S GT1 [UHD Graphics 730]\n" + NO_DEVICE
    assert intel_igpu_only_reason(text) is not None


def test_an_arc_beside_the_igpu_keeps_the_runtime_answer():
    text = ("engine,0,backend:Level Zero,name:Intel(R) Arc(TM) A770 Graphics\n"
            "engine,1,backend:Level Zero,name:Intel(R) UHD Graphics 770\n") + NO_DEVICE
    assert intel_igpu_only_reason(text) is None
    assert _code(text) == "EXPU004"


def test_core_ultra_arc_graphics_is_supported():
    text = "Intel(R) Core(TM) Ultra 7 155H with Intel(R) Arc(TM) Graphics\n" + NO_DEVICE
    assert intel_igpu_only_reason(text) is None


def test_no_gpu_named_keeps_the_runtime_answer():
    text = "import intel_extension_for_pytorch as ipex\n" + NO_DEVICE
    assert intel_igpu_only_reason(text) is None
    assert _code(text) == "EXPU004"
