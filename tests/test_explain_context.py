"""Co-occurrence contexts, facts that change the category, wrappers, and the distinct-line scan."""

from __future__ import annotations

import io
import json
import random
import re

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.scan import Scanner
from envdoctor.explain.signatures import load_signatures, parse_signature
from envdoctor.facts import Facts
from envdoctor.rulefiles import RuleFileError

DLERROR = ("2022-08-11 14:21:29.345331: W tensorflow/stream_executor/platform/default/"
           "dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: "
           "libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
           "2022-08-11 14:21:29.345439: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] "
           "Ignore above cudart dlerror if you do not have a GPU set up on your machine.\n")


def _facts(**sections) -> Facts:
    data = {"schema_version": 1}
    for name, value in sections.items():
        data[name] = {"probe": {"status": "ok"}, **value}
    return Facts.from_dict(data)


def test_tf_dlerror_with_its_own_hint_and_no_gpu_is_harmless():
    assert primary(diagnose_text(DLERROR)) is None
    assert {d.code for d in diagnose_text(DLERROR)} >= {"ETF002"}


def test_tf_dlerror_next_to_a_gpu_is_an_environment_problem():
    text = DLERROR + ("2022-08-11 14:21:30.1: I tensorflow/core/common_runtime/gpu/"
                      "gpu_device.cc:1733] Found device 0 with properties:\n")
    assert primary(diagnose_text(text)).code == "ETF002"
    gpu = _facts(nvidia={"gpus": [{"index": 0, "name": "NVIDIA A10G"}]})
    got = primary(diagnose_text(DLERROR, facts=gpu))
    assert got is not None and got.code == "ETF002" and got.category == "environment"
    assert "1 NVIDIA GPU" in got.notes[-1]


LONE_CUDART = DLERROR.splitlines()[0] + "\n"
CUDNN_TOO = LONE_CUDART + LONE_CUDART.replace("libcudart.so.11.0", "libcudnn.so.8")


def test_a_lone_cudart_dlerror_is_start_up_noise_but_a_later_library_is_not():
    """TF looks for libcudart on every machine; cuDNN/cuBLAS only once it has found a GPU."""
    assert primary(diagnose_text(LONE_CUDART)) is None
    assert primary(diagnose_text(CUDNN_TOO)).code == "ETF002"
    crash = LONE_CUDART + "Traceback (most recent call last):\nRuntimeError: boom\n"
    assert any(d.code == "ETF002" and d.category == "environment"
               for d in diagnose_text(crash))
    gpu = _facts(nvidia={"gpus": [{"index": 0, "name": "NVIDIA A10G"}]})
    got = primary(diagnose_text(LONE_CUDART, facts=gpu))
    assert got is not None and got.code == "ETF002" and got.category == "environment"


def test_a_bare_key_error_is_no_diagnosis_but_inside_a_wrapper_it_is_user_code():
    bare = "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\nKeyError: 'a'\n"
    assert "EUSER008" not in {d.code for d in diagnose_text(bare)}
    wrapped = ("KeyError: Caught KeyError in DataLoader worker process 0.\n"
               "Original Traceback (most recent call last):\n"
               "  File \"/data/ds.py\", line 9, in __getitem__\n    return self.rows[i]['image']\n"
               "KeyError: 'image'\n")
    got = primary(diagnose_text(wrapped))
    assert got.code == "EUSER008" and got.category == "user_code"
    assert any("KeyError: 'image'" in e.text for e in got.evidence)


def test_fix_follows_the_framework_that_raised():
    tf = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] failed\n"
          "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n")
    torch = "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n"
    got_tf, got_torch = primary(diagnose_text(tf)), primary(diagnose_text(torch))
    assert got_tf.code == got_torch.code == "ECUDNN008"
    assert "tensorflow[and-cuda]" in got_tf.fix and "tensorflow" not in got_torch.fix


@pytest.mark.parametrize("case,package", [("068-tf-cudnn-mismatch-dnn-not-found", "tensorflow"),
                                          ("124-jax-cudnn-too-old-gcbf", "jax[cuda12]"),
                                          ("132-torch-cudnn-mismatch-model-cuda", "torch")])
def test_a_cudnn_version_mismatch_gets_the_fix_of_the_framework_that_loaded_it(case, package):
    from pathlib import Path

    from envdoctor.rulefiles import load_toml
    text = load_toml(Path(__file__).parent / "corpus" / "explain" / f"{case}.toml")["text"]
    got = primary(diagnose_text(text))
    assert got.code == "ETF005" and package in got.fix
    others = {"tensorflow", "jax", "torch"} - {package.split("[")[0]}
    assert not any(other in got.fix.lower() for other in others), got.fix


def test_an_insufficient_driver_names_the_build_of_the_package_that_failed():
    from pathlib import Path

    from envdoctor.rulefiles import load_toml
    corpus = Path(__file__).parent / "corpus" / "explain"
    ort = primary(diagnose_text(load_toml(corpus / "023-insufficient-driver-onnxruntime.toml")["text"]))
    app = primary(diagnose_text(load_toml(corpus / "024-insufficient-driver-bladebit.toml")["text"]))
    assert ort.code == app.code == "ECUDA006"
    assert "onnxruntime-gpu" in ort.fix and "onnxruntime" not in app.fix


def test_cudnn_internal_error_alone_is_not_an_environment_claim():
    got = primary(diagnose_text("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR\n"))
    assert got.code == "ECUDNN009" and got.category != "environment"


def test_facts_turn_a_cublas_failure_into_an_environment_cause():
    text = ("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling "
            "`cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`\n")
    assert primary(diagnose_text(text)).category == "usage"
    facts = _facts(nvidia={"gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 3080",
                                     "compute_capability": "8.6"}]},
                   frameworks={"torch": {"version": "1.3.1", "cuda": "10.1"}})
    got = primary(diagnose_text(text, facts=facts))
    assert got.category == "environment" and "10.1" in got.notes[0]


def test_local_nvcc_and_torch_cuda_are_named():
    text = ("RuntimeError:\nThe detected CUDA version (13.0) mismatches the version that was used "
            "to compile\nPyTorch (12.8). Please make sure to use the same CUDA versions.\n")
    facts = _facts(cuda={"nvcc_path": "/usr/local/cuda-13.0/bin/nvcc", "nvcc_version": "13.0.88"},
                   frameworks={"torch": {"version": "2.7.0+cu128", "cuda": "12.8"}})
    got = primary(diagnose_text(text, facts=facts))
    assert got.code == "EBUILD002" and got.confidence == "high"
    assert got.notes[0] == ("Your nvcc is 13.0.88 (/usr/local/cuda-13.0/bin/nvcc); torch "
                            "2.7.0+cu128 was built with CUDA 12.8.")


def test_duplicate_gpu_is_user_code_not_an_nccl_fault():
    text = ("torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, invalid "
            "usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3\n"
            "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\nLast error:\n"
            "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000\n")
    got = primary(diagnose_text(text))
    assert got.code == "ENCCL008" and got.category == "user_code"


def _sig(**over):
    data = {"code": "ETEST001", "id": "t", "title": "t", "category": "environment",
            "patterns": ["boom happened"], "why": "w", "fix": "f",
            "references": ["https://example.org"],
            "examples": [{"matches": True, "text": "boom happened", "source": "https://e.org/1"},
                         {"matches": False, "text": "all fine", "source": "near miss"}]}
    data.update(over)
    return data


@pytest.mark.parametrize("ctx,field", [
    ({"text": ["quite rare words"], "colour": "red"}, "context[0]"),
    ({"note": "nothing to look for"}, "context[0]"),
    ({"text": ["\\d+"]}, "context[0].text"),
    ({"absent": ["fine"], "category": "bad"}, "context[0].category"),
    ({"absent": ["fine"], "drop": "yes"}, "context[0].drop"),
])
def test_bad_contexts_name_the_field(ctx, field):
    with pytest.raises(RuleFileError, match=re.escape(field)):
        parse_signature(_sig(context=[ctx]), "ETEST001.toml")


def _brute(sigs, text: str) -> dict[str, list[int]]:
    """Every line every pattern matches, the slow obvious way."""
    out: dict[str, list[int]] = {}
    for no, line in enumerate(text.split("\n"), 1):
        for sig in sigs:
            if any(p.regex.search(line) for p in sig.patterns):
                out.setdefault(sig.code, []).append(no)
    return out


@pytest.mark.parametrize("repeat", [True, False])
def test_distinct_line_scan_finds_every_hit_line(repeat):
    """Repeated and distinct filler, an error line every 97 lines: hits and line numbers are
    those of a brute-force scan, across block boundaries."""
    rng = random.Random(5)
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma"]
    lines = []
    for i in range(8_000):
        if i % 97 == 13:
            lines.append("RuntimeError: CUDA error: no kernel image is available for execution "
                         "on the device")
        elif repeat:
            lines.append(f"epoch 3 step {i} loss=0.{i % 89:02d}")
        else:
            lines.append(" ".join(rng.choice(words) + str(rng.randrange(10**6)) for _ in range(6)))
    text = "\n".join(lines)
    sigs = load_signatures()
    scanner = Scanner(sigs)
    state = scanner.scan_stream(io.BytesIO(text.encode()), block_bytes=32 << 10)
    want = _brute(sigs, text)
    assert set(state.by_code) == set(want)
    for code, lines_hit in want.items():
        sh = state.by_code[code]
        assert sh.count == len(lines_hit)
        assert [h.line for h in sh.hits] == lines_hit[:len(sh.hits)]


def test_max_mb_says_which_lines_were_read(cli, tmp_path):
    big = tmp_path / "train.log"
    big.write_text("".join(f"step {i} loss=0.{i % 97:02d}\n" for i in range(150_000)))
    r = cli("explain", "--no-facts", "--max-mb", "1", str(big))
    header = r.stdout.splitlines()[0]
    m = re.search(r"read ([\d,]+) lines \(lines ([\d,]+)-([\d,]+)\)", header)
    assert m, header
    n, first, last = (int(g.replace(",", "")) for g in m.groups())
    assert last == 150_000 and n == last - first + 1 and n < 150_000
    data = json.loads(cli("explain", "--no-facts", "--max-mb", "1", "--format", "json",
                          str(big)).stdout)
    assert data["input"]["lines"] == n and data["input"]["first_line"] == first


def test_utf16_input_reports_its_lines(cli, tmp_path):
    f = tmp_path / "ps.log"
    f.write_bytes("Traceback (most recent call last):\r\nRuntimeError: CUDA error: no kernel image"
                  " is available for execution on the device\r\n".encode("utf-16"))
    r = cli("explain", "--no-facts", str(f))
    assert "read 2 lines" in r.stdout and "ECUDA003" in r.stdout


def test_every_pattern_has_a_prefilter_literal():
    """A regex without a literal is tried on every line of every log (the slow path): a 100 MB
    log then takes seconds instead of a fraction of one."""
    scanner = Scanner(load_signatures())
    assert not scanner.unfiltered, [(scanner.signatures[e[1]].code, e[2].source)
                                    for e in scanner.unfiltered]


def test_torch_without_cuda_on_an_intel_gpu_is_the_codes_device_choice():
    # an Intel Arc / XPU machine: CUDA is asked for by the code (usage), not missing from torch
    arc = ("Intel Arc / XPU support - Torch not compiled with CUDA enabled\n"
           "ComfyUI on a server with Intel Arc GPUs; the node fails with:\n"
           "AssertionError: Torch not compiled with CUDA enabled\n")
    got = primary(diagnose_text(arc))
    assert got.code == "ETORCH006" and got.category == "usage" and "xpu" in got.fix
    # a stated +cpu torch, or an NVIDIA GPU named too: the build is the cause again
    cpu = arc + "torch==2.5.1+cpu\n"
    assert primary(diagnose_text(cpu)).category == "environment"
    both = arc + "GPU 0: NVIDIA GeForce RTX 3060\n"
    assert primary(diagnose_text(both)).category == "environment"
    plain = "AssertionError: Torch not compiled with CUDA enabled\n"
    assert primary(diagnose_text(plain)).category == "environment"


def test_torch_not_compiled_with_cuda_where_the_text_says_the_code_asks_for_the_gpu_is_user_code():
    # liun-online/HeCo#15: a `.cuda()` that commenting out makes it run
    heco = ("If I am not using gpu then line 84 of sc_encoder.py causes an assertion error: Torch not "
            "compiled with CUDA enabled.\nI can fix this by commenting out the characters \u201c.cuda()\u201d "
            "in line 84.\n")
    got = primary(diagnose_text(heco))
    assert got.code == "ETORCH006" and got.category == "user_code" and ".to(device)" in got.fix
    # marco-rudolph/AST#4 (the maintainer's answer) and xinntao/ESRGAN#88: the code's device changed
    ast = ("AssertionError: Torch not compiled with CUDA enabled\nThere were \".cuda()\"s which I changed "
           "to \".to(c.devices)\"s in the latest commit.\n")
    assert primary(diagnose_text(ast)).category == "user_code"
    esrgan = ("AssertionError: Torch not compiled with CUDA enabled\nYou need to change these lines: from "
              "\"cuda\" to \"cpu\"\n")
    assert primary(diagnose_text(esrgan)).category == "user_code"
    # an NVIDIA GPU named too: the CPU-only build is the cause again; a CPU-only user alone says nothing
    gpu = heco + "GPU 0: NVIDIA GeForce RTX 3060\n"
    assert primary(diagnose_text(gpu)).category == "environment"
    alone = "AssertionError: Torch not compiled with CUDA enabled\n(I am using CPU only)\n"
    assert primary(diagnose_text(alone)).category == "environment"
    # a default set to the CPU that still fails says nothing of the code's own request
    cpu_default = ("AssertionError: Torch not compiled with CUDA enabled\nuse_gpu defaults to False and "
                   "device is set to cpu in config.py, but the error remains.\n")
    assert primary(diagnose_text(cpu_default)).category == "environment"
