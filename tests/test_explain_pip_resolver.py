"""Install failures read by structure (envdoctor.explain.piptext): the pinned release against the
versions pip lists for this interpreter, pip's Requires-Python lines, a refused wheel's tags
against the Python / OS / CPU the text states, conda's Python chains. Texts are excerpts of the
threads cited (short error lines) or constructed; none is from a held-out set."""

from __future__ import annotations

import re

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envdoctor.engine import redos
from envdoctor.explain import diagnose_text, piptext, primary

if hasattr(re, "_parser"):
    from re import _parser as sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_parse


def notes_of(text: str) -> tuple[str, tuple[str, ...]]:
    d = primary(diagnose_text(text))
    return (d.code, d.notes) if d else ("none", ())


# (source, text, code, words every one of which the finding's notes must hold)
FIRE = [
    # pip: the pin is older than every version listed for this interpreter
    ("https://github.com/tensorflow/tensorflow/issues/53709",
     "- OS Platform and Distribution (e.g., Linux Ubuntu 16.04): MAC OS Big Sur 11.6\n"
     "- TensorFlow version: trying to install 2.4.1\n- Python version: 3.9.6\n"
     "ERROR: Could not find a version that satisfies the requirement tensorflow==2.4.1 (from "
     "versions: 2.5.0rc0, 2.5.0rc1, 2.5.0rc2, 2.5.0rc3, 2.5.0, 2.5.1, 2.5.2, 2.6.0rc0, 2.6.0rc1, "
     "2.6.0rc2, 2.6.0, 2.6.1, 2.6.2, 2.7.0rc0, 2.7.0rc1, 2.7.0, 2.8.0rc0)\n"
     "ERROR: No matching distribution found for tensorflow==2.4.1\n",
     "EPIP001", ["tensorflow 2.4.1 has no wheel for Python 3.9", "3.6–3.8", "2.5.0",
                 "Python 3.8 or older"]),
    ("https://github.com/mjkwon2021/CAT-Net/issues/42",
     "ERROR: Could not find a version that satisfies the requirement torch==1.1.0 (from -r "
     "requirements.txt (line 1)) (from versions: 1.4.0, 1.5.0, 1.5.1, 1.6.0, 1.7.0, 1.7.1, "
     "1.8.0, 1.8.1, 1.9.0, 1.9.1, 1.10.0, 1.10.1, 1.10.2, 1.11.0, 1.12.0, 1.12.1, 1.13.0, "
     "1.13.1, 2.0.0, 2.0.1, 2.1.0)\nERROR: No matching distribution found for torch==1.1.0 "
     "(from -r requirements.txt (line 1))\n",
     "EPIP001", ["torch 1.4.0 to 2.1.0", "newer than the requested 1.1.0"]),
    ("https://github.com/notiom/ER-nerf/issues/3",
     "0.413 Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/cu113\n"
     "3.294 ERROR: Could not find a version that satisfies the requirement torch==1.12.1+cu113 "
     "(from versions: 2.2.0, 2.2.1, 2.2.2, 2.3.0, 2.3.1, 2.4.0)\n"
     "3.295 ERROR: No matching distribution found for torch==1.12.1+cu113\n",
     "EPIP001", ["torch 1.12.1+cu113 has wheels for Python 3.7–3.10 only", "2.2.0", "newer"]),
    ("https://github.com/talbaram3192/Emotion_Recognition_project/issues/3",
     "ERROR: Could not find a version that satisfies the requirement tensorflow-cpu==2.4.1 "
     "(from versions: 2.5.0rc0, 2.5.0rc1, 2.5.0rc2, 2.5.0rc3, 2.5.0, 2.5.1, 2.6.0rc0, 2.6.0rc1, "
     "2.6.0rc2, 2.6.0)\nERROR: No matching distribution found for tensorflow-cpu==2.4.1\n",
     "EPIP001", ["tensorflow-cpu 2.4.1 has wheels for Python 3.6–3.8 only", "2.5.0"]),
    ("https://github.com/https-deeplearning-ai/machine-learning-engineering-for-production-public/issues/44",
     "`ERROR: Could not find a version that satisfies the requirement tensorflow==2.3.1 (from "
     "versions: 2.5.0rc0, 2.5.0rc1, 2.5.0rc2, 2.5.0rc3, 2.5.0, 2.5.1, 2.5.2, 2.6.0rc0, 2.6.0rc1, "
     "2.6.0rc2, 2.6.0, 2.6.1, 2.6.2, 2.7.0rc0, 2.7.0rc1, 2.7.0)\n"
     "ERROR: No matching distribution found for tensorflow==2.3.1`\n"
     "I'm using venv to install virtual env on Windows 10 machine.\n",
     "EPIP001", ["tensorflow 2.3.1 has wheels for Python 3.5–3.8 only", "2.5.0"]),
    # pip: the pin is newer than every version listed, and the Python is in its range: the platform
    ("https://github.com/tensorflow/tflite-micro/issues/2927",
     "macOS darwin version: 24.1.0\nPython Platform: macOS-10.16-x86_64-arm-64bit\n"
     "Python Version: 3.9.7\nError in fail: whl_library tflm_pip_deps_tensorflow failed:  "
     "(ERROR: Could not find a version that satisfies the requirement tensorflow==2.18.0 (from "
     "versions: 2.5.0, 2.5.1, 2.5.2, 2.5.3, 2.6.0rc0, 2.6.0, 2.13.0, 2.13.1, 2.14.0, 2.14.1, "
     "2.15.0, 2.15.1, 2.16.0rc0, 2.16.1, 2.16.2)\n"
     "ERROR: No matching distribution found for tensorflow==2.18.0\n",
     "EPIP001", ["tensorflow 2.18.0 has wheels for Python 3.9–3.12", "the stated 3.9 among them",
                 "2.16.2", "platform", "macOS on x86_64"]),
    ("https://github.com/IBM/responsible-prompting-api/issues/57",
     "`ERROR: Could not find a version that satisfies the requirement tensorflow==2.19.0 (from "
     "versions: 2.5.0, 2.5.1, 2.5.2, 2.5.3, 2.6.0rc0, 2.6.0, 2.7.0, 2.8.0, 2.9.0, 2.10.0, "
     "2.11.0, 2.12.0, 2.13.0, 2.13.1, 2.14.0, 2.14.1, 2.15.0, 2.15.1, 2.16.0rc0, 2.16.1, "
     "2.16.2)`\n",
     "EPIP001", ["tensorflow 2.19.0 has wheels for Python 3.9–3.12",
                 "this interpreter is Python 3.9", "platform"]),
    # pip's own Requires-Python line for the pinned release
    ("https://github.com/kalekundert/autoclasstoc/issues/34",
     "dev-311 ❯ pip install -U autoclasstoc==1.5\n"
     "ERROR: Ignored the following versions that require a different python version: 1.5.0 "
     "Requires-Python >=3.6,<3.11; 1.5.1 Requires-Python >=3.6,<3.11; 1.5.2 Requires-Python "
     ">=3.6,<3.11\nERROR: Could not find a version that satisfies the requirement "
     "autoclasstoc==1.5 (from versions: 0.0.0, 1.0.1, 1.1.0, 1.1.1, 1.2.0, 1.2.1, 1.3.0, 1.4.0)\n"
     "ERROR: No matching distribution found for autoclasstoc==1.5\n",
     "EPIP001", ["autoclasstoc 1.5", "Python 3.6–3.10", "Requires-Python >=3.6,<3.11"]),
    ("https://github.com/Pastlecry/FireLemon/issues/3",
     "ERROR: Ignored the following versions that require a different python version: 2.0.0 "
     "Requires-Python >=3.10; 2.0.1 Requires-Python >=3.10; 2.1.0 Requires-Python >=3.10; 2.1.1 "
     "Requires-Python >=3.10\nERROR: Could not find a version that satisfies the requirement "
     "accuweather==2.1.1 (from versions: 0.0.6, 0.0.7, 0.1.0, 0.5.2, 1.0.0)\n"
     "ERROR: No matching distribution found for accuweather==2.1.1\n",
     "EPIP001", ["accuweather 2.1.1", "Python 3.10 or newer"]),
    # a requirements line that names the interpreter
    ("https://github.com/imsatoshi/GeneTrader/issues/3",
     "ERROR: Could not find a version that satisfies the requirement python>=3.7 (from "
     "versions: none)\nERROR: No matching distribution found for python>=3.7\n",
     "EPIP001", ["`python` in a requirements list names the interpreter"]),
    # a refused wheel: its tags against the stated OS, or tags no interpreter accepts
    ("https://github.com/mhammond/pywin32/issues/1367",
     "pywin32-224-cp36-cp36m-win32.whl is not a supported wheel on this platform.\n"
     "How to solve this problem,Other versions I've tried are still the problem.My system is "
     "Linux,thanks\n",
     "EPIP001", ["built for Windows and the text states Linux"]),
    ("https://github.com/PINTO0309/Tensorflow-bin/issues/28",
     "device:  RaspberryPi3 B+\nCPU architecture :  aarch64\nOS:  Ubuntu 20.04 64bit\n"
     "Error message:  tensorflow-2.3.0-cp38-cp38m-linux_aarch64.whl is not a supported wheel on "
     "this platform.\n",
     "EPIP001", ["`cp38m`", "Python 3.8 dropped the `m` ABI flag"]),
    ("https://github.com/project-chip/connectedhomeip/pull/5299",
     "On RPI\npip3 install ./out/debug/linux_arm64_gcc/controller/python/"
     "chip-0.0-cp37-abi3-linux_arm64.whl\n"
     "ERROR: chip-0.0-cp37-abi3-linux_arm64.whl is not a supported wheel on this platform.\n",
     "EPIP001", ["`linux_arm64` fits no Linux", "aarch64"]),
    ("https://github.com/myinternets/places/issues/22",
     " > [stage-0  8/18] RUN --mount=type=cache,target=/home/.cache/pip     pip install "
     "--no-cache-dir -r torch-requirements.txt:\n#0 0.741 ERROR: "
     "torch-2.0.1+cpu-cp311-cp311-linux_arm64.whl is not a supported wheel on this platform.\n",
     "EPIP001", ["`linux_arm64` fits no Linux"]),
    ("https://github.com/project-chip/connectedhomeip/issues/11250",
     "When running `scripts/build_python.sh` natively on an `arm64` Mac\n"
     "ERROR: chip-0.0-cp37-abi3-macosx_11_0_aarch64.whl is not a supported wheel on this "
     "platform.\n",
     "EPIP001", ["`macosx_11_0_aarch64` fits no Mac", "arm64"]),
    # conda: the Pythons a package's builds need against the Python asked for
    ("https://github.com/pytorch/pytorch/issues/86566",
     "conda create -n 11diffnightly -c pytorch-nightly -c defaults -c conda-forge "
     "python==3.11.0 pytorch\nUnsatisfiableError: The following specifications were found to "
     "be incompatible with each other:\n\nOutput in format: Requested package -> Available "
     "versions\n\nPackage python conflicts for:\npython==3.11.0\npytorch -> python[version='>="
     "3.10,<3.11.0a0|>=3.10,<3.11.0a0|>=3.8,<3.9.0a0|>=3.9,<3.10.0a0|>=3.8,<3.9.0a0|>=3.9,"
     "<3.10.0a0',build=*_cpython]\n",
     "ECONDA001", ["pytorch's builds", "Python 3.8–3.10", "asks for Python 3.11.0"]),
    ("https://github.com/facebookresearch/pytorch3d/issues/917",
     "UnsatisfiableError: The following specifications were found\nto be incompatible with the "
     "existing python installation in your environment:\n\nSpecifications:\n\n  - pytorch3d -> "
     "python[version='>=2.7,<2.8.0a0|>=3.5,<3.6.0a0']\n\nYour python: python=3.8\n",
     "ECONDA001", ["pytorch3d's builds", "Python 2.7, 3.5", "asks for Python 3.8"]),
]


@pytest.mark.parametrize(("source", "text", "code", "words"), FIRE, ids=[f[0] for f in FIRE])
def test_the_finding_names_the_python_release_or_tag(source, text, code, words):
    got, notes = notes_of(text)
    assert got == code
    joined = "\n".join(notes)
    for w in words:
        assert w in joined, (w, notes)


# (source, text, code, a word no note may hold or None: no reading's note at all)
QUIET = [
    # the wheel's tags fit the Python and CPU the text states: the cause is something else
    ("https://github.com/lhelontra/tensorflow-on-arm/issues/63",
     "rock@localhost:~/Downloads$ pip3 install tensorflow-1.13.1-cp35-none-linux_aarch64.whl\n"
     "tensorflow-1.13.1-cp35-none-linux_aarch64.whl is not a supported wheel on this platform.\n"
     "rock@localhost:~/Downloads$ uname -m\naarch64\nrock@localhost:~/Downloads$ python3 -V\n"
     "Python 3.5.0\n", "EPIP001", "pip refused"),
    ("https://github.com/timxx/pywpsrpc/issues/96",
     "Using pip 24.2 from /home/mypc/python4wps/lib/python3.8/site-packages/pip (python 3.8)\n"
     "Looking in indexes: https://pypi.tuna.tsinghua.edu.cn/simple\n"
     "ERROR: pywpsrpc-2.3.9-cp38-cp38-manylinux_2_5_aarch64.whl is not a supported wheel on this "
     "platform.\n", "EPIP001", "pip refused"),
    ("https://github.com/oobabooga/textgen/issues/4014",
     "Ignoring bitsandbytes: markers 'platform_system != \"Windows\"' don't match your "
     "environment\nCollecting bitsandbytes==0.41.1 (from -r requirements.txt (line 30))\n"
     "ERROR: auto_gptq-0.4.2+cu117-cp310-cp310-win_amd64.whl is not a supported wheel on this "
     "platform.\n", "EPIP001", "pip refused"),
    # the Python a later message proposes is not the one that failed
    ("https://github.com/PiotrRut/elonmusk-twitter-notifier/issues/4",
     "ERROR: Could not find a version that satisfies the requirement tensorflow==2.4.0 (from "
     "versions: 2.5.0rc0, 2.5.0rc1, 2.5.0rc2, 2.5.0rc3, 2.5.0)\n"
     "ERROR: No matching distribution found for tensorflow==2.4.0\n"
     "Somehow solved the issue by switching to Python 3.7\n", "EPIP001", "Python 3.7"),
    # pip's Requires-Python line names other packages' versions than the one refused
    ("https://github.com/PromptEngineer48/Ollama/issues/5",
     "ERROR: Ignored the following versions that require a different python version: 0.5.12 "
     "Requires-Python >=3.7,<3.12; 0.5.13 Requires-Python >=3.7,<3.12; 1.21.2 Requires-Python "
     ">=3.7,<3.11; 1.21.3 Requires-Python >=3.7,<3.11\nERROR: Could not find a version that "
     "satisfies the requirement onnxruntime>=1.14.1 (from chromadb) (from versions: none)\n"
     "ERROR: No matching distribution found for onnxruntime>=1.14.1\n", "EPIP001", None),
    ("https://github.com/rqhuang88/DV-Matcher/issues/9",
     "ERROR: Ignored the following versions that require a different python version: 1.3.3 "
     "Requires-Python >=3.11; 2.3.0 Requires-Python >=3.11; 9.0.0 Requires-Python >=3.11\n"
     "ERROR: Could not find a version that satisfies the requirement pointnet2==3.0.0 (from "
     "versions: none)\nERROR: No matching distribution found for pointnet2==3.0.0\n",
     "EPIP001", None),
    ("https://github.com/softwaremill/FoXAI/issues/147",
     "ERROR: Ignored the following versions that require a different python version: 0.5.3 "
     "Requires-Python >=3.7.2,<3.11; 0.5.4 Requires-Python >=3.7.2,<3.11; 0.6.0 Requires-Python "
     ">=3.7.2,<3.11\nERROR: Could not find a version that satisfies the requirement foxai (from "
     "versions: none)\nERROR: No matching distribution found for foxai\n", "EPIP001", None),
    # constructed near misses: the version exists, the index was not reached, a private index,
    # a successful install after the error, conda's chains that do list the Python asked for
    ("constructed: the pinned release is listed (another cause)",
     "ERROR: Could not find a version that satisfies the requirement torch==2.1.0 (from "
     "versions: 1.13.0, 2.0.0, 2.1.0, 2.2.0)\n", "EPIP001", None),
    ("constructed: pip never reached the index",
     "Python 3.12.1\nWARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, "
     "status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3."
     "connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno "
     "-3] Temporary failure in name resolution')': /simple/torch/\nERROR: Could not find a "
     "version that satisfies the requirement torch (from versions: none)\n", "EPIP001", "pip"),
    ("constructed: a private index",
     "Using pip 24.0 from /opt/venv/lib/python3.11/site-packages/pip (python 3.11)\n"
     "Looking in indexes: https://artifactory.example.com/api/pypi/pypi-remote/simple\n"
     "ERROR: Could not find a version that satisfies the requirement torch==2.1.0 (from "
     "versions: none)\n", "EPIP001", "pip"),
    ("constructed: installed after the refusal",
     "/home/u/venv/lib/python3.12/site-packages\nERROR: Could not find a version that satisfies "
     "the requirement torch==1.13.1 (from versions: 2.2.0, 2.2.1, 2.3.0)\n"
     "ERROR: No matching distribution found for torch==1.13.1\n"
     "$ conda create -n py310 python=3.10 && pip install torch==1.13.1\n"
     "Successfully installed torch-1.13.1 typing-extensions-4.9.0\n", "EPIP001", "pip lists"),
    ("constructed: conda's chain lists the Python asked for",
     "Package python conflicts for:\npython=3.11\npytorch -> python[version='>=3.10,<3.11.0a0|"
     ">=3.11,<3.12.0a0|>=3.9,<3.10.0a0']\n\nPackage numpy conflicts for:\n"
     "UnsatisfiableError: The following specifications were found to be incompatible with each "
     "other:\n", "ECONDA001", "builds in these channels"),
]


@pytest.mark.parametrize(("source", "text", "code", "word"), QUIET, ids=[q[0] for q in QUIET])
def test_no_reading_where_the_text_does_not_say(source, text, code, word):
    got, notes = notes_of(text)
    assert got == code
    reading = (piptext.resolver_reason(text) or piptext.refused_wheel_reason(text)
               or piptext.conda_python_reason(text))
    if word is None:
        assert reading is None, reading
    else:
        assert not any(word in n for n in notes if "check that the package" not in n), notes


# ---------------------------------------------------------------- the pieces
@pytest.mark.parametrize(("text", "python"), [
    ("  in /home/u/venv/lib/python3.12/site-packages (from x)", "3.12"),
    (r"C:\Users\u\AppData\Local\Programs\Python\Python310\lib\site-packages", "3.10"),
    ("Python 3.11.4 (main, Jun  7 2023, 12:45:48) [GCC 11.3.0] on linux", "3.11.4"),
    ("$ python --version\nPython 3.9.6\n", "3.9.6"),
    ("### Python version\n\n3.13.1\n", "3.13.1"),
    ("- Python version: 3.8.10", "3.8.10"),
    ("  Downloading numpy-1.26.4-cp312-cp312-manylinux_2_17_x86_64.whl (18.0 MB)", "3.12"),
    ("pip 23.3.1 from /usr/lib/python3/dist-packages/pip (python 3.11)", "3.11"),
    ("ERROR: Package 'x' requires a different Python: 3.9.5 not in '>=3.10'", "3.9.5"),
    ("I have python 3.11 on Windows", "3.11"),
])
def test_the_python_the_text_states(text, python):
    assert piptext.stated_python(text) == Version(python)


@pytest.mark.parametrize("text", [
    "Somehow solved it by switching to Python 3.7",
    "/usr/lib/python3.8/site-packages and /opt/lib/python3.11/site-packages",
    "please try python 3.10",
    "ERROR: x-1.0-cp311-cp311-linux_x86_64.whl is not a supported wheel",  # the wheel's own
])
def test_no_python_where_the_text_names_none_or_two(text):
    assert piptext.stated_python(text) is None


def test_python_ranges_in_words():
    def words(spec: str) -> str:
        return piptext.minors_in_words(piptext.covered_minors(SpecifierSet(spec)))
    assert words(">=3.7,<3.11") == "3.7–3.10"
    assert words(">=3.9") == "3.9 or newer"
    assert words(">=3.7.2,<3.11") == "3.7–3.10"
    assert words(">=2.7,!=3.0.*,!=3.1.*,!=3.2.*,<3.8") == "2.7, 3.3–3.7"


def test_release_tables_answer_the_python_range():
    assert str(piptext.release_python("torch", Version("1.13.1"))) in (">=3.7,<3.11",
                                                                       "<3.11,>=3.7")
    assert piptext.release_python("tensorflow-gpu", Version("2.4.0")) is not None
    assert piptext.release_python("numpy", Version("1.26.0")) is None
    assert piptext.first_release_for("tensorflow", Version("3.13")) == ("2.20", True)
    assert piptext.first_release_for("foxai", Version("3.13")) == (None, False)


def test_a_local_build_listed_without_its_label_is_the_pytorch_index():
    text = ("ERROR: Could not find a version that satisfies the requirement torch==1.11.0+cu113 "
            "(from versions: 1.11.0, 1.12.0, 1.12.1, 1.13.0)\n")
    note = piptext.resolver_reason(text)
    assert note is not None and "https://download.pytorch.org/whl/cu113" in note


def test_only_prereleases_match():
    text = ("ERROR: Could not find a version that satisfies the requirement foo>=1.5 (from "
            "versions: 1.0, 1.1, 2.0rc1)\n")
    note = piptext.resolver_reason(text)
    assert note is not None and "--pre" in note


def test_a_python_no_release_has_wheels_for_yet():
    text = ("Python 3.40.0\nERROR: Could not find a version that satisfies the requirement "
            "torch (from versions: none)\n")
    note = piptext.resolver_reason(text)
    assert note is not None and "No torch release has wheels for Python 3.40" in note


def test_stated_python_outside_what_pip_lists_is_not_used():
    # pip lists tensorflow 2.5-2.16 here: this interpreter is 3.9, whatever else the text says
    text = ("Python 3.12.1\nERROR: Could not find a version that satisfies the requirement "
            "tensorflow==2.19.0 (from versions: 2.5.0, 2.9.0, 2.16.2)\n")
    note = piptext.resolver_reason(text)
    assert note is not None and "3.12" not in note.split("wheels for Python")[0]
    assert "this interpreter is Python 3.9" in note


def test_stated_platform():
    assert piptext.stated_platform("My system is Linux") == ("linux", None)
    assert piptext.stated_platform("x-1-cp38-cp38-win_amd64.whl on Ubuntu") == ("linux", None)
    assert piptext.stated_platform("WSL on Windows 11") == (None, None)
    assert piptext.stated_platform("uname -m\naarch64") == (None, "aarch64")


@pytest.mark.parametrize("pattern", piptext.PATTERNS, ids=lambda p: p.pattern[:30])
def test_every_pattern_is_linear(pattern):
    assert redos.problem_in(sre_parse.parse(pattern.pattern)) is None


def test_stated_notes_name_known_readings(tmp_path):
    from envdoctor.explain.stated import check_stated_notes
    from envdoctor.rulefiles import RuleFileError
    assert check_stated_notes(["pip_resolver"], tmp_path / "E.toml") == ("pip_resolver",)
    with pytest.raises(RuleFileError, match="stated_notes"):
        check_stated_notes(["no_such_reading"], tmp_path / "E.toml")
    with pytest.raises(RuleFileError, match="stated_notes"):
        check_stated_notes("pip_resolver", tmp_path / "E.toml")
