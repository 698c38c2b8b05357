"""``explain.owncause``: an environment claim yields when the text shows the user's own
configuration is the cause (a preload, CUDA hard-coded in the user's own file, a source
checkout shadowing the installed package), and only then.

The texts are written for these tests (library names, paths and versions vary by family);
each pair differs only in the structure the reading depends on.
"""

from __future__ import annotations

import pytest

from envdoctor.engine import redos
from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.owncause import PATTERNS

if hasattr(__import__("re"), "_parser"):
    from re import _parser as sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_parse


def answer(text: str) -> tuple[str, str]:
    d = primary(diagnose_text(text))
    return (d.code, d.category) if d else ("none", "")


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.pattern[:30])
def test_every_pattern_is_linear(pattern):
    assert redos.problem_in(sre_parse.parse(pattern.pattern)) is None


# ---------------------------------------------------------------- preload
LOADER = "{prog}: error while loading shared libraries: libcudart.so.12: cannot open shared " \
         "object file: No such file or directory"


@pytest.mark.parametrize("prog", ["/bin/bash", "/usr/bin/sh", "/bin/zsh"])
def test_a_shell_that_cannot_load_a_cuda_library_is_a_preload(prog):
    code, category = answer("docker run --rm -e LD_PRELOAD=/opt/ext/libcustom_ops.so img\n"
                            + LOADER.format(prog=prog))
    assert code != "none" and category == "user_code"
    d = primary(diagnose_text(LOADER.format(prog=prog)))
    assert d is not None and "LD_PRELOAD" in d.fix and any("shell" in n for n in d.notes)


def test_the_same_library_missing_for_python_is_the_environment():
    text = ('  File "/venv/lib/python3.11/site-packages/torch/__init__.py", line 290, in '
            "<module>\n    from torch._C import *\n"
            "ImportError: libcudart.so.12: cannot open shared object file: No such file or "
            "directory")
    assert answer(text)[1] == "environment"


def test_a_shell_missing_its_own_c_runtime_is_not_a_preload():
    text = ("/bin/bash: error while loading shared libraries: libtinfo.so.6: cannot open "
            "shared object file: No such file or directory")
    assert answer(text)[1] != "user_code"


@pytest.mark.parametrize("value", ["/opt/trt/libplugin. so", "/opt/trt/libplugin.",
                                   "/opt/trt/libplugin .so"])
def test_a_malformed_preload_path_is_the_users(value):
    text = (f"export LD_PRELOAD={value}\npython infer.py\n"
            "OSError: libnvinfer.so.10: cannot open shared object file: No such file or "
            "directory")
    assert answer(text)[1] == "user_code"


def test_a_well_formed_preload_of_another_library_does_not_take_the_blame():
    text = ("export LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2\npython infer.py\n"
            "OSError: libnvinfer.so.10: cannot open shared object file: No such file or "
            "directory")
    assert answer(text)[1] == "environment"


def test_the_preloaded_path_itself_missing_is_the_users():
    text = ("LD_PRELOAD=/home/me/build/libfused_attn.so python serve.py\n"
            "ImportError: /home/me/build/libfused_attn.so: cannot open shared object file: "
            "No such file or directory")
    d = primary(diagnose_text(text))
    assert d is None or d.category != "environment"


def test_an_ignored_preload_warning_does_not_excuse_a_real_missing_library():
    # the notebook hosts' standing warning: the preload is ignored, the cuDNN error is real
    text = ("ERROR: ld.so: object '/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4' from "
            "LD_PRELOAD cannot be preloaded (cannot open shared object file): ignored.\n"
            "OSError: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file "
            "or directory")
    assert answer(text)[1] == "environment"


# ---------------------------------------------------------------- cuda_in_own_code
MAC_FRAMES = '''  File "{caller}", line 88, in embed
    {code}
  File "/Users/me/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 310, in _lazy_init
    raise AssertionError("Torch not compiled with CUDA enabled")
AssertionError: Torch not compiled with CUDA enabled
'''


@pytest.mark.parametrize("code", ["ids = torch.arange(n).cuda()", "x = x.to('cuda:0')",
                                  'model = Net().to(device="cuda")'])
def test_cuda_hard_coded_in_the_users_own_file_on_a_mac_is_the_users(code):
    text = MAC_FRAMES.format(caller="/Users/me/projects/tagger/encode.py", code=code)
    d = primary(diagnose_text(text))
    assert d is not None and d.code == "EMPS021" and d.category == "user_code"
    assert any("encode.py, line 88" in n for n in d.notes)


def test_cuda_asked_for_by_an_installed_package_stays_the_platform_answer():
    text = MAC_FRAMES.format(
        caller="/Users/me/venv/lib/python3.11/site-packages/facelib/detect.py",
        code="ids = torch.arange(n).cuda()")
    assert answer(text) == ("EMPS021", "usage")


def test_a_users_own_frame_without_a_cuda_literal_stays_the_platform_answer():
    text = MAC_FRAMES.format(caller="/Users/me/projects/tagger/encode.py",
                             code="ids = torch.arange(n).to(self.device)")
    assert answer(text) == ("EMPS021", "usage")


# ---------------------------------------------------------------- source_tree
CHECKOUT = '''git clone https://example.org/vision/detectron2.git
cd detectron2
{install}
python -c "import detectron2.layers"
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/home/ana/detectron2/detectron2/layers/__init__.py", line 3, in <module>
    from .deform_conv import DeformConv
  File "/home/ana/detectron2/detectron2/layers/deform_conv.py", line 10, in <module>
    from detectron2 import _C
ImportError: cannot import name '_C' from partially initialized module
ModuleNotFoundError: No module named 'detectron2._C'
'''


@pytest.mark.parametrize("install", ["pip install .", "python setup.py install",
                                     "export PYTHONPATH=$PWD:$PYTHONPATH"])
def test_a_checkout_shadowing_the_installed_package_is_the_users(install):
    d = primary(diagnose_text(CHECKOUT.format(install=install)))
    assert d is not None and d.code == "EBUILD008" and d.category == "user_code"
    assert any("/home/ana/detectron2/detectron2/" in n for n in d.notes)


@pytest.mark.parametrize("install", ["pip install -e .", "pip install --editable .",
                                     "python setup.py develop"])
def test_an_editable_install_without_its_ops_stays_a_build_problem(install):
    assert answer(CHECKOUT.format(install=install)) == ("EBUILD008", "environment")


def test_frames_in_site_packages_are_not_a_checkout():
    text = CHECKOUT.format(install="pip install .").replace(
        "/home/ana/detectron2/detectron2/", "/home/ana/env/lib/python3.10/site-packages/"
                                            "detectron2/")
    assert answer(text) == ("EBUILD008", "environment")


# ---------------------------------------------------------------- works_elsewhere
# The reporter's own sentence that the import works from another directory, from threads where
# the checkout (or build folder) in the working directory shadowed the installed package; the
# error line under it is one EPY008 / EPY009 reads.
MISSING = "ModuleNotFoundError: No module named '{module}'"
WORKS_ELSEWHERE = [
    # astropy/photutils#89
    "`import photutils` fails in the top-level directory. The import works fine in the other "
    "directories I tried.",
    # poke1024/pyalign#5
    "If I import it while still inside the source directory, I get the following:\n{error}\n"
    "(The problem goes away when `cd`ing somewhere else.)",
    # facebookresearch/detectron2#2752
    "I got the error first and after changing the working directory I found it work well for "
    "this problem.",
]


@pytest.mark.parametrize("module", ["torch", "transformers.models"])
@pytest.mark.parametrize("said", WORKS_ELSEWHERE)
def test_an_import_that_works_from_another_directory_is_the_working_directory(said, module):
    error = MISSING.format(module=module)
    text = said.format(error=error) if "{error}" in said else f"{error}\n\n{said}"
    d = primary(diagnose_text(text))
    assert d is not None and d.code in ("EPY008", "EPY009") and d.category == "user_code"
    assert "cd .." in d.fix and any("another directory" in n for n in d.notes)


# Another *interpreter* where it works (an environment, a notebook kernel, a terminal), the
# reverse direction (it works only inside the repository: not installed), and a build that
# merely ran elsewhere: "not installed in this Python" stands.
ANOTHER_PYTHON = [
    # eriklindernoren/PyTorch-YOLOv3#639
    "If I run a Jupyter lab or notebook, torch is easily imported.",
    # pytorch/pytorch#138991
    "I can use torch in conda base environment. But I cannot use it in the environment I "
    "created.",
    # jupyter/notebook#5210
    "It works fine and is found when I run using local terminal but doesn't work on Jupyter.",
    # vc1492a/tidd#25
    "When attempting to import the library from outside the root directory, the module is not "
    "found. This is not encountered from the root directory.",
    "I built it in another directory with no errors, but the import still fails.",
    "It works in a different conda environment on the same machine.",
]


@pytest.mark.parametrize("said", ANOTHER_PYTHON)
def test_another_interpreter_where_it_works_stays_not_installed(said):
    assert answer(MISSING.format(module="torch") + "\n\n" + said) == ("EPY008", "environment")


def test_own_cause_is_checked_when_the_rules_load(tmp_path):
    from envdoctor.explain.signatures import parse_signature
    from envdoctor.rulefiles import RuleFileError, load_toml, rules_dir
    data = load_toml(rules_dir() / "signatures" / "mps" / "EMPS021.toml")
    for bad in (["cuda_in_own_cod"], [], "source_tree", ["preload"]):
        data["own_cause"] = bad
        with pytest.raises(RuleFileError, match="own_cause"):
            parse_signature(data, tmp_path / "EMPS021.toml")


def test_a_jetpack_package_list_naming_nvidia_container_is_not_a_container():
    # JetPack's metapackage depends on a package called nvidia-container: on the board itself
    text = ("Package: nvidia-jetpack\nVersion: 5.1-b147\n"
            "Depends: nvidia-jetpack-runtime (= 5.1-b147), nvidia-container (= 5.1-b147)\n"
            "ImportError: libnvinfer.so.7: cannot open shared object file: No such file or "
            "directory")
    assert answer(text)[0] != "ETEGRA020"
    inside = "root@3f2a9c1d7e0b:/# docker run -it l4t-base\n" + text
    assert answer(inside)[0] == "ETEGRA020"


# a TF1 call under TF2 (platform batch P3's q011 shape, reworded): where the innermost frame is
_TF1 = """Traceback (most recent call last):
  File "{path}", line 8, in <module>
    d = tf.random_normal([])
AttributeError: module 'tensorflow' has no attribute 'random_normal'
"""


def test_a_removed_api_called_from_the_users_own_file_is_the_code():
    code, category = answer(_TF1.format(path="confirm.py"))
    assert (code, category) == ("ETF013", "user_code")
    d = primary(diagnose_text(_TF1.format(path="confirm.py")))
    assert d is not None and "compat.v1" in d.fix and "confirm.py, line 8" in " ".join(d.notes)


def test_the_same_call_inside_an_installed_package_is_a_version_mismatch():
    inside = "/usr/lib/python3/dist-packages/oldlib/graph.py"
    assert answer(_TF1.format(path=inside)) == ("ETF013", "environment")


def test_a_removed_api_without_a_traceback_stays_the_environment():
    assert answer(_TF1.splitlines()[-1]) == ("ETF013", "environment")


# ---------------------------------------------------------------- not_the_package
# tensorflow/tensorflow#28213: TensorFlow 2.0 alpha has tf.keras; the reporter's script was
# named tensorflow.py
TF_KERAS = "AttributeError: module 'tensorflow' has no attribute 'keras'\n"


def test_tf_keras_missing_under_a_stated_tensorflow_that_has_it_is_not_the_release():
    assert answer("tensorflow                2.0.0a0\nKeras                     2.2.4\n\n"
                  "I got error:\n" + TF_KERAS) == ("EPY010", "user_code")


@pytest.mark.parametrize("stated", ["", "TensorFlow version: 0.12.0\n", "tensorflow 1.3.0\n"])
def test_tf_keras_missing_under_an_older_or_unstated_tensorflow_is_the_release(stated):
    assert answer(stated + TF_KERAS) == ("EPY010", "environment")
