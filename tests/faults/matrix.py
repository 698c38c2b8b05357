"""Fault matrix for envdoctor: inject one fault per run, record what the CLI did.

Usage (from the repository root):
  python tests/faults/matrix.py --python /path/to/venv/bin/python --out results.json
      [--root SRC] [--only ID,...] [--table]
``--python`` is the interpreter of a clean install (default: this one); ``--root`` runs the
source tree SRC instead of the installed envdoctor. tests/faults/test_faults.py runs the same
faults under pytest.

Each fault runs `python -m envdoctor ...` (the python of a clean install) in a fresh temp dir
with its own HOME, a marker in the environment (to find processes left behind) and a hard
wall-clock cap. Recorded: exit code, seconds, traceback seen, processes left behind, peak RSS of
the envdoctor process, and whether the expectation held.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
# faults send SIGHUP, SIGINT and SIGQUIT and expect 129/130/131: a matrix started under
# ``nohup`` or in the background hands them down ignored, and envdoctor leaves an ignored one
# ignored (terminate.STOP); the envdoctor a fault starts gets the defaults
for _name in ("SIGHUP", "SIGINT", "SIGQUIT"):
    if signal.getsignal(getattr(signal, _name)) is signal.SIG_IGN:
        signal.signal(getattr(signal, _name), signal.default_int_handler
                      if _name == "SIGINT" else signal.SIG_DFL)
ROOT = ""
CAP = 60.0  # hard wall-clock cap per fault (seconds)
SECRET_TOKENS = ["hf_PLANTEDabcdefghijklmnopqrstuv", "plantedAuthTok3n", "PLANTEDsig0123456789abcdef",
                 "plantedKeyValue42", "PLANTEDbearerTOKENvalue123", "PLANTEDpemBODYline"]

TRACE = "Traceback (most recent call last)"


def sh(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def fake_nvml(d: Path, mode: str) -> Path:
    lib = d / "nvml"
    lib.mkdir(parents=True, exist_ok=True)
    subprocess.run(["gcc", "-shared", "-fPIC", f"-DMODE_{mode.upper()}", "-o",
                    str(lib / "libnvidia-ml.so.1"), str(HERE / "fake_nvml.c")], check=True)
    (lib / "libnvidia-ml.so").symlink_to("libnvidia-ml.so.1")
    return lib


def json_facts(out: str) -> dict:
    try:
        return json.loads(out)
    except ValueError:
        return {}


def nvidia_status(out: str) -> str:
    d = json_facts(out)
    return (((d.get("facts") or d).get("nvidia") or {}).get("probe") or {}).get("status", "?")


# --------------------------------------------------------------------------- the faults
# Each builder gets a fresh dir and returns a dict:
#   args: envdoctor argv, env: overrides (None deletes), stdout: pipe|closed|full|head,
#   stdin: path, rc: accepted exit codes, bound: seconds, check(out, err, d) -> problem or "",
#   cmd: optional full argv replacing `python -m envdoctor args`
FAULTS: dict[str, tuple[str, str, object]] = {}


def fault(fid: str, category: str, title: str):
    def deco(fn):
        FAULTS[fid] = (category, title, fn)
        return fn
    return deco


def smi(d: Path, body: str) -> dict:
    sh(d / "bin/nvidia-smi", body)
    return {"PATH": f"{d}/bin:" + os.environ["PATH"]}


def want_nvidia_failed(out, err, d):
    st = nvidia_status(out)
    return "" if st == "error" else f"nvidia probe status {st!r} (want a failed probe)"


@fault("T01", "fake tool", "nvidia-smi hangs (sleep 1000)")
def _(d):
    return dict(args=["check", "--static", "--format", "json"], env=smi(d, "exec sleep 1000"),
                rc={0, 1}, bound=25, check=want_nvidia_failed)


@fault("T02", "fake tool", "nvidia-smi segfaults")
def _(d):
    return dict(args=["check", "--static", "--format", "json"], env=smi(d, "kill -SEGV $$"),
                rc={0, 1}, bound=10, check=want_nvidia_failed)


@fault("T03", "fake tool", "nvidia-smi prints 64 KB of binary garbage")
def _(d):
    return dict(args=["check", "--static", "--format", "json"],
                env=smi(d, "head -c 65536 /dev/urandom"), rc={0, 1}, bound=10,
                check=want_nvidia_failed)


@fault("T04", "fake tool", "nvidia-smi table row of 10 MB (name + spaces)")
def _(d):
    gen = ("python3 -c \"import sys; sys.stdout.write('|   0  NVIDIA H100' + ' '*10_000_000 "
           "+ '|\\n')\"")
    return dict(args=["check", "--static", "--format", "json"], env=smi(d, gen), rc={0, 1},
                bound=10, check=want_nvidia_failed)


@fault("T05", "fake tool", "nvidia-smi 40 KB whitespace row")
def _(d):
    gen = "python3 -c \"import sys; sys.stdout.write('|' + ' '*40_000 + '|\\n')\""
    return dict(args=["check", "--static", "--format", "json"], env=smi(d, gen), rc={0, 1},
                bound=10, check=want_nvidia_failed)


@fault("T06", "fake tool", "nvidia-smi prints 300 MB to stdout")
def _(d):
    return dict(args=["check", "--static", "--format", "json"],
                env=smi(d, "head -c 300000000 /dev/zero | tr '\\0' 'x'"), rc={0, 1}, bound=15,
                rss_mb=200, check=want_nvidia_failed)


@fault("T07", "orphan", "nvidia-smi field-retry loop outlives the probe deadline")
def _(d):
    body = ('case "$*" in *--query-gpu*) sleep 9; '
            'echo \'Field "compute_cap" is not a valid field to query.\'; exit 2;; esac; '
            'exec sleep 1000')
    return dict(args=["check", "--static", "--format", "json"], env=smi(d, body), rc={0, 1},
                bound=30, check=want_nvidia_failed)


@fault("T08", "fake tool", "nvidia-smi: 'No devices were found' (exit 6)")
def _(d):
    return dict(args=["check", "--static", "--format", "json"],
                env=smi(d, "echo 'No devices were found'; exit 6"), rc={0, 1}, bound=10,
                check=want_nvidia_failed)


@fault("T09", "fake tool", "nvidia-smi forks a grandchild that escapes its session, then hangs")
def _(d):
    body = "setsid sleep 1000 & exec sleep 1000"
    return dict(args=["check", "--static", "--format", "json"], env=smi(d, body), rc={0, 1},
                bound=25, check=want_nvidia_failed)


@fault("T10", "fake tool", "nvcc hangs")
def _(d):
    sh(d / "bin/nvcc", "exec sleep 1000")
    return dict(args=["check", "--static"], env={"PATH": f"{d}/bin:" + os.environ["PATH"]},
                rc={0, 1}, bound=25)


@fault("T11", "fake tool", "nvcc prints 50 MB single line")
def _(d):
    sh(d / "bin/nvcc", "head -c 50000000 /dev/zero | tr '\\0' 'A'")
    return dict(args=["check", "--static"], env={"PATH": f"{d}/bin:" + os.environ["PATH"]},
                rc={0, 1}, bound=5)


@fault("T12", "fake tool", "ldconfig hangs")
def _(d):
    sh(d / "bin/ldconfig", "exec sleep 1000")
    return dict(args=["check", "--static"], env={"PATH": f"{d}/bin:" + os.environ["PATH"]},
                rc={0, 1}, bound=25)


# --------------------------------------------------------------------------- NVML
@fault("N01", "nvml", "libnvidia-ml.so.1 whose nvmlInit segfaults")
def _(d):
    lib = fake_nvml(d, "crash")
    return dict(args=["check", "--static", "--format", "json"],
                env={"LD_LIBRARY_PATH": str(lib)}, rc={0, 1}, bound=10, check=want_nvidia_failed)


@fault("N02", "nvml", "libnvidia-ml.so.1 whose nvmlInit hangs")
def _(d):
    lib = fake_nvml(d, "hang")
    return dict(args=["check", "--static", "--format", "json"],
                env={"LD_LIBRARY_PATH": str(lib)}, rc={0, 1}, bound=25, check=want_nvidia_failed)


@fault("N03", "nvml", "libnvidia-ml.so.1 answering garbage")
def _(d):
    lib = fake_nvml(d, "garbage")
    return dict(args=["check", "--static", "--format", "json"],
                env={"LD_LIBRARY_PATH": str(lib)}, rc={0, 1}, bound=10, check=want_nvidia_failed)


@fault("N04", "nvml", "libnvidia-ml.so.1 is not an ELF file")
def _(d):
    (d / "nvml").mkdir()
    (d / "nvml/libnvidia-ml.so.1").write_bytes(b"\x7fELFgarbage" * 100)
    return dict(args=["check", "--static", "--format", "json"],
                env={"LD_LIBRARY_PATH": str(d / "nvml")}, rc={0, 1}, bound=10,
                check=want_nvidia_failed)


# --------------------------------------------------------------------------- shadowed packages
def shadow(d: Path, body: str) -> dict:
    """A torch on the user's PYTHONPATH that breaks, in front of an envdoctor installed the
    way pip does it (its folder also holding a working torch): workers must import the
    user's torch, as ``python -c "import torch"`` would."""
    pkg = d / "shadow/torch"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(body)
    env = {"PYTHONPATH": str(d / "shadow")}
    if ROOT:  # a source tree: lay it out like site-packages, next to the real torch
        import importlib.util
        site_dir = d / "site"
        shutil.copytree(Path(ROOT) / "envdoctor", site_dir / "envdoctor",
                        ignore=shutil.ignore_patterns("__pycache__"))
        spec = importlib.util.find_spec("torch")
        if spec and spec.submodule_search_locations:
            (site_dir / "torch").symlink_to(list(spec.submodule_search_locations)[0])
        env["PYTHONPATH"] += f":{site_dir}"
        env["ENVDOCTOR_RULES"] = str(Path(ROOT) / "rules")
        env["EDFAULT_NO_ROOT"] = "1"
    return env


def want_torch_failed(out, err, d):
    data = json_facts(out)
    codes = {f.get("code") for f in data.get("findings", [])}
    return "" if codes & {"LIVE005", "LIVE006"} else \
        f"no worker-failure finding (codes {sorted(c for c in codes if c)})"


LIVE = ["check", "--framework", "torch", "--no-smoke", "--timeout", "8", "--format", "json"]


@fault("S01", "shadowed package", "torch on PYTHONPATH segfaults at import")
def _(d):
    return dict(args=LIVE, env=shadow(d, "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"),
                rc={1}, bound=30, check=want_torch_failed)


@fault("S02", "shadowed package", "torch on PYTHONPATH hangs at import")
def _(d):
    return dict(args=LIVE, env=shadow(d, "import time\ntime.sleep(1000)\n"), rc={1}, bound=30,
                check=want_torch_failed)


@fault("S03", "shadowed package", "torch on PYTHONPATH raises ImportError")
def _(d):
    return dict(args=LIVE, env=shadow(d, "raise ImportError('planted shadow torch')\n"), rc={1},
                bound=30, check=want_torch_failed)


@fault("S04", "shadowed package", "torch on PYTHONPATH prints 5 MB of JSON to stdout, then fails")
def _(d):
    body = ("import sys\nsys.stdout.write('{\"protocol\": 1, \"x\": 1}' * 150000)\n"
            "raise OSError('libtorch_cuda.so: cannot open shared object file')\n")
    return dict(args=LIVE, env=shadow(d, body), rc={1}, bound=30, check=want_torch_failed)


@fault("S05", "shadowed package", "torch on PYTHONPATH exits silently (os._exit(0))")
def _(d):
    return dict(args=LIVE, env=shadow(d, "import os\nos._exit(0)\n"), rc={1}, bound=30,
                check=want_torch_failed)


@fault("S06", "shadowed package", "torch on PYTHONPATH starts a child, then hangs")
def _(d):
    return dict(args=LIVE, env=shadow(d, "import subprocess, time\nsubprocess.Popen(['sleep', '1000'])"
                                      "\ntime.sleep(1000)\n"), rc={1}, bound=30,
                check=want_torch_failed)


# --------------------------------------------------------------------------- dist-info / versions
def site(d: Path) -> Path:
    p = d / "sp"
    p.mkdir(parents=True, exist_ok=True)
    return p


@fault("D01", "dist-info", "METADATA is 64 KB of binary garbage")
def _(d):
    di = site(d) / "torch-9.9.dist-info"
    di.mkdir()
    (di / "METADATA").write_bytes(os.urandom(65536))
    return dict(args=["check", "--static"], env={"PYTHONPATH": str(site(d))}, rc={0, 1}, bound=5)


@fault("D02", "dist-info", "METADATA is a FIFO")
def _(d):
    di = site(d) / "torch-9.9.dist-info"
    di.mkdir()
    os.mkfifo(di / "METADATA")
    return dict(args=["check", "--static"], env={"PYTHONPATH": str(site(d))}, rc={0, 1}, bound=5)


@fault("D03", "dist-info", "METADATA is 300 MB (sparse)")
def _(d):
    di = site(d) / "numpy-9.9.dist-info"
    di.mkdir()
    with open(di / "METADATA", "wb") as fh:
        fh.write(b"Metadata-Version: 2.1\nName: numpy\nVersion: 9.9\n")
        fh.truncate(300_000_000)
    return dict(args=["check", "--static"], env={"PYTHONPATH": str(site(d))}, rc={0, 1}, bound=5,
                rss_mb=200)


@fault("D04", "dist-info", "METADATA is a directory; RECORD a symlink loop")
def _(d):
    di = site(d) / "torch-9.9.dist-info"
    (di / "METADATA").mkdir(parents=True)
    (di / "RECORD").symlink_to(di / "RECORD")
    return dict(args=["check", "--static"], env={"PYTHONPATH": str(site(d))}, rc={0, 1}, bound=5)


@fault("D05", "dist-info", "torch/version.py is a FIFO (shadow torch)")
def _(d):
    pkg = site(d) / "torch"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    os.mkfifo(pkg / "version.py")
    return dict(args=["check", "--static"], env={"PYTHONPATH": str(site(d))}, rc={0, 1}, bound=5)


@fault("D06", "dist-info", "torch/version.py: 20 MB one-line expression")
def _(d):
    pkg = site(d) / "torch"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "version.py").write_text("__version__ = " + "(" * 100000 + "1" + ")" * 100000 + "\n")
    return dict(args=["check", "--static"], env={"PYTHONPATH": str(site(d))}, rc={0, 1}, bound=5)


@fault("D07", "version file", "CUDA_HOME/version.json is a FIFO")
def _(d):
    cuda = d / "cuda"
    cuda.mkdir()
    os.mkfifo(cuda / "version.json")
    return dict(args=["check", "--static"], env={"CUDA_HOME": str(cuda)}, rc={0, 1}, bound=5)


@fault("D08", "version file", "CUDA_HOME/version.json deeply nested JSON")
def _(d):
    cuda = d / "cuda"
    cuda.mkdir()
    (cuda / "version.json").write_text("[" * 200000)
    return dict(args=["check", "--static"], env={"CUDA_HOME": str(cuda)}, rc={0, 1}, bound=5)


# --------------------------------------------------------------------------- env values
@fault("E01", "env", "LD_LIBRARY_PATH with 6000 entries (~100 KB)")
def _(d):
    return dict(args=["check", "--static"],
                env={"LD_LIBRARY_PATH": ":".join(f"/nonexistent/{i}" for i in range(6000))},
                rc={0, 1}, bound=5)


@fault("E02", "env", "a variable with invalid UTF-8 bytes (NCCL_DEBUG=\\xff\\xfe)")
def _(d):
    return dict(args=["check", "--static", "--format", "json"],
                env={"NCCL_DEBUG": "\udcff\udcfeINFO"}, rc={0, 1}, bound=5)


@fault("E03", "env", "CUDA_VISIBLE_DEVICES of 120 KB")
def _(d):
    return dict(args=["check", "--static"], env={"CUDA_VISIBLE_DEVICES": "0," * 60000},
                rc={0, 1}, bound=5)


@fault("E04", "env", "HOME unset")
def _(d):
    return dict(args=["check", "--static"], env={"HOME": None}, rc={0, 1}, bound=5)


@fault("E05", "env", "CUDA_HOME=/dev/zero")
def _(d):
    return dict(args=["check", "--static"], env={"CUDA_HOME": "/dev/zero"}, rc={0, 1}, bound=5)


# --------------------------------------------------------------------------- unwritable dirs
@fault("W01", "unwritable", "HOME is a regular file (no cache or state dir can be made)")
def _(d):
    home = d / "homefile"
    home.write_text("not a folder")
    return dict(args=["check", "--static"], env={"HOME": str(home), "XDG_CACHE_HOME": None},
                rc={0, 1}, bound=5)


@fault("W04", "unwritable", "internal error with HOME a regular file (crash log cannot be made)")
def _(d):
    home = d / "homefile"
    home.write_text("not a folder")
    return dict(cmd=["-c", INJECT, "check", "--static"],
                env={"HOME": str(home), "XDG_STATE_HOME": None}, rc={3}, bound=5,
                check=lambda o, e, d: "" if "internal error" in e and "crash log" in e else
                "no one-line internal error naming why there is no crash log")


NO_TEMP = ("import sys, tempfile\ntempfile.tempdir = '/nonexistent/envdoctor-no-temp'\n"
           "sys.argv = ['envdoctor'] + sys.argv[1:]\nfrom envdoctor.cli import run\nrun()\n")


@fault("W05", "unwritable", "no usable temp dir, live check (workers need a scratch folder)")
def _(d):
    return dict(cmd=["-c", NO_TEMP, "check", "--framework", "torch", "--no-smoke", "--timeout",
                     "20"], env={}, rc={0, 1}, bound=40)


@fault("W06", "unwritable", "corrupt rule cache file")
def _(d):
    cache = d / "cache"
    cache.mkdir()
    for i in range(3):
        (cache / f"rules-{i}.json").write_bytes(b"\xff\x00{[garbage")
    return dict(args=["check", "--static"], env={"ENVDOCTOR_CACHE_DIR": str(cache)},
                rc={0, 1}, bound=5)


@fault("W02", "unwritable", "XDG_CACHE_HOME is a file")
def _(d):
    (d / "cachefile").write_text("x")
    return dict(args=["check", "--static"], env={"XDG_CACHE_HOME": str(d / "cachefile")},
                rc={0, 1}, bound=5)


INJECT = ("import sys\nsys.argv=['envdoctor']+sys.argv[1:]\nimport envdoctor.pipeline as p\n"
          "def boom(*a, **k):\n    raise RuntimeError('injected internal error')\n"
          "p.build = boom\np.diagnose = boom\nfrom envdoctor.cli import run\nrun()\n")


def crash_check(out, err, d):
    if "internal error" not in err:
        return "no 'internal error' line"
    m = re.search(r"details in ([^)\s]+)", err)
    if not m or not os.path.exists(m.group(1)):
        return "no crash log named"
    path = m.group(1)
    mode = stat.S_IMODE(os.lstat(path).st_mode)
    text = Path(path).read_text(errors="replace")
    probs = []
    if mode & 0o077:
        probs.append(f"crash log mode {oct(mode)}")
    if os.path.dirname(path) in (tempfile.gettempdir(), str(d), "/tmp", "/var/tmp"):
        probs.append(f"crash log in temp dir {path}")
    if SECRET_TOKENS[0] in text:
        probs.append("argv secret in crash log")
    return "; ".join(probs)


@fault("W03", "unwritable", "internal error with no usable temp dir (TMPDIR=/nonexistent)")
def _(d):
    return dict(cmd=["-c", INJECT, "check", "--static"],
                env={"TMPDIR": "/nonexistent", "TMP": None, "TEMP": None},
                rc={3}, bound=5, check=lambda o, e, d: "" if "internal error" in e else
                "no one-line internal error")


@fault("C01", "crash log", "internal error: crash log name, mode, place, argv redaction")
def _(d):
    return dict(cmd=["-c", INJECT, "check", "--static", "-o", f"{d}/out-{SECRET_TOKENS[0]}.txt"],
                env={}, rc={3}, bound=5, check=crash_check)


# --------------------------------------------------------------------------- encodings
def no_mojibake(out, err, d):
    return ""


@fault("X01", "encoding", "PYTHONIOENCODING=latin-1, text output")
def _(d):
    return dict(args=["check", "--static", "-v"], env={"PYTHONIOENCODING": "latin-1"}, rc={0},
                bound=5)


@fault("X02", "encoding", "PYTHONIOENCODING=cp1252, text output")
def _(d):
    return dict(args=["check", "--static", "-v"], env={"PYTHONIOENCODING": "cp1252"}, rc={0},
                bound=5)


@fault("X03", "encoding", "PYTHONIOENCODING=ascii, explain on a traceback")
def _(d):
    (d / "tb.txt").write_text("Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                              "RuntimeError: CUDA error: no kernel image is available for "
                              "execution on the device\n")
    return dict(args=["explain", str(d / "tb.txt"), "--no-facts"],
                env={"PYTHONIOENCODING": "ascii"}, rc={0}, bound=5)


@fault("X04", "encoding", "LC_ALL=C, PYTHONIOENCODING=ascii, report markdown")
def _(d):
    return dict(args=["report", "--static"], env={"PYTHONIOENCODING": "ascii", "LC_ALL": "C"},
                rc={0}, bound=10)


# --------------------------------------------------------------------------- stdout
@fault("O01", "stdout", "stdout closed (check >&-)")
def _(d):
    return dict(args=["check", "--static"], stdout="closed", rc={0, 2, 3, 74}, bound=5,
                check=lambda o, e, d: "")


@fault("O02", "stdout", "stdout is /dev/full")
def _(d):
    return dict(args=["check", "--static"], stdout="full", rc={0, 2, 74}, bound=5,
                check=lambda o, e, d: "" if "envdoctor:" in e else "no one-line message")


@fault("O03", "stdout", "stdout pipe closed early (| head -c 10)")
def _(d):
    return dict(args=["check", "--static", "-v"], stdout="head", rc={0, 141}, bound=5)


@fault("O04", "stdout", "facts to /dev/full")
def _(d):
    return dict(args=["facts"], stdout="full", rc={2, 74}, bound=5,
                check=lambda o, e, d: "" if "envdoctor:" in e else "no one-line message")


# --------------------------------------------------------------------------- JSON inputs
def deep(d: Path) -> Path:
    p = d / "deep.json"
    p.write_text("[" * 200000)
    return p


ONE_LINE_2 = {2}


def one_line(out, err, d):
    lines = [x for x in err.splitlines() if x.strip()]
    return "" if len(lines) == 1 else f"{len(lines)} stderr lines"


@fault("J01", "json input", "check --facts '['*200000")
def _(d):
    return dict(args=["check", "--facts", str(deep(d))], rc=ONE_LINE_2, bound=5, check=one_line)


@fault("J02", "json input", "diff deep.json deep.json")
def _(d):
    p = deep(d)
    return dict(args=["diff", str(p), str(p)], rc=ONE_LINE_2, bound=5, check=one_line)


@fault("J03", "json input", "report --facts '['*200000")
def _(d):
    return dict(args=["report", "--facts", str(deep(d))], rc=ONE_LINE_2, bound=5, check=one_line)


@fault("J04", "json input", "explain --facts '['*200000")
def _(d):
    (d / "e.txt").write_text("RuntimeError: CUDA error: out of memory\n")
    return dict(args=["explain", str(d / "e.txt"), "--facts", str(deep(d))], rc=ONE_LINE_2,
                bound=5, check=one_line)


@fault("J05", "json input", "check --facts 400 MB JSON (one huge string)")
def _(d):
    p = d / "big.json"
    with open(p, "w") as fh:
        fh.write('{"host": {"os": "')
        for _ in range(400):
            fh.write("a" * 1_000_000)
        fh.write('"}}')
    return dict(args=["check", "--facts", str(p)], rc=ONE_LINE_2, bound=5, rss_mb=200,
                check=one_line)


@fault("J06", "json input", "check --facts /dev/zero")
def _(d):
    return dict(args=["check", "--facts", "/dev/zero"], rc=ONE_LINE_2, bound=5, rss_mb=200,
                check=one_line)


@fault("J07", "json input", "check --facts FIFO with no writer")
def _(d):
    os.mkfifo(d / "fifo")
    return dict(args=["check", "--facts", str(d / "fifo")], rc=ONE_LINE_2, bound=15,
                check=one_line)


@fault("J08", "json input", "diff with 50 MB single-line file")
def _(d):
    p = d / "line.json"
    p.write_text("x" * 50_000_000)
    return dict(args=["diff", str(p), str(p)], rc=ONE_LINE_2, bound=2, check=one_line)


@fault("J09", "json input", "--policy with 100 000-deep TOML array")
def _(d):
    (d / "p.toml").write_text("a = " + "[" * 100000 + "]" * 100000 + "\n")
    return dict(args=["check", "--static", "--policy", str(d / "p.toml")], rc=ONE_LINE_2,
                bound=5, check=one_line)


# --------------------------------------------------------------------------- --from / explain
@fault("F01", "pasted input", "check --from /dev/zero")
def _(d):
    return dict(args=["check", "--from", "/dev/zero"], rc=ONE_LINE_2, bound=5, rss_mb=200,
                check=one_line)


@fault("F02", "pasted input", "check --from FIFO with no writer")
def _(d):
    os.mkfifo(d / "fifo")
    return dict(args=["check", "--from", str(d / "fifo")], rc=ONE_LINE_2, bound=15, check=one_line)


@functools.lru_cache(maxsize=4)
def warm_rule_cache(root: str = "") -> dict[str, str]:
    """XDG_CACHE_HOME / XDG_STATE_HOME of one rule cache per source tree, built here, before the
    timed run: a fault's bound is its own cost, not explain's first anchor build (~6 s of CPU on
    a cold cache, which a fresh HOME would pay inside the bound; matrix 4 shares it the same way)."""
    import hashlib
    tag = hashlib.sha1((root or str(Path(__file__).resolve().parents[2])).encode()).hexdigest()
    base = Path(tempfile.gettempdir()) / f"edfault1-cache-{tag[:12]}"
    env = {"XDG_CACHE_HOME": str(base / "cache"), "XDG_STATE_HOME": str(base / "state")}
    run_env = {**os.environ, **env, **({"PYTHONPATH": root} if root else {})}
    # an input past explain's CHOOSE_BYTES: the anchors a large input is scanned with are
    # chosen and cached here too, or the first large fault (F07's 50 MB line) pays for them
    big = b"RuntimeError: CUDA error: out of memory\n" + b"".join(
        b"step %d loss %d\n" % (i, i * 7) for i in range(120_000))
    subprocess.run([sys.executable, "-m", "envdoctor", "explain"], env=run_env,
                   input=big, capture_output=True, timeout=600, check=False)
    return env


@fault("F03", "pasted input", "check --from 50 MB single line")
def _(d):
    (d / "line.txt").write_text("torch-2.1.0" * 4_600_000)
    return dict(args=["check", "--from", str(d / "line.txt")], rc={0, 1, 2}, bound=2)


NVIDIA_SMI_REPORT = """Tue Jan  9 10:00:00 2024
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |                    0 |
| N/A   34C    P0    41W / 300W |      0MiB / 16160MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""


@fault("F04", "pasted input", "check --from 1 GB log with an nvidia-smi report at the end")
def _(d):
    p = d / "big.log"
    line = ("2024-01-09 10:00:00 INFO step 1234 loss 0.123 lr 1e-4 " * 3 + "\n").encode()
    block = line * (1_048_576 // len(line))
    with open(p, "wb") as fh:
        for _ in range(1024):
            fh.write(block)
        fh.write(NVIDIA_SMI_REPORT.encode())
    return dict(args=["check", "--from", str(p), "--format", "json"], rc={0, 1}, bound=60,
                rss_mb=200, check=lambda o, e, d: "" if "470.82.01" in o else
                "the report at the end was not found")


@fault("F11", "pasted input", "check --from 300 MB log with an nvidia-smi report at the end")
def _(d):
    p = d / "big.log"
    line = ("2024-01-09 10:00:00 INFO step 1234 loss 0.123 lr 1e-4 " * 3 + "\n").encode()
    block = line * (1_048_576 // len(line))
    with open(p, "wb") as fh:
        for _ in range(300):
            fh.write(block)
        fh.write(NVIDIA_SMI_REPORT.encode())
    return dict(args=["check", "--from", str(p), "--format", "json"], rc={0, 1}, bound=30,
                rss_mb=200, check=lambda o, e, d: "" if "470.82.01" in o else
                "the report at the end was not found")


@fault("F05", "pasted input", "check --from 3 MB log, report after 2 MB")
def _(d):
    p = d / "mid.log"
    p.write_bytes(b"noise line without any report in it at all\n" * 70000 +
                  NVIDIA_SMI_REPORT.encode())
    return dict(args=["check", "--from", str(p), "--format", "json"], rc={0, 1}, bound=5,
                check=lambda o, e, d: "" if "470.82.01" in o else
                "the report after 2 MB was not found")


@fault("F06", "pasted input", "check --from: 40 KB token beside an nvcc report")
def _(d):
    p = d / "nvcc.txt"
    p.write_text("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.1, "
                 "V12.1.105\n" + "a" * 40000 + "\n")
    return dict(args=["check", "--from", str(p)], rc={0, 1}, bound=2)


@fault("F07", "pasted input", "explain on a 50 MB single line")
def _(d):
    (d / "line.txt").write_text("RuntimeError " * 3_900_000)
    return dict(args=["explain", str(d / "line.txt"), "--no-facts"], rc={0}, bound=2)


@fault("F08", "pasted input", "explain on /dev/zero")
def _(d):
    return dict(args=["explain", "/dev/zero", "--no-facts"], rc={2}, bound=5, rss_mb=200,
                check=one_line)


@fault("F09", "pasted input", "explain on a FIFO with no writer")
def _(d):
    os.mkfifo(d / "fifo")
    return dict(args=["explain", str(d / "fifo"), "--no-facts"], rc={2}, bound=15, check=one_line)


@fault("F10", "pasted input", "check --from 50 MB of whitespace")
def _(d):
    (d / "ws.txt").write_text(" " * 50_000_000)
    return dict(args=["check", "--from", str(d / "ws.txt")], rc={2}, bound=2)


# --------------------------------------------------------------------------- rules (core)
@fault("R01", "rules", "ENVDOCTOR_RULES=/nonexistent, --expect gpu")
def _(d):
    return dict(args=["check", "--static", "--expect", "gpu"],
                env={"ENVDOCTOR_RULES": "/nonexistent"}, rc={2}, bound=5, check=one_line)


@fault("R02", "rules", "ENVDOCTOR_RULES=empty folder")
def _(d):
    (d / "rules").mkdir()
    return dict(args=["check", "--static"], env={"ENVDOCTOR_RULES": str(d / "rules")}, rc={2},
                bound=5, check=one_line)


# --------------------------------------------------------------------------- output paths
def not_run(out, err, d):
    return "the probes ran before the error" if (d / "ran").exists() else ""


@fault("P01", "output paths", "-o X --report json:X collide")
def _(d):
    env = smi(d, f"touch {d}/ran; exit 1")
    return dict(args=["check", "--static", "-o", str(d / "x"), "--report", f"json:{d}/x"],
                env=env, rc={2}, bound=5, check=lambda o, e, dd: not_run(o, e, dd) or
                one_line(o, e, dd))


@fault("P02", "output paths", "--report into a missing folder")
def _(d):
    env = smi(d, f"touch {d}/ran; exit 1")
    return dict(args=["check", "--static", "--report", "json:/nonexistent/dir/x.json"], env=env,
                rc={2}, bound=5, check=lambda o, e, dd: not_run(o, e, dd) or one_line(o, e, dd))


@fault("P03", "output paths", "-o into a missing folder")
def _(d):
    env = smi(d, f"touch {d}/ran; exit 1")
    return dict(args=["check", "--static", "-o", "/nonexistent/dir/x.txt"], env=env,
                rc={2}, bound=5, check=lambda o, e, dd: not_run(o, e, dd) or one_line(o, e, dd))


# --------------------------------------------------------------------------- secrets
def no_secret(out, err, d):
    text = out + err
    for f in d.glob("out*"):
        text += f.read_text(errors="replace")
    leaked = [s for s in SECRET_TOKENS if s in text]
    return f"leaked {leaked}" if leaked else ""


SECRET_ENV = {
    "TF_CONFIG": json.dumps({"cluster": {"worker": ["w0:2222"]}, "auth_token": SECRET_TOKENS[1]}),
    "NCCL_TOPO_FILE": "https://bucket.s3.amazonaws.com/topo.xml?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                      f"&X-Amz-Signature={SECRET_TOKENS[2]}",
    "TF_XLA_FLAGS": json.dumps({"private_key": SECRET_TOKENS[3]}),
}


@fault("L01", "secrets", "check --format json: TF_CONFIG auth_token, presigned URL, private_key")
def _(d):
    return dict(args=["check", "--static", "--format", "json"], env=SECRET_ENV, rc={0, 1},
                bound=5, check=no_secret)


@fault("L02", "secrets", "report (markdown) with the same env")
def _(d):
    return dict(args=["report", "--static"], env=SECRET_ENV, rc={0}, bound=10, check=no_secret)


@fault("L03", "secrets", "facts with the same env (default)")
def _(d):
    return dict(args=["facts"], env=SECRET_ENV, rc={0}, bound=10, check=no_secret)


@fault("L04", "secrets", "explain: Authorization: Bearer and key= on a quoted error line")
def _(d):
    (d / "e.txt").write_text(
        "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
        f"OSError: 401 Client Error for url https://huggingface.co/api?key={SECRET_TOKENS[3]} "
        f"(headers: {{'Authorization': 'Bearer {SECRET_TOKENS[4]}'}})\n"
        "RuntimeError: CUDA error: out of memory (upload to https://hub.example.com/u?key="
        f"{SECRET_TOKENS[3]} with Authorization: Bearer {SECRET_TOKENS[4]})\n")
    return dict(args=["explain", str(d / "e.txt"), "--no-facts", "--format", "markdown"],
                rc={0}, bound=5, check=no_secret)


@fault("L05", "secrets", "diff of two facts files with secrets in env values")
def _(d):
    facts = {"schema_version": 1, "env": {"vars": SECRET_ENV}}
    (d / "a.json").write_text(json.dumps(facts))
    (d / "b.json").write_text(json.dumps({"schema_version": 1, "env": {"vars": {}}}))
    return dict(args=["diff", str(d / "a.json"), str(d / "b.json"), "--format", "json"],
                rc={0}, bound=5, check=no_secret)


@fault("L06", "secrets", "env allowlist: TF_VAR_db_password / TF_CLI_CONFIG_FILE collected")
def _(d):
    def chk(out, err, d):
        return "Terraform variables collected" if ("TF_VAR_" in out or "TF_CLI_CONFIG_FILE" in out) \
            else ""
    return dict(args=["check", "--static", "--format", "json"],
                env={"TF_VAR_region": "eu-west-1", "TF_CLI_CONFIG_FILE": "/home/x/.terraformrc"},
                rc={0, 1}, bound=5, check=chk)


@fault("L07", "secrets", "check --from: PEM block in a pasted report")
def _(d):
    (d / "r.txt").write_text(NVIDIA_SMI_REPORT + "-----BEGIN RSA PRIVATE KEY-----\n"
                             f"{SECRET_TOKENS[5]}\n-----END RSA PRIVATE KEY-----\n"
                             f"NCCL_SOCKET_IFNAME=eth0 NCCL_IB_HCA=mlx5 HF_TOKEN={SECRET_TOKENS[0]}\n")
    return dict(args=["check", "--from", str(d / "r.txt"), "--format", "json"], rc={0, 1},
                bound=5, check=no_secret)


# --------------------------------------------------------------------------- runner
def orphans(marker: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                env = fh.read()
        except OSError:
            continue
        if marker.encode() in env:
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                cmd = "?"
            found.append(f"{pid}:{cmd[:60]}")
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
    return found


def _hwm(pid: int) -> int:
    """Peak RSS (kB) of the process now running as ``pid`` (VmHWM resets at exec)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def run_fault(fid: str, python: str = sys.executable, keep: bool = False,
              slack: float = 1.0, faults: dict | None = None) -> dict:
    """Run one fault through the real CLI. ``slack`` multiplies its time bound: the table this
    script prints holds the bounds as written; the pytest run (a shared 2-core CI machine)
    keeps them as hang guards, several times over the time a quiet machine takes."""
    category, title, build = (faults or FAULTS)[fid]
    d = Path(tempfile.mkdtemp(prefix=f"edfault-{fid}-"))
    home = d / "home"
    home.mkdir()
    marker = f"EDFAULT_{fid}_{uuid.uuid4().hex[:8]}"
    try:
        spec = build(d)
    except Exception as exc:  # noqa: BLE001
        return dict(id=fid, category=category, title=title, error=f"setup failed: {exc}")
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8",
           "EDFAULT_MARKER": marker, "TMPDIR": str(d)}
    if not {"HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"} & set(spec.get("env") or {}):
        env.update(warm_rule_cache(ROOT))  # the fault's own cost, not a first anchor build
    for k, v in (spec.get("env") or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    if ROOT and not env.pop("EDFAULT_NO_ROOT", None):
        env["PYTHONPATH"] = (env["PYTHONPATH"] + ":" if env.get("PYTHONPATH") else "") + ROOT
    argv = [python, *(spec["cmd"] if "cmd" in spec else ["-m", "envdoctor", *spec["args"]])]
    mode = spec.get("stdout", "pipe")
    out_path = d / "stdout.txt"
    err_path = d / "stderr.txt"
    if mode == "closed":
        argv = ["sh", "-c", 'exec "$@" >&-', "sh", *argv]
        stdout = None
    elif mode == "full":
        stdout = open("/dev/full", "wb")
    elif mode == "head":
        argv = ["bash", "-c", "\"$@\" | head -c 10 >/dev/null; exit ${PIPESTATUS[0]}", "sh", *argv]
        stdout = None
    else:
        stdout = open(out_path, "wb")
    stderr = open(err_path, "wb")
    start = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                env=env, cwd=d, start_new_session=True)
    except OSError as exc:
        return dict(id=fid, category=category, title=title, error=f"could not start: {exc}")
    killed = False
    rusage = None
    hwm = 0
    while True:
        hwm = max(hwm, _hwm(proc.pid))
        pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - start > CAP:
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
            pid, status, rusage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.02)
    seconds = time.monotonic() - start
    rc = os.waitstatus_to_exitcode(status)
    for f in (stdout, stderr):
        if f:
            f.close()
    time.sleep(0.3)
    left = orphans(marker)
    out = out_path.read_text(errors="replace") if out_path.exists() else ""
    err = err_path.read_text(errors="replace")
    rss = hwm / 1024
    problems = []
    if killed:
        problems.append(f"hung: killed after {CAP:g}s")
    elif rc not in spec["rc"]:
        problems.append(f"exit {rc} (want {sorted(spec['rc'])})")
    # a traceback of ours; a worker's traceback quoted as evidence inside JSON is data
    if TRACE in err or (TRACE in out and not out.lstrip().startswith(("{", "["))):
        problems.append("traceback")
    if seconds > spec["bound"] * slack and not killed:
        problems.append(f"{seconds:.1f}s > {spec['bound'] * slack:g}s")
    if left:
        problems.append(f"{len(left)} process(es) left behind")
    if spec.get("rss_mb") and rss > spec["rss_mb"]:
        problems.append(f"peak RSS {rss:.0f} MB > {spec['rss_mb']} MB")
    if not killed and spec.get("check"):
        try:
            p = spec["check"](out, err, d)
        except Exception as exc:  # noqa: BLE001
            p = f"check failed: {exc}"
        if p:
            problems.append(p)
    last_err = next((x for x in reversed(err.strip().splitlines()) if x.strip()), "")
    result = dict(id=fid, category=category, title=title, rc=rc, seconds=round(seconds, 2),
                  rss_mb=round(rss), orphans=left, problems=problems, ok=not problems,
                  stderr_tail=last_err[:200], nvidia=nvidia_status(out) if out.startswith("{")
                  else "")
    if not keep:
        for p in d.rglob("*"):
            try:
                p.chmod(0o700) if p.is_dir() and not p.is_symlink() else None
            except OSError:
                pass
        shutil.rmtree(d, ignore_errors=True)
    return result


def _cell(r: dict | None) -> str:
    if not r:
        return "-"
    if r.get("error"):
        return f"harness: {r['error']}"[:120]
    what = f"exit {r['rc']}, {r['seconds']:.1f} s"
    if r.get("rss_mb", 0) >= 100:
        what += f", {r['rss_mb']} MB"
    verdict = "handled" if r["ok"] else "; ".join(r["problems"])
    return f"{what}: {verdict}".replace("|", "\\|")[:220]


def table(before: list[dict], after: list[dict], faults: dict | None = None) -> str:
    """Markdown: fault -> before -> after."""
    b = {r["id"]: r for r in before}
    a = {r["id"]: r for r in after}
    lines = ["| id | category | fault | before | after |", "| --- | --- | --- | --- | --- |"]
    for fid, (category, title, _) in (faults or FAULTS).items():
        lines.append(f"| {fid} | {category} | {title.replace('|', '/')} | {_cell(b.get(fid))} | "
                     f"{_cell(a.get(fid))} |")
    ok_b = sum(1 for r in before if r.get("ok"))
    ok_a = sum(1 for r in after if r.get("ok"))
    lines.append(f"\nhandled: before {ok_b}/{len(before)}, after {ok_a}/{len(after)}")
    return "\n".join(lines) + "\n"


def main(faults: dict | None = None) -> None:
    """The command line; matrix2.py passes its own faults."""
    faults = faults or FAULTS
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--table", nargs=2, metavar=("BEFORE.json", "AFTER.json"),
                    help="print the fault -> before -> after table of two result files")
    ap.add_argument("--out", default="fault-results.json")
    ap.add_argument("--only", default="")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--root", default="", help="run envdoctor from this source tree")
    args = ap.parse_args()
    if args.table:
        print(table(json.loads(Path(args.table[0]).read_text()),
                    json.loads(Path(args.table[1]).read_text()), faults))
        return
    global ROOT
    ROOT = args.root
    ids = [i for i in faults if not args.only or i in args.only.split(",")]
    results = []
    if args.resume and Path(args.out).exists():
        results = [r for r in json.loads(Path(args.out).read_text()) if r["id"] in ids]
        done = {r["id"] for r in results}
        ids = [i for i in ids if i not in done]
    for fid in ids:
        r = run_fault(fid, args.python, faults=faults)
        results.append(r)
        mark = "ok " if r.get("ok") else "BAD"
        print(f"{mark} {fid} rc={r.get('rc')} {r.get('seconds')}s rss={r.get('rss_mb')}MB "
              f"{'; '.join(r.get('problems', [])) or r.get('error', '')} | {r.get('stderr_tail')}",
              flush=True)
        Path(args.out).write_text(json.dumps(results, indent=1))
    bad = sum(1 for r in results if not r.get("ok"))
    print(f"{len(results) - bad}/{len(results)} handled")


if __name__ == "__main__":
    main()
