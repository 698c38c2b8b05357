"""A second reading (hard wrap undone, typographic quotes made plain) when a text explains nothing."""

from __future__ import annotations

import io
import json

from envdoctor.explain import diagnose_stream, diagnose_text, primary
from envdoctor.explain.unwrap import (json_unescape, plain_punctuation, second_reading, unwrap,
                                      wrap_width)

# a real line (https://github.com/Project-OSRM/node-osrm README) and a real nvidia-smi header
GLIBCXX = ("Error: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version GLIBCXX_3.4.20 not found "
           "(required by /node_modules/osrm/lib/binding/osrm.node)")
# https://github.com/predict-idlab/powershap/issues/50, as a word processor or chat app quotes it
NUMPY = "AttributeError: module \u2018numpy\u2019 has no attribute \u2018bool\u2019.\n"
SMI = ("+-----------------------------------------------------------------------------+\n"
       "| NVIDIA-SMI 535.54.03    Driver Version: 535.54.03    CUDA Version: 12.2     |\n"
       "|-------------------------------+----------------------+----------------------+\n")


def _cut(line: str, width: int) -> str:
    return "\n".join(line[i:i + width] for i in range(0, len(line), width)) + "\n"


def test_a_line_cut_at_the_terminal_width_is_read_whole():
    wrapped = "npm test\n" + _cut(GLIBCXX, 60)
    cut = io.BytesIO(wrapped.encode())
    assert not primary(diagnose_stream(cut)[1])  # as given, no line holds the whole message
    assert wrap_width(wrapped) == 60
    assert unwrap(wrapped, 60).splitlines()[1] == GLIBCXX
    assert primary(diagnose_text(wrapped)).code == "ESYS010"


def test_ordinary_texts_and_tables_are_not_wrapped():
    assert wrap_width(GLIBCXX + "\n" + "short line\n") is None
    assert unwrap(SMI, 79) == SMI  # table rows keep their breaks
    plain = "loss 0.1\nloss 0.2\n"
    assert wrap_width(plain) is None and diagnose_text(plain) == []
    rows = "".join(f"{i:08d},{i * 7 % 1000:08d},0.{i % 97:02d},ok,fixed-width-record-xyz\n"
                   for i in range(50))
    assert wrap_width(rows) is None  # equally long lines are data, not a wrapped line


def test_the_cli_undoes_the_wrap_too(cli, tmp_path):
    log = tmp_path / "err.txt"
    log.write_text("npm test\n" + _cut(GLIBCXX, 60))
    data = json.loads(cli("explain", "--no-facts", "--format", "json", str(log)).stdout)
    assert data["diagnoses"][0]["code"] == "ESYS010"


def test_typographic_quotes_and_no_break_spaces_read_as_ascii():
    assert not primary(diagnose_stream(io.BytesIO(NUMPY.encode()))[1])  # as given
    assert plain_punctuation(NUMPY).startswith("AttributeError: module 'numpy' has")
    assert primary(diagnose_text(NUMPY)).code == "ENUMPY004"
    assert plain_punctuation("a\u00a0b") == "a b" and second_reading("plain text\n") is None


def test_typographic_quotes_win_over_an_answer_the_as_given_text_led_to():
    """With curly quotes the first reading may match a weaker line; the plain one is read."""
    from envdoctor.explain import reread
    text = NUMPY + "RuntimeError: CUDA error: device-side assert triggered\n"
    first = diagnose_stream(io.BytesIO(text.encode()))[1]
    assert primary(first).code != "ENUMPY004"
    assert primary(reread(text, first)).code == primary(diagnose_text(text)).code == "ENUMPY004"
    assert reread("RuntimeError: CUDA error: device-side assert triggered\n", first) is None


def test_an_error_copied_out_of_json_is_read_with_its_escapes_undone():
    # the form of pytorch/pytorch#129568's error as a notebook front end serialises it
    # ({"name": ..., "message": ...}): quotes and backslashes escaped
    line = ('OSError: [WinError 126] The specified module could not be found. Error loading '
            '"C:\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.')
    doc = json.dumps({"name": "OSError", "message": line.split(": ", 1)[1]}, indent=1)
    assert primary(diagnose_text(line)).code == "EWIN001"
    assert json_unescape(doc).count('"C:\\venv\\Lib') == 1
    assert primary(diagnose_text(doc)).code == "EWIN001"
    plain = "C:\\Users\\me\\new.txt"  # a path's single backslashes are no escape
    assert json_unescape(plain) == plain


# https://github.com/microsoft/onnxruntime/issues/14837 (the line EWIN001's example quotes)
ORT_126 = ('onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed '
           'with error 126 "" when trying to load '
           '"E:\\x\\build\\examples\\Release\\onnxruntime_providers_cuda.dll"')


def _letter_spaced(line: str, keep_word_spaces: bool) -> str:
    """The line as a console that puts a space after every character shows it: its own spaces
    become three (a UTF-16 view) or are dropped (some consoles)."""
    if keep_word_spaces:
        return "   ".join(" ".join(word) for word in line.split(" "))
    return " ".join(line.replace(" ", ""))


def test_a_letter_spaced_line_is_read_as_its_characters():
    from envdoctor.explain.spaced import despace
    kept = _letter_spaced(ORT_126, True)       # "L o a d   L i b r a r y" (word spaces kept)
    dropped = _letter_spaced(ORT_126, False)      # "L o a d L i b r a r y f a i l e d"
    assert "LoadLibrary failed with error 126" in despace(kept)
    assert "LoadLibrary failed with error 126" in despace(dropped)
    # a path is never split into words, even where its letters spell some
    assert "Release\\onnxruntime_providers_cuda.dll" in despace(dropped)
    for text in (kept, dropped):
        assert primary(diagnose_text("console log:\n" + text + "\n")).code == "EWIN001"


def test_ordinary_lines_are_not_letter_spaced():
    from envdoctor.explain.spaced import despace, has_spaced_line
    for text in ("0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1\n",     # a printed matrix: no letters
                 "a b c\nI am a cat and so is my sister\n",
                 ORT_126, GLIBCXX, SMI):
        assert not has_spaced_line(text) and despace(text) == text


def test_a_hand_typed_slash_with_spaces_is_read_tight():
    from envdoctor.explain.unwrap import tight_slashes
    # nvidia-smi prints "Failed to initialize NVML: Driver/library version mismatch"; a
    # retyped report puts spaces around the slash (and capitals, which the signature ignores)
    typed = ("nvidia-smi in the running container says\n"
             "Failed to Initialize NVML: Driver / Library Version Mismatch\n")
    assert "Driver/Library" in tight_slashes(typed)
    assert primary(diagnose_text(typed)).code == "ESYS002"
    # divisions by numbers, ratios and a root path keep their spaces: a side is not a word
    for text in ("loss = total / 4\n", "epoch 3 / 10\n", "du -sh / \n", "Driver/library\n"):
        assert tight_slashes(text) == text


# torch's own warning (torch/cuda/__init__.py, _check_capability), retold in prose that an
# editor wrapped at words keeping the space at the end of each cut line
PROSE_WRAPPED = ("The base image predates this GPU's architecture. \n"
                 "Importing torch says \"NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not "
                 "compatible with \n"
                 "the current PyTorch installation.\"\n")


def test_a_paste_wrapped_at_words_with_the_space_kept_at_the_cut_is_read_whole():
    from envdoctor.explain.unwrap import join_continuations, soft_wrapped
    assert not primary(diagnose_stream(io.BytesIO(PROSE_WRAPPED.encode()))[1])
    assert soft_wrapped(PROSE_WRAPPED)
    assert "is not compatible with the current PyTorch" in join_continuations(PROSE_WRAPPED)
    assert primary(diagnose_text(PROSE_WRAPPED)).code == "ECUDA004"


def test_markdown_hard_breaks_and_single_trailing_spaces_stay_lines():
    from envdoctor.explain.unwrap import soft_wrapped
    # two trailing spaces: Markdown's hard line break, each line its own
    assert not soft_wrapped("GPU: RTX 4090  \nDriver: 550.54  \nCUDA: 12.4  \n")
    # one cut only is no wrap
    assert not soft_wrapped("epoch 1 done \nepoch 2 done\n")


# Python <= 3.7 (and 2) print "cannot import name 'X'" with no module; the traceback's own
# ``from M import …, X`` line names it, and the signatures read Python 3.8's "… from 'M'"
OLD_IMPORT_NAME = [
    # https://github.com/pytorch/vision/issues/1726 (Python 3.6, Pillow 7)
    ("  File \"/home/travis/virtualenv/python3.6.7/lib/python3.6/site-packages/torchvision/"
     "transforms/functional.py\", line 5, in <module>\n"
     "    from PIL import Image, ImageOps, ImageEnhance, PILLOW_VERSION\n"
     "ImportError: cannot import name 'PILLOW_VERSION'\n", "EPIL001"),
    # https://github.com/EtienneCmb/visbrain/issues/47 (SciPy 1.2, quoted in backticks)
    ("```from scipy.misc import imread```\n```ImportError: cannot import name 'imread'```\n",
     "ESCIPY001"),
    # https://github.com/traveller59/spconv/issues/367 (the import line of a cumm that spconv's
    # release does not fit; the message written here as Python 3.6 prints it)
    ("  File \"D:\\pythoncoder\\Anaconda3\\lib\\site-packages\\spconv\\core.py\", line 21, in <module>\n"
     "    from cumm.conv.main import gen_gemm_params as gen_conv_params, ConvFwdAndBwdInput, "
     "ConvBwdWeight, ConvIterAlgo, GemmAlgo\n"
     "ImportError: cannot import name 'ConvFwdAndBwdInput'\n", "EBUILD013"),
]


def test_old_pythons_import_name_message_reads_the_module_from_the_import_line():
    from envdoctor.explain.unwrap import import_name_modules
    for text, code in OLD_IMPORT_NAME:
        assert "' from '" in import_name_modules(text)
        assert primary(diagnose_text(text)).code == code, text


def test_old_import_name_message_without_a_module_line_stays_as_it_is():
    from envdoctor.explain.unwrap import import_name_modules
    # https://github.com/petercunha/Emotion/issues/25: the message alone names no module
    alone = "ImportError: cannot import name 'imread'\n"
    assert import_name_modules(alone) == alone
    assert primary(diagnose_text(alone)) is None
    # the import line names the user's own module, or another name; a relative import is
    # not a module name; Python 3.8's own wording is left as printed
    own = "    from utils.misc import imread, imsave\nImportError: cannot import name 'imread'\n"
    assert "from 'utils.misc'" in import_name_modules(own)
    assert primary(diagnose_text(own)) is None
    other = "    from scipy.misc import imsave\nImportError: cannot import name 'imread'\n"
    assert import_name_modules(other) == other
    rel = "    from .constants import NVRTCMode\nImportError: cannot import name 'NVRTCMode'\n"
    assert import_name_modules(rel) == rel
    new = "    from PIL import PILLOW_VERSION\nImportError: cannot import name 'PILLOW_VERSION' from 'PIL'\n"
    assert import_name_modules(new) == new
