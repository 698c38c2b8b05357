"""ESYS032 reads the loader's structure for any shared library it cannot open: the generic
answer (``fallback = true``) with its specific fixes kept as data ([[context]] tables), never
over a line that a specific family's code reads and never as a second opinion."""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.rank import rank
from envdoctor.explain.scan import Scanner
from envdoctor.explain.signatures import load_signatures, parse_signature


def _answer(text: str):
    found = diagnose_text(text)
    return primary(found), [d.code for d in found]


def _missing(lib: str) -> str:
    return f"ImportError: {lib}: cannot open shared object file: No such file or directory"


# (library, a word the fix must name): the class answers kept as data in ESYS032's contexts
CLASSES = [
    ("libssl.so.1.1", "openssl1.1"),
    ("libcrypto.so.1.1", "compat-openssl11"),
    ("libcrypt.so.1", "libxcrypt-compat"),
    ("libffi.so.7", "libffi.so.8"),
    ("libtinfo.so.5", "libtinfo5"),
    ("libncurses.so.5", "ncurses-compat-libs"),
    ("libavformat.so.58", "libavformat58"),
    ("libtorch_cuda.so", "import torch"),
    ("libc10.so", "import torch"),
    ("libX11.so.6", "libx11-6"),
    ("libxkbcommon.so.0", "libxkbcommon0"),
    ("libjpeg.so.8", "libjpeg8"),
    ("libpng16.so.16", "libpng16-16"),
    ("libcairo.so.2", "libcairo2"),
    ("libportaudio.so.2", "libportaudio2"),
    ("libasound.so.2", "libasound2"),
    ("libespeak-ng.so.1", "libespeak-ng1"),
    ("libvulkan.so.1", "libvulkan1"),
    ("libOpenCL.so.1", "ocl-icd-libopencl1"),
    ("libibverbs.so.1", "rdma-core"),
    ("libhwloc.so.15", "libhwloc15"),
    ("libtcmalloc.so.4", "google-perftools"),
    ("libjemalloc.so.2", "libjemalloc2"),
    ("libmkl_intel_lp64.so.2", "pip install mkl"),
    ("libiomp5.so", "intel-openmp"),
    ("libomp.so.5", "llvm-openmp"),
    ("libtbb.so.2", "libtbb2"),
    ("libboost_python38.so.1.71.0", "Boost 1.71"),
    ("libopencv_core.so.4.2", "OpenCV 4.2"),
    ("libglog.so.0", "ldconfig"),
    ("libzstd.so.1", "libzstd1"),
    ("liblzma.so.5", "xz-libs"),
    ("libnvToolsExt.so.1", "nvidia-nvtx-cu12"),
    ("libxyzfoo.so.3", "apt-file search"),
]


@pytest.mark.parametrize(("lib", "word"), CLASSES, ids=[c[0] for c in CLASSES])
def test_any_library_is_read_by_structure_with_the_fix_of_its_class(lib, word):
    d, _ = _answer(_missing(lib))
    assert d is not None and d.code == "ESYS032"
    assert word in d.fix


@pytest.mark.parametrize("text", [
    "./tool: error while loading shared libraries: libxyzfoo.so.3: cannot open shared object file: No such file or directory",
    "OSError: cannot load library 'libxyzfoo.so.3': libxyzfoo.so.3: cannot open shared object file: No such file or directory",
    "ImportError: dlopen(/x/site-packages/foo/_ext.so, 0x0002): Library not loaded: @rpath/libxyzfoo.3.dylib",
])
def test_each_loader_wording_is_read(text):
    d, _ = _answer(text)
    assert d is not None and d.code == "ESYS032"


@pytest.mark.parametrize(("lib", "code"), [
    ("libGL.so.1", "ESYS013"), ("libgomp.so.1", "ESYS013"), ("libsndfile.so.1", "ESYS013"),
    ("libcudnn.so.8", "ECUDNN008"), ("libcublas.so.11", "ECUDNN008"),
    ("libcudart.so.12", "ECUDA014"), ("libcuda.so.1", "ESYS001"),
    ("libnvidia-ml.so.1", "ESYS001"), ("libamdhip64.so.6", "EROCM027"),
    ("libpython3.9.so.1.0", "EPY002"), ("libmpi.so.40", "ESYS012"),
])
def test_a_family_with_its_own_code_keeps_it_and_the_fallback_is_silent(lib, code):
    d, codes = _answer(_missing(lib))
    assert d is not None and d.code == code
    assert "ESYS032" not in codes


def test_the_fallback_is_never_a_second_opinion():
    text = "\n".join([
        _missing("libxyzfoo.so.3"),
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    ])
    d, codes = _answer(text)
    assert d is not None and d.code != "ESYS032" and "ESYS032" not in codes


@pytest.mark.parametrize("text", [
    "\tlibssl.so.1.1 => /usr/lib/x86_64-linux-gnu/libssl.so.1.1 (0x00007f3c8a200000)",
    "checking for libssl.so.1.1... no",
    "ALSA lib dlmisc.c:340:(snd_dlobj_cache_get0) Cannot open shared library libasound_module_pcm_jack.so "
    "(libasound_module_pcm_jack.so: libasound_module_pcm_jack.so: cannot open shared object file: No such file or directory)",
    "libibverbs: Warning: couldn't load driver 'libmlx4-rdmav2.so': libmlx4-rdmav2.so: cannot open shared object file: No such file or directory",
    "I0101 12:00:00.000000 1 xla_bridge.py:895] Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so: "
    "libtpu.so: cannot open shared object file: No such file or directory",
    "OSError: /opt/app/lib/libfoo.so.1: cannot open shared object file: Permission denied",
])
def test_near_misses_get_no_claim(text):
    _, codes = _answer(text)
    assert "ESYS032" not in codes


def _sig(extra: str = "") -> dict:
    return {"code": "EXX901", "id": "x", "title": "t", "category": "environment", "why": "w",
            "fix": "f", "root_cause_rank": 50, "references": ["https://example.org"],
            "patterns": ["cannot open shared object file"], **({"fallback": True} if extra else {}),
            "examples": [{"matches": True, "text": "a", "source": "https://example.org"},
                         {"matches": False, "text": "b", "source": "x"}]}


def test_a_line_a_specific_signature_reads_is_not_the_fallbacks():
    generic = parse_signature(_sig("fallback"), "rules/signatures/x/EXX901.toml")
    specific = parse_signature({**_sig(), "code": "EXX902", "root_cause_rank": 10,
                                "patterns": [r"libfoo\.so"]},
                               "rules/signatures/x/EXX902.toml")
    import io
    scanner = Scanner((generic, specific))
    one = rank(scanner.scan_stream(io.BytesIO(b"E: libfoo.so: cannot open shared object file\n")))
    assert [d.code for d in one] == ["EXX902"]  # the generic ranks higher, yet the line is not its
    two = rank(scanner.scan_stream(io.BytesIO(b"E: libbar.so: cannot open shared object file\n")))
    assert [d.code for d in two] == ["EXX901"]


def test_fallback_must_be_a_boolean():
    from envdoctor.rulefiles import RuleFileError
    with pytest.raises(RuleFileError, match="fallback"):
        parse_signature({**_sig(), "fallback": "yes"}, "rules/signatures/x/EXX901.toml")


def test_esys032_is_a_fallback_and_ranks_below_the_specific_loader_codes():
    sigs = {s.code: s for s in load_signatures()}
    fallbacks = [c for c, s in sigs.items() if s.extra.get("fallback")]
    assert "ESYS032" in fallbacks
    # the generic answers: the loader's (ESYS032) and Python's import failures (EPY008-EPY010)
    assert set(fallbacks) <= {"ESYS032", "EPY008", "EPY009", "EPY010"}, fallbacks
    for code in ("ESYS013", "ECUDNN008", "ECUDA014", "ESYS001", "EROCM027", "EPY002", "ESYS012"):
        assert sigs[code].root_cause_rank > sigs["ESYS032"].root_cause_rank, code
