"""``explain.text_facts``: the facts a pasted text states, read by structure.

Real lines from public threads (URLs in the comments); the same facts must come out of other
wordings of one family (case, wrapping, typed names), and every pattern must be linear.
"""

from __future__ import annotations

import re
import time

import pytest

from envdoctor.engine import redos
from envdoctor.explain import diagnose_text, primary, text_facts
from envdoctor.explain.textfacts import (
    PATTERNS,
    correct_library_names,
    edit_distance,
    nearest_library,
)

if hasattr(re, "_parser"):
    from re import _parser as sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_parse


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.pattern[:30])
def test_every_pattern_is_linear(pattern):
    assert redos.problem_in(sre_parse.parse(pattern.pattern)) is None


def test_symbols_and_libraries_of_mixed_cuda_runtimes():
    # https://github.com/hpcaitech/ColossalAI/issues/4059 and infiniflow/ragflow#4466
    facts = text_facts(
        "OSError: /e/site-packages/nvidia/cublas/lib/libcublas.so.11: symbol "
        "cublasLtHSHMatmulAlgoInit version libcublasLt.so.11 not defined in file "
        "libcublasLt.so.11 with link time reference\n"
        "ImportError: /v/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: undefined "
        "symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12\n")
    assert facts.symbols == ("cublasLtHSHMatmulAlgoInit", "__nvJitLinkAddData_12_1")
    assert "libcublasLt.so.11" in facts.symbol_versions
    assert {"libcublas.so.11", "libcublasLt.so.11", "libcusparse.so.12",
            "libnvJitLink.so.12"} <= set(facts.libraries)
    assert facts.exception_types == ("OSError", "ImportError")


def test_glibcxx_and_version_not_found():
    facts = text_facts("ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version "
                       "`GLIBCXX_3.4.30' not found (required by /env/lib/libicui18n.so.73)")
    assert facts.symbol_versions == ("GLIBCXX_3.4.30",)
    assert facts.libraries == ("libstdc++.so.6", "libicui18n.so.73")


def test_versions_gpus_and_capabilities_in_several_wordings():
    facts = text_facts(
        "PyTorch version: 2.4.0+cu121\nCUDA used to build PyTorch: 12.1\n"
        "GPU 0: NVIDIA GeForce GTX 1080 Ti\nPython version: 3.13.0\n"
        "jax==0.4.31 jaxlib 0.4.30 jax-cuda12-plugin: 0.4.30\n"
        # PaddlePaddle/Paddle#54713
        "W0616 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 6.1\n"
        "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75.\n")
    assert facts.version("torch") == "2.4.0"
    assert facts.version("cuda") == "12.1"
    assert facts.version("python") == "3.13.0"
    assert (facts.version("jax"), facts.version("jaxlib"), facts.version("jax_plugin")) == \
        ("0.4.31", "0.4.30", "0.4.30")
    assert facts.gpus == ("NVIDIA GeForce GTX 1080 Ti",)
    assert facts.compute_capabilities[:3] == ("6.1", "5.0", "6.0")
    assert facts.version("cudnn") is None  # not stated: unknown, never "absent"


def test_a_traceback_cut_before_its_exception_line_keeps_warnings_and_frames():
    # https://github.com/onnx/models/issues/648 (trimmed where the paste was cut)
    facts = text_facts(
        "/home/u/.local/lib/python3.9/site-packages/mxnet/numpy/utils.py:37: FutureWarning: "
        "In the future `np.bool` will be defined as the corresponding NumPy scalar.\n"
        "  bool = onp.bool\nTraceback (most recent call last):\n"
        '  File "/home/u/imagenet_inference.py", line 34, in <module>\n    import mxnet as mx\n'
        '  File "/home/u/.local/lib/python3.9/site-packages/mxnet/__init__.py", line 33, in '
        "<module>\n    from . import contrib\n")
    assert facts.truncated
    assert [f.line for f in facts.frames] == [34, 33]
    assert facts.warnings[0][0] == "FutureWarning"
    assert not facts.exceptions
    whole = text_facts('Traceback (most recent call last):\n  File "a.py", line 1, in <module>\n'
                       "ModuleNotFoundError: No module named 'jax'\n")
    assert not whole.truncated
    assert whole.last_exception is not None and whole.last_exception.type == \
        "ModuleNotFoundError"


@pytest.mark.parametrize("typed,meant", [("lidcuda.so", "libcuda.so"),
                                         ("libcudnn.so", "libcudnn.so"),
                                         ("libcubals.so", "libcublas.so"),
                                         ("LIBCUDART.SO", "libcudart.so"),
                                         ("libnvjitlink.so", "libnvJitLink.so")])
def test_near_misses_of_known_libraries(typed, meant):
    assert nearest_library(typed) == meant


@pytest.mark.parametrize("typed", ["libfoo.so", "libxyz123.so", "libcudar.so"])
def test_unknown_or_ambiguous_names_are_kept(typed):
    # libcudar.so is one edit from libcuda.so and from libcudart.so: no answer
    assert nearest_library(typed) is None
    assert correct_library_names(f"OSError: {typed}.1: cannot open") == \
        f"OSError: {typed}.1: cannot open"


def test_edit_distance_is_bounded():
    assert edit_distance("kitten", "sitting", 3) == 3
    assert edit_distance("a" * 5000, "b" * 5000, 2) == 3
    start = time.perf_counter()
    assert edit_distance("x" * 100_000, "x" * 99_999 + "y", 2) == 3  # too long to be a name
    assert time.perf_counter() - start < 10.0  # a hang guard: the unbounded distance is 10^10 steps


def test_a_misspelt_library_is_explained_as_the_library():
    text = "OSError: lidcuda.so.1: cannot open shared object file: No such file or directory"
    main = primary(diagnose_text(text))
    assert main is not None and main.code == "ESYS001"
    assert text_facts(text).corrected == (("lidcuda.so.1", "libcuda.so.1"),)


def test_a_hostile_text_is_read_in_bounded_time():
    text = ("lib" + "a" * 50 + ".so." * 1000 + "\n") * 200 + "sm_" * 100_000
    start = time.perf_counter()
    text_facts(text)
    correct_library_names(text)
    assert time.perf_counter() - start < 20.0  # a hang guard


# ---------------------------------------------------------------- facts_notes (explain.stated)
def test_a_stated_version_pair_is_named_in_the_answer():
    # the jax/plugin mismatch of google-deepmind/torax#1369, with the versions a reporter adds
    text = ("jax 0.6.2, jaxlib 0.6.2, jax-cuda12-plugin 0.5.3\n"
            "Jax plugin configuration error: Exception when calling "
            "jax_plugins.xla_cuda12.initialize()\n"
            "AttributeError: module 'jax._src.lib.triton' has no attribute "
            "'register_compilation_handler'\n")
    main = primary(diagnose_text(text))
    assert main is not None and main.code == "EJAX008"
    assert any("jax 0.6.2 with the CUDA plugin 0.5.3" in n for n in main.notes), main.notes
    assert any("jax 0.6.2 with jaxlib 0.6.2" in n for n in main.notes)


def test_no_note_about_a_fact_the_text_does_not_state():
    main = primary(diagnose_text("RuntimeError: FlashAttention only supports Ampere GPUs or "
                                 "newer.\n"))
    assert main is not None and main.code == "ECUDA016"
    assert not any("compute capability" in n for n in main.notes)
    stated = primary(diagnose_text(
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least "
        "8.0. Your Tesla T4 GPU has compute capability 7.5.\n"))
    assert stated is not None and stated.code == "ECUDA016"
    assert "The text states a Tesla T4 with compute capability" in " ".join(stated.notes)


def test_the_python_with_no_wheel_is_named():
    main = primary(diagnose_text(
        "Python 3.13.1\nERROR: Could not find a version that satisfies the requirement "
        "torch==2.1.0 (from versions: 2.6.0)\n"))
    assert main is not None and main.code == "EPIP001"
    assert any("Python 3.13.1" in n for n in main.notes)


def test_a_misspelt_fact_name_is_a_load_error(tmp_path):
    from envdoctor.explain.signatures import parse_signature
    from envdoctor.rulefiles import RuleFileError, load_toml, rules_dir
    data = load_toml(rules_dir() / "signatures" / "jax" / "EJAX008.toml")
    data["facts_notes"] = ["jax {jaxx}"]
    with pytest.raises(RuleFileError, match="unknown fact"):
        parse_signature(data, tmp_path / "EJAX008.toml")
    data["facts_notes"] = ["no placeholder here"]
    with pytest.raises(RuleFileError, match="names no"):
        parse_signature(data, tmp_path / "EJAX008.toml")


# ---------------------------------------------------------------- yields_to (explain.stated)
def test_a_generic_backend_failure_yields_to_the_stated_version_pair():
    # PlasmaControl/DESC#1534 wording, with the `conda list` lines the reporter added
    text = ("RuntimeError: Unable to initialize backend 'cuda': INTERNAL: something failed "
            "(set JAX_PLATFORMS='' to automatically choose an available backend)\n"
            "jax                       0.4.38                   pypi_0    pypi\n"
            "jax-cuda12-plugin         0.5.0                    pypi_0    pypi\n")
    main = primary(diagnose_text(text))
    assert main is not None and main.code == "EJAX008", main
    assert any("jax 0.4.38 with jax_plugin 0.5.0" in n for n in main.notes), main.notes
    same = text.replace("0.5.0 ", "0.4.38")
    kept = primary(diagnose_text(same))
    assert kept is not None and kept.code == "EJAX006"  # a matched pair: no yield


def test_a_stated_jax_jaxlib_pair_yields_only_when_jax_would_refuse_it():
    # jax/version.py: jax 0.3.18 needs jaxlib >= 0.3.15, jax 0.3.17 >= 0.3.14
    text = ("RuntimeError: Unable to initialize backend 'cuda': INTERNAL: something failed "
            "(set JAX_PLATFORMS='' to automatically choose an available backend)\n"
            "jax                       0.3.18                   pypi_0    pypi\n"
            "jaxlib                    0.3.14                   pypi_0    pypi\n")
    main = primary(diagnose_text(text))
    assert main is not None and main.code == "EJAX008", main
    fits = primary(diagnose_text(text.replace("0.3.18", "0.3.17")))
    assert fits is not None and fits.code == "EJAX006", fits  # at jax 0.3.17's floor
    # a jax the floor table does not cover still yields on differing releases
    unknown = primary(diagnose_text(text.replace("0.3.18", "0.12.0").replace("0.3.14", "0.11.2")))
    assert unknown is not None and unknown.code == "EJAX008", unknown


def test_an_error_raised_through_the_plugin_yields_but_a_missing_library_does_not():
    head = ("Jax plugin configuration error: Exception when calling "
            "jax_plugins.xla_cuda12.initialize()\nTraceback (most recent call last):\n"
            '  File "/v/jax/_src/xla_bridge.py", line 605, in discover_pjrt_plugins\n'
            "    plugin_module.initialize()\n"
            '  File "/v/jax_plugins/xla_cuda12/__init__.py", line 83, in initialize\n'
            "    xla_client.register_custom_call_handler(\n")
    typed = primary(diagnose_text(head + "TypeError: register_custom_call_target(): "
                                         "incompatible function arguments.\n"))
    assert typed is not None and typed.code == "EJAX008"
    other = primary(diagnose_text(head + "RuntimeError: cuInit failed: CUDA_ERROR_NO_DEVICE\n"))
    assert other is None or other.code != "EJAX008"


def test_yields_to_is_checked_when_the_rules_load(tmp_path):
    from envdoctor.explain.signatures import parse_signature
    from envdoctor.rulefiles import RuleFileError, load_toml, rules_dir
    data = load_toml(rules_dir() / "signatures" / "jax" / "EJAX006.toml")
    data["yields_to"] = [{"code": "EJAX008", "versions_differ": ["jax", "jaxx"]}]
    with pytest.raises(RuleFileError, match="versions_differ"):
        parse_signature(data, tmp_path / "EJAX006.toml")
    data["yields_to"] = [{"code": "EJAX008", "when": "x"}]
    with pytest.raises(RuleFileError, match="unknown key"):
        parse_signature(data, tmp_path / "EJAX006.toml")


def test_every_yield_target_exists():
    from envdoctor.explain.signatures import load_signatures
    codes = {s.code for s in load_signatures()}
    targets = [t["code"] for s in load_signatures() for t in s.extra.get("yields_to", ())]
    assert targets and set(targets) <= codes


# ---------------------------------------------------------------- issue 21: more structure
def test_a_comma_typed_for_the_dot_is_read_only_in_a_known_library_name():
    # the hand-typed family of "libcudart.so.11.0" (a comma for the dot); prose keeps its commas
    facts = text_facts("error while loading shared libraries: libcudart,so.11.0: cannot open "
                       "shared object file\nwe tried foo,so it failed\n")
    assert facts.libraries == ("libcudart.so.11.0",)
    assert facts.corrected == (("libcudart,so.11.0", "libcudart.so.11.0"),)
    fixed = correct_library_names("ImportError: libcudnn,so.8: cannot open shared object file")
    assert fixed == "ImportError: libcudnn.so.8: cannot open shared object file"
    assert correct_library_names("a,so b") == "a,so b"


def test_capability_wordings_of_the_gpu_not_of_the_requirement():
    # huggingface/text-generation-inference#1573; mistralai/mistral-finetune#79 (title)
    assert text_facts("GPU with CUDA capability 7 5 is not supported for Flash Attention V2"
                      ).compute_capabilities == ("7.5",)
    facts = text_facts("`flshattF@v2.3.6` is not supported due to requires device with "
                       "capability > (8, 0) but your GPU has capability (6, 1) (too old)")
    assert facts.compute_capabilities == ("6.1",)


def test_ipython_frames_are_frames_and_a_cut_one_is_a_cut():
    # keras-team/keras-io#1844 (IPython 8: path:line, function and its arguments' values)
    facts = text_facts(
        "ValueError                                Traceback (most recent call last)\n"
        "Cell In[37], line 2\n"
        "      1 CKPT_path = \"Model_ckpt.h5\"\n"
        "----> 2 checkpointing_cb = tf.keras.callbacks.ModelCheckpoint(CKPT_path, "
        "save_best_only=True)\n\n"
        "File ~/anaconda3/lib/python3.11/site-packages/keras/src/callbacks/"
        "model_checkpoint.py:191, in ModelCheckpoint.__init__(self, filepath, monitor, verbose)\n"
        "    190 if not self.filepath.endswith(\".keras\"):\n")
    assert [(f.path[-19:], f.line, f.function) for f in facts.frames] == [
        ("model_checkpoint.py", 191, "ModelCheckpoint.__init__")]
    assert facts.truncated
    # an older IPython: "path in function()"
    old = text_facts("ModuleNotFoundError                       Traceback (most recent call last)\n"
                     "/usr/local/lib/python3.6/dist-packages/keras_adamw/optimizers.py in "
                     "<module>()\n----> 3 from keras.legacy import interfaces\n")
    assert old.frames[0].function == "<module>" and old.frames[0].line == 0


def test_a_cuda_library_error_yields_to_the_framework_whose_frames_loaded_it():
    # takabow/cdsw-demo-env#25: TensorFlow 1.x cannot load its cuDNN
    text = (
        '  File "/home/cdsw/.local/lib/python3.6/site-packages/tensorflow/python/'
        'pywrap_tensorflow_internal.py", line 24, in swig_import_helper\n'
        "    _mod = imp.load_module('_pywrap_tensorflow_internal', fp, pathname, description)\n"
        "ImportError: libcudnn.so.6: cannot open shared object file: No such file or directory\n")
    main = primary(diagnose_text("Traceback (most recent call last):\n" + text))
    assert main is not None and main.code == "ETF002"
    assert any("/tensorflow/python/" in n for n in main.notes)
    # the same library error with torch's frames stays the generic CUDA-library answer
    torch_text = text.replace("tensorflow/python/pywrap_tensorflow_internal.py",
                              "torch/__init__.py")
    other = primary(diagnose_text("Traceback (most recent call last):\n" + torch_text))
    assert other is not None and other.code == "ECUDNN008"


def test_frames_in_must_name_a_path_part(tmp_path):
    from envdoctor.explain.signatures import parse_signature
    from envdoctor.rulefiles import RuleFileError, load_toml, rules_dir
    data = load_toml(rules_dir() / "signatures" / "cudnn" / "ECUDNN008.toml")
    data["yields_to"] = [{"code": "ETF002", "frames_in": " "}]
    with pytest.raises(RuleFileError, match="frames_in"):
        parse_signature(data, tmp_path / "ECUDNN008.toml")


def test_a_cut_torch_import_is_read_from_its_frames_and_a_named_library_outranks_them():
    # pytorch/pytorch#131284 (IPython frames of torch's import loading its CUDA libraries)
    cut = ("OSError                                   Traceback (most recent call last)\n"
           "File /scratch/site-packages/torch/__init__.py:176, in _load_global_deps()\n"
           "    175 try:\n"
           "--> 176     ctypes.CDLL(lib_path, mode=ctypes.RTLD_GLOBAL)\n")
    main = primary(diagnose_text(cut))
    assert main is not None and main.code == "ECUDNN008"
    assert any("_load_global_deps" in n for n in main.notes)
    missing = ": cannot open shared object file: No such file or directory\n"
    whole = cut + "\nOSError: libcudart.so.12" + missing
    assert primary(diagnose_text(whole)).code == "ECUDA014"
    # another library's own error in the same import (a torch build linked against MPI)
    mpi = cut + "\nOSError: libmpi.so.40" + missing
    assert primary(diagnose_text(mpi)).code == "ESYS012"


def test_versions_in_print_pip_show_and_file_names():
    facts = text_facts("jax.__version__ = '0.4.30', jaxlib.__version__ = '0.4.31'\n")
    assert facts.version("jax") == "0.4.30" and facts.version("jaxlib") == "0.4.31"
    shown = text_facts("Name: jax\nVersion: 0.4.30\n---\nName: jax-cuda12-plugin\nVersion: 0.4.31\n"
                       "Name: requests\nVersion: 2.0.1\n")
    assert shown.versions == {"jax": ("0.4.30",), "jax_plugin": ("0.4.31",)}
    named = text_facts("tensorflow-2.16.1-cp311-cp311-manylinux_2_17_x86_64.whl\n"
                       "/usr/local/cuda-12.1/bin/nvcc\npython-dateutil 2.8.2\n"
                       "torch-scatter 2.1.1\n")
    assert named.versions == {"tensorflow": ("2.16.1",), "cuda": ("12.1",)}


def test_a_version_mismatch_claim_the_texts_own_versions_contradict():
    # the torchvision::nms family: a matched pair stated beside it (pytorch/pytorch#157648 shape)
    err = "RuntimeError: operator torchvision::nms does not exist\n"
    matched = primary(diagnose_text(err + "torch                     2.4.0\n"
                                          "torchvision               0.19.0\n"))
    assert matched is not None and matched.code == "ETORCH008"
    assert matched.confidence == "low"
    assert any("a pair torch's release table matches" in n for n in matched.notes)
    wrong = primary(diagnose_text(err + "torch 2.4.0+cu121\ntorchvision 0.18.1+cu121\n"))
    assert wrong.confidence == "high" and not any("release table" in n for n in wrong.notes)
    variants = primary(diagnose_text(err + "torch 2.4.0+cu121\ntorchvision 0.19.0+cpu\n"))
    assert variants.confidence == "high"


def test_stated_pair_is_checked_when_the_rules_load(tmp_path):
    from envdoctor.explain.signatures import parse_signature
    from envdoctor.rulefiles import RuleFileError, load_toml, rules_dir
    data = load_toml(rules_dir() / "signatures" / "torch" / "ETORCH008.toml")
    data["stated_pair"] = ["torch", "numpy"]
    with pytest.raises(RuleFileError, match="stated_pair"):
        parse_signature(data, tmp_path / "ETORCH008.toml")


def test_gpu_names_typed_run_together_are_read_spaced():
    facts = text_facts("does it run on rtx2080ti? QuadroRTX8000 fails, GTX1080Ti too; "
                       "NvidiaTeslaP100 as well. RTX_3090 and rtx-3090 are not read")
    assert facts.gpus == ("RTX 2080 Ti", "Quadro RTX 8000", "GTX 1080 Ti", "Tesla P100")


def test_a_short_gpu_name_resolves_only_when_its_full_names_agree():
    from envdoctor.explain.textfacts import stated_gpu_cc
    assert stated_gpu_cc("RTX 8000") == "7.5"      # Quadro RTX 8000
    assert stated_gpu_cc("T4") == "7.5"            # Tesla T4
    assert stated_gpu_cc("RTX 6000") is None       # Quadro RTX 6000 (7.5) or RTX 6000 Ada (8.9)
    assert stated_gpu_cc("RTX 5000") is None       # the table knows only the Ada one
