"""Python import failures read by structure: a signature's ``[lookup]`` (a named group of its
pattern looked up in rules/matrices/imports.toml decides the hit and fills the fix), fallback
signatures that leave a line to a specific one, and whose code raised the failure
(EPY008-EPY011)."""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.importtext import inside_package_reason
from envdoctor.explain.lookups import check_lookup, fill
from envdoctor.matrices import matrix
from envdoctor.matrices.check import matrix_problems
from envdoctor.matrices.imports import import_lookup
from envdoctor.rulefiles import RuleFileError

PATTERN = r"No module named '(?P<module>[\w.]{1,80})'"


@pytest.mark.parametrize(("name", "part", "dist"), [
    ("flash_attn", "whole", "flash-attn"),
    ("cv2", "whole", "opencv-python"),
    ("sklearn", "whole", "scikit-learn"),
    ("PIL", "whole", "pillow"),
    ("google.protobuf", "whole", "protobuf"),
    ("google.protobuf.internal.builder", "below", "protobuf"),
    ("timm.layers", "below", "timm"),
    ("timm.models.layers", "within", "timm"),
    ("timm", "within", "timm"),
])
def test_a_known_import_name_gives_its_distribution(name, part, dist):
    assert import_lookup(name, part)["dist"] == dist


@pytest.mark.parametrize(("name", "part"), [
    ("models", "whole"), ("utils", "whole"), ("src", "whole"),   # a project's own module
    ("google", "whole"),                     # a namespace many distributions share
    ("Yaml", "whole"), ("pil", "whole"),     # import names are case-sensitive
    ("timm.layers", "whole"),                # a submodule is not the distribution missing
    ("timm", "below"),                       # the distribution is not below itself
    ("torch._C", "below"), ("vllm._C", "within"), ("numpy._core._multiarray_umath", "below"),
    ("models.yolo", "below"),
])
def test_no_row_for_own_modules_private_parts_or_the_wrong_part(name, part):
    assert import_lookup(name, part) is None


def test_the_row_gives_the_commands_a_fix_names():
    apex = import_lookup("apex")
    assert "github.com/NVIDIA/apex" in apex["install"] and "github.com/NVIDIA/apex" in apex["upgrade"]
    assert "unrelated" in apex["row_note"]
    assert import_lookup("timm")["install"] == "python -m pip install timm"
    assert import_lookup("timm")["upgrade"] == "python -m pip install -U timm"
    assert "opencv-python-headless" in import_lookup("cv2")["also"]


def test_the_table_is_big_sourced_and_keyed_once():
    rows = matrix("imports")["module"]
    assert len(rows) >= 60
    assert matrix_problems("imports", matrix("imports")) == []
    twice = {"module": [{"import": "a", "dist": "a", "source": "https://pypi.org/project/a/"},
                        {"import": "a", "dist": "b", "source": "https://pypi.org/project/b/"}]}
    assert matrix_problems("imports", twice) == ["module[1].import: 'a' is also row 0's"]


@pytest.mark.parametrize(("raw", "patterns", "texts", "field"), [
    ({"group": "module", "table": "nope"}, [PATTERN], {}, "lookup.table"),
    ({"group": "module", "table": "imports", "part": "half"}, [PATTERN], {}, "lookup.part"),
    ({"group": "mod", "table": "imports"}, [PATTERN], {}, "lookup.group"),
    ({"group": "module", "table": "imports"}, [PATTERN, "No module named x"], {}, "lookup.group"),
    ({"group": "module", "table": "imports"}, [PATTERN], {"fix": "pip install {distro}"}, "fix"),
    ({"group": "module", "table": "imports", "notes": ["{nope}"]}, [PATTERN], {}, "lookup.notes"),
    ({"group": "module", "table": "imports", "extra": 1}, [PATTERN], {}, "lookup"),
])
def test_a_lookup_is_checked_when_the_rules_load(raw, patterns, texts, field):
    with pytest.raises(RuleFileError) as err:
        check_lookup(raw, patterns, texts, "x.toml")
    assert field in str(err.value)


def test_placeholders_are_filled_and_other_braces_left_alone():
    check_lookup({"group": "module", "table": "imports", "notes": ["{row_note}"]}, [PATTERN],
                 {"fix": "`{install}` for `{module}`, then echo ${HOME}"}, "x.toml")
    assert fill("`{install}` ${HOME} {unknown}", {"install": "pip install x"}) == \
        "`pip install x` ${HOME} {unknown}"


def _answer(text: str):
    d = primary(diagnose_text(text))
    return d


def test_a_missing_distribution_names_its_pip_name_in_the_fix():
    d = _answer("ModuleNotFoundError: No module named 'flash_attn'\n")
    assert d.code == "EPY008" and d.category == "environment"
    assert "`python -m pip install flash-attn --no-build-isolation`" in d.fix
    assert "{" not in d.fix and "{" not in d.why
    d = _answer("ModuleNotFoundError: No module named 'sklearn'\n")
    assert "python -m pip install scikit-learn" in d.fix


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'models'\n",
    "ModuleNotFoundError: No module named 'utils.general'\n",
    "ModuleNotFoundError: No module named 'src'\n",
    "ModuleNotFoundError: No module named 'torch._C'\n",
    "ModuleNotFoundError: No module named 'my_private_lib'\n",
    "ImportError: cannot import name 'X' from 'models' (/home/u/proj/models/__init__.py)\n",
    "ImportError: cannot import name 'X' from 'timm' (unknown location)\n",
])
def test_own_modules_private_parts_and_table_misses_get_no_import_claim(text):
    codes = {d.code for d in diagnose_text(text)}
    assert not codes & {"EPY008", "EPY009", "EPY010", "EPY011"}


def test_a_line_a_specific_signature_reads_is_that_ones():
    # EHF001 (a transformers model newer than the install), EHF003 (an HF library pair),
    # ETRITON004 (triton), EBUILD019 (torch in pip's build environment)
    assert _answer("ModuleNotFoundError: No module named 'transformers.models.qwen2_5_vl'\n"
                   ).code == "EHF001"
    assert _answer("ImportError: cannot import name 'cached_download' from 'huggingface_hub' "
                   "(/v/lib/python3.11/site-packages/huggingface_hub/__init__.py)\n").code == "EHF003"
    assert _answer("ModuleNotFoundError: No module named 'triton'\n").code == "ETRITON004"
    build = ("  Getting requirements to build wheel ... error\n"
             "      ModuleNotFoundError: No module named 'torch'\n")
    assert _answer(build).code == "EBUILD019"


def test_a_submodule_or_name_missing_is_the_installed_release():
    d = _answer("ModuleNotFoundError: No module named 'torch.distributed.checkpoint.format_utils'\n")
    assert d.code == "EPY009" and "python -m pip install -U torch" in d.fix
    d = _answer("ImportError: cannot import name 'get_act_layer' from 'timm.models.layers' "
                "(/opt/conda/lib/python3.7/site-packages/timm/models/layers/__init__.py)\n")
    assert d.code == "EPY010"
    assert "The installed timm is the one in /opt/conda/lib/python3.7/site-packages." in d.notes


def test_two_missing_modules_are_both_named():
    d = _answer("ModuleNotFoundError: No module named 'cv2'\n"
                "ModuleNotFoundError: No module named 'yaml'\n")
    assert d.code == "EPY008" and "opencv-python" in d.fix
    assert "The text names more than one: `cv2`, `yaml`." in d.notes


OWN = '''Traceback (most recent call last):
  File "/app/train.py", line 1, in <module>
    import bitsandbytes
  File "/venv/lib/python3.10/site-packages/bitsandbytes/cuda_setup/main.py", line 21, in <module>
    from .paths import determine_cuda_runtime_lib_path
ModuleNotFoundError: No module named 'bitsandbytes.cuda_setup.paths'
'''
CALLER = '''Traceback (most recent call last):
  File "/venv/lib/python3.10/site-packages/torchvision/models/densenet.py", line 5, in <module>
    import torch.utils.checkpoint as cp
ModuleNotFoundError: No module named 'torch.utils.checkpoint'
'''


def test_the_package_own_import_failing_is_its_files_mixed():
    reason = inside_package_reason(OWN)
    assert reason is not None and "--force-reinstall --no-deps bitsandbytes" in reason
    assert inside_package_reason(CALLER) is None
    assert _answer(OWN).code == "EPY011"
    assert _answer(CALLER).code == "EPY009"


def test_without_an_installed_copy_shown_the_release_reading_is_a_guess():
    bare = _answer("ModuleNotFoundError: No module named 'timm.layers'\n")
    assert bare.code == "EPY009" and bare.confidence == "low"
    assert any("source checkout" in n for n in bare.notes)
    framed = _answer('  File "/venv/lib/python3.11/site-packages/effdet/x.py", line 3, in <module>\n'
                     "    from timm.layers import DropPath\n"
                     "ModuleNotFoundError: No module named 'timm.layers'\n")
    assert framed.code == "EPY009" and framed.confidence == "medium"


def test_a_gpu_management_cli_missing_a_module_is_not_the_training_environment():
    text = "$ amd-smi\nModuleNotFoundError: No module named 'yaml'\n"
    assert not {d.code for d in diagnose_text(text)} & {"EPY008", "EPY009", "EPY010"}
