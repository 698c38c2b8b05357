"""Ninth fault matrix: faults no earlier matrix (1-8), tests/test_hostile_inputs.py or the
tests/test_adv*_boundaries.py files list, by class.

Usage (from the repository root):
  python tests/faults/matrix9.py --root "$PWD" [--out results.json] [--only ID,...]
tests/faults/test_faults9.py runs it under pytest (``-m boundary``); MATRIX9.md holds the table.

Classes: ``tools`` (rocm-smi / rocminfo / amd-smi / nvcc / ldconfig printing title sequences,
bidi overrides, NULs, invalid UTF-8 and tokens, killing themselves, forking a grandchild that
keeps the pipe; nvidia-smi process names holding tokens), ``root`` (non-UTF-8 folder names under
``--root``, a ``--root`` whose name holds glob characters), ``inputs`` (CR-only and UTF-16-BE
pastes, a fleet node nested past the limit, NaN on both sides of a diff), ``env`` (stderr
closed or full, PYTHONWARNINGS=error, PYTHONDEVMODE, a cache folder that is a device or
holds escapes, CONDA_PREFIX holding glob characters or a conda-meta of 25 000 names),
``cache`` (a full disk under a cold cache, a symlink planted at the cache's temporary name),
``secrets`` (tokens in the environment of every ML service, in nvidia-smi's process names, in
ldconfig's paths) and ``signals`` (SIGUSR1 while rocminfo's setsid grandchild hangs, SIGTERM
mid-scan of a 30 MB explain).

Every fault is judged by ``matrix3.universal`` plus matrix 8's ``no_secret8`` and
``no_invisible`` (``matrix8.judged``) and ``no_secret9`` here.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.faults import matrix as m
    from tests.faults import matrix2 as m2
    from tests.faults import matrix3 as m3
    from tests.faults import matrix4 as m4
    from tests.faults import matrix7 as m7
    from tests.faults import matrix8 as m8
else:
    from . import matrix as m
    from . import matrix2 as m2
    from . import matrix3 as m3
    from . import matrix4 as m4
    from . import matrix7 as m7
    from . import matrix8 as m8

FAULTS: dict[str, tuple[str, str, object]] = {}


def fault(fid: str, category: str, title: str):
    def deco(fn):
        FAULTS[fid] = (category, title, fn)
        return fn
    return deco


GHP9 = "ghp_PLANTED9githubTokenZyXwVuTsRqPoNmLk"
HF9 = "hf_PLANTED9hfTokenZyXwVuTsRqPoNmLk"
WANDB9 = "PLANTED9wandb0123456789abcdef0123456789ab"
AWS9 = "PLANTED9awsSecretKeyAbCdEfGhIjKlMnOpQrStUv"
PW9 = "PLANTED9pipPw"
SECRETS9 = [GHP9, HF9, WANDB9, AWS9, PW9]
TITLE = "\x1b]0;PWNED9TITLE\x07"
ANY = {0, 1}
TWO = {2}
shows = m7.shows
one_line = m7.one_line
all_of = m3.all_of


def no_secret9(out, err, d):
    text = out + err + m3.written(d)
    leaked = [s[:14] for s in SECRETS9 if s in text]
    return f"leaked {leaked}" if leaked else ""


def no_title(out, err, d):
    return "a terminal title reached the output raw" if "\x1b]0;" in out + err else ""


def _tools(d: Path, **bodies: str) -> dict:
    for name, body in bodies.items():
        m.sh(d / "bin" / name.replace("_", "-"), body)
    return {"PATH": f"{d}/bin:" + os.environ["PATH"]}


ROCM_SMI = (r"""printf '{"card0": {"Card series": "MI300X\033]0;PWNED9TITLE\007\342\200\256evil"""
            r"""\000x\377", "Card model": "0x74a1 %s"}}'""" % GHP9
            + f"\nprintf 'https://ci:{PW9}@repo.example/simple failed\\n' >&2\nexit 0")
ROCMINFO = (r"""printf 'ROCk module is loaded\n*******\nAgent 2\n*******\n  Name:      """
            r"""              gfx942\033]0;T\007\n  Marketing Name:          AMD \342\200\256"""
            r"""Instinct MI300X %s\n  Device Type:             GPU\n'""" % HF9)


# --------------------------------------------------------------------------- tools
@fault("9T01", "tools", "rocm-smi/rocminfo print a title, bidi, NUL, bad UTF-8, tokens; text -v")
def _(d):
    env = _tools(d, rocm_smi=ROCM_SMI, rocminfo=ROCMINFO, amd_smi="kill -TERM $$")
    return dict(args=["check", "--static", "-v"], env=env, rc=ANY, bound=20, check=no_title)


@fault("9T02", "tools", "the same ROCm tools, --format github and markdown report")
def _(d):
    env = _tools(d, rocm_smi=ROCM_SMI, rocminfo=ROCMINFO, amd_smi="kill -TERM $$")
    return dict(shell=["sh", "-c", f'{sys.executable} -m envdoctor check --static --format github'
                       f' && {sys.executable} -m envdoctor report --static -o {d}/r.md'],
                env=env, rc=ANY, bound=40, check=all_of(no_title, m3.no_workflow))


@fault("9T03", "tools", "nvcc prints a title and bidi in its release line, then SIGTERMs itself")
def _(d):
    env = _tools(d, nvcc=r"""printf 'nvcc: NVIDIA (R) Cuda compiler driver\n"""
                         r"""Cuda compilation tools, release 12.4\033]0;T\007\342\200\256, V12.4.131\n'"""
                         "\nkill -TERM $$")
    return dict(args=["check", "--static", "-v", "--format", "json"], env=env, rc=ANY, bound=20,
                check=m3.json_ok)


@fault("9T04", "tools", "ldconfig -p lists paths with NUL, bad UTF-8, escapes and a token")
def _(d):
    env = _tools(d, ldconfig=r"""printf '3 libs found in cache\n\tlibcudart.so.12 (libc6,x86-64)"""
                             r""" => /opt/%s/\033]0;T\007lib\377cudart.so.12\n"""
                             r"""\tlibcuda.so.1 (libc6,x86-64) => /x\000/libcuda.so.1\n'""" % GHP9)
    return dict(args=["check", "--static", "-v", "--format", "json"], env=env, rc=ANY, bound=20,
                check=m3.json_ok)


@fault("9T05", "tools", "nvidia-smi's process table names hold tokens and a URL password")
def _(d):
    table = m2.H100_TABLE
    cut = table.index("| Processes:")
    procs = ("| Processes:                                                                             |\n"
             "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |\n"
             "|=========================================================================================|\n"
             f"|    0   N/A  N/A      4242      C   python train.py --token {GHP9} https://u:{PW9}@h/x   1000MiB |\n"
             "+-----------------------------------------------------------------------------------------+\n")
    env = m2.smi(d, query=m2.csv_row(0) + "\n", table=table[:cut] + procs)
    return dict(args=["report", "--static"], env=env, rc=ANY, bound=25)


# --------------------------------------------------------------------------- root
@fault("9R01", "root", "--root: PCI and /proc/driver/nvidia/gpus folders named in bad UTF-8")
def _(d):
    root = m4.image(d)
    r = os.fsencode(root)
    pci = r + b"/sys/bus/pci/devices/0000:\xff\xfe:00.0"
    os.makedirs(pci)
    for name, value in ((b"vendor", b"0x10de\n"), (b"class", b"0x030200\n"), (b"device", b"0x2330\n")):
        with open(pci + b"/" + name, "wb") as fh:
            fh.write(value)
    gpu = r + b"/proc/driver/nvidia/gpus/0000:01:00.\xff"
    os.makedirs(gpu)
    with open(gpu + b"/information", "wb") as fh:
        fh.write(b"Model: \t\t H100\xff\x1b]0;t\x07\n")
    (root / "proc/driver/nvidia/version").write_bytes(
        b"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15\xff\n")
    (root / "etc/os-release").write_text('ID=ubuntu\nVERSION_ID="22.04"\n')
    return dict(args=["check", "--static", "--root", str(root), "-v", "--format", "markdown"],
                rc=ANY, bound=20)


@fault("9R02", "root", "--root DIR named img[1]: its /usr/lib/gcc is read, not a pattern")
def _(d):
    root = d / "img[1]"
    (root / "usr/lib/gcc/x86_64-linux-gnu/11").mkdir(parents=True)
    (d / "img1/usr/lib/gcc/x86_64-linux-gnu/9").mkdir(parents=True)  # what [1] would match

    def gcc_is_11(out, err, d):
        host = (m4.facts_of(out).get("host") or {})
        return "" if host.get("gcc_version") == "11" else \
            f"gcc_version {host.get('gcc_version')!r} (want '11', the image's)"
    m.sh(d / "bin/gcc", "exit 1")  # a gcc on PATH not named gcc-N: its version is the folder's
    return dict(args=["check", "--static", "--root", str(root), "--format", "json"],
                env={"PATH": str(d / "bin")}, rc=ANY, bound=20, check=gcc_is_11)


# --------------------------------------------------------------------------- inputs
@fault("9P01", "inputs", "check --from an nvidia-smi table with CR-only line ends (old Mac)")
def _(d):
    (d / "p.txt").write_bytes(m2.H100_TABLE.replace("\n", "\r").encode())
    return dict(args=["check", "--from", str(d / "p.txt"), "--format", "json"], rc=ANY,
                bound=10, check=shows("H100"))


@fault("9P02", "inputs", "check --from an nvidia-smi table in UTF-16-BE with a BOM")
def _(d):
    (d / "p.txt").write_bytes(b"\xfe\xff" + m2.H100_TABLE.encode("utf-16-be"))
    return dict(args=["check", "--from", str(d / "p.txt"), "--format", "json"], rc=ANY,
                bound=10, check=shows("H100"))


@fault("9P03", "inputs", "fleet compare: one node snapshot nested 100 000 deep")
def _(d):
    (d / "nodes").mkdir()
    m3.write_json(d / "nodes/a.json", m3.snapshot())
    m3.write_json(d / "nodes/b.json", m3.snapshot())
    (d / "nodes/c.json").write_text("[" * 100000 + "]" * 100000)
    return dict(args=["fleet", "compare", str(d / "nodes")], rc={0, 1, 2}, bound=15)


@fault("9P04", "inputs", "diff: two identical snapshots holding NaN are the same")
def _(d):
    data = m3.snapshot()
    data["nvidia"]["gpus"][0]["memory_total_mib"] = float("nan")
    a = m3.write_json(d / "a.json", data)
    b = m3.write_json(d / "b.json", data)
    return dict(args=["diff", str(a), str(b)], rc={0, 2}, bound=8)


# --------------------------------------------------------------------------- env
BAD = '{"x":'
# envdoctor's stderr is gone: the shell says the exit status on the one stderr line the judge reads
STDERR_GONE = '"$@" %s; rc=$?; echo "exit $rc" >&2; exit $rc'


@fault("9E01", "env", "stderr closed (2>&-), a snapshot that is not JSON: exit 2")
def _(d):
    (d / "bad.json").write_text(BAD)
    return dict(shell=["sh", "-c", STDERR_GONE % "2>&-", "sh", sys.executable, "-m",
                       "envdoctor", "check", "--facts", str(d / "bad.json")], rc=TWO, bound=8)


@fault("9E02", "env", "stderr on /dev/full, a snapshot that is not JSON: exit 2")
def _(d):
    (d / "bad.json").write_text(BAD)
    return dict(shell=["sh", "-c", STDERR_GONE % "2>/dev/full", "sh", sys.executable, "-m",
                       "envdoctor", "check", "--facts", str(d / "bad.json")], rc=TWO, bound=8)


@fault("9E03", "env", "PYTHONWARNINGS=error: check --static json still answers")
def _(d):
    return dict(args=["check", "--static", "--format", "json"], env={"PYTHONWARNINGS": "error"},
                rc=ANY, bound=20, check=m3.json_ok)


@fault("9E04", "env", "PYTHONDEVMODE=1 (ResourceWarnings shown): bad input is still one line")
def _(d):
    (d / "bad.json").write_text(BAD)
    return dict(args=["check", "--facts", str(d / "bad.json")], env={"PYTHONDEVMODE": "1"},
                rc=TWO, bound=8)


@fault("9E05", "env", "ENVDOCTOR_CACHE_DIR=/dev/null, a cold explain")
def _(d):
    return dict(args=["explain", "DRV001"], env={"ENVDOCTOR_CACHE_DIR": "/dev/null",
                                                 "XDG_STATE_HOME": str(d / "state")},
                rc={0}, bound=30)


@fault("9E06", "env", "ENVDOCTOR_CACHE_DIR holds a title escape, a newline, ::error and a token")
def _(d):
    return dict(args=["explain", "DRV001"],
                env={"ENVDOCTOR_CACHE_DIR": f"/proc/x{TITLE}\n::error::x/{GHP9}",
                     "XDG_STATE_HOME": str(d / "state")}, rc={0}, bound=30,
                check=all_of(no_title, m3.no_workflow))


@fault("9E07", "env", "CONDA_PREFIX=/*/*/*/*/* (glob characters): check --static in bounded time")
def _(d):
    return dict(args=["check", "--static", "--format", "json"],
                env={"CONDA_PREFIX": "/*/*/*/*/*"}, rc=ANY, bound=15, check=m3.json_ok)


@fault("9E08", "env", "CONDA_PREFIX whose conda-meta holds 25 000 toolkit names: facts reads back")
def _(d):
    meta = d / "conda/conda-meta"
    meta.mkdir(parents=True)
    for i in range(25000):
        (meta / f"cudatoolkit-11.{i}-h1.json").touch()
    out = d / "f.json"
    return dict(shell=["sh", "-c", f'{sys.executable} -m envdoctor facts -o {out} && '
                       f'exec {sys.executable} -m envdoctor check --facts {out} --format json'],
                env={"CONDA_PREFIX": str(d / "conda")}, rc=ANY, bound=30, check=m3.json_ok)


# --------------------------------------------------------------------------- cache
def _warm_cache(d: Path, args: list[str]) -> dict:
    env = dict(os.environ, ENVDOCTOR_CACHE_DIR=str(d / "c"), XDG_STATE_HOME=str(d / "state"),
               HOME=str(d / "home"))
    if m.ROOT:
        env["PYTHONPATH"] = m.ROOT
    subprocess.run([sys.executable, "-m", "envdoctor", *args], env=env, cwd=d,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    return {"ENVDOCTOR_CACHE_DIR": str(d / "c"), "XDG_STATE_HOME": str(d / "state")}


def _no_tmp(out, err, d):
    left = sorted(p.name for p in (d / "c").glob("*.tmp")) if (d / "c").is_dir() else []
    return f"temporary files left in the cache: {left[:3]}" if left else ""


@fault("9C01", "cache", "a file size limit (full disk) during a cold explain: no .tmp left")
def _(d):
    (d / "tb.txt").write_text(m4.TB)
    return dict(shell=["sh", "-c", f'ulimit -f 20 && exec "$@"', "sh", sys.executable, "-m",
                       "envdoctor", "explain", str(d / "tb.txt")],
                # no .pyc written under the limit: CPython's own writer keeps a short write (a
                # truncated .pyc in the tree under test; 9C03 is what that does to a run)
                env={"ENVDOCTOR_CACHE_DIR": str(d / "c"), "XDG_STATE_HOME": str(d / "state"),
                     "PYTHONDONTWRITEBYTECODE": "1"},
                rc=ANY, bound=40, check=_no_tmp)


@fault("9C02", "cache", "shared cache: a symlink planted at each entry's temp name; victim kept")
def _(d):
    (d / "tb.txt").write_text(m4.TB)
    env = _warm_cache(d, ["explain", str(d / "tb.txt")])
    entries = [p for p in (d / "c").glob("*.json")]
    for p in entries:
        p.unlink()
    (d / "victim").write_text("VICTIM\n")
    plant = " ".join(f'ln -s {d}/victim "{d}/c/{p.stem}.$$.tmp";' for p in entries)

    def victim_kept(out, err, d):
        if not entries:
            return "no cache entry was built (setup)"
        text = (d / "victim").read_text()
        return "" if text == "VICTIM\n" else f"the victim was overwritten: {text[:40]!r}"
    return dict(shell=["sh", "-c", f'{plant} exec "$@"', "sh", sys.executable, "-m",
                       "envdoctor", "explain", str(d / "tb.txt")],
                env=env, rc=ANY, bound=40, check=victim_kept)


@fault("9C03", "cache", "a .pyc a full disk cut short (marshal data too short): exit 3, not 130")
def _(d):
    import py_compile
    import shutil
    src = Path(m.ROOT or Path(__file__).resolve().parents[2])
    site = d / "site"
    shutil.copytree(src / "envdoctor", site / "envdoctor",
                    ignore=shutil.ignore_patterns("__pycache__"))
    mod = site / "envdoctor/explain/render.py"
    pyc = Path(py_compile.compile(str(mod), doraise=True))
    pyc.write_bytes(pyc.read_bytes()[:24])  # the header and 8 bytes of code: as EFBIG left it
    (d / "tb.txt").write_text(m4.TB)

    def crash_not_abort(out, err, d):
        return "" if "internal error: EOFError" in err else f"stderr {err.strip()[-120:]!r}"
    return dict(args=["explain", str(d / "tb.txt")], rc={3}, bound=20,
                env={"PYTHONPATH": str(site), "EDFAULT_NO_ROOT": "1",
                     "ENVDOCTOR_RULES": str(src / "rules")},
                check=crash_not_abort)


# --------------------------------------------------------------------------- secrets
@fault("9K01", "secrets", "HF/W&B/AWS tokens and index URLs with passwords in env, facts + report")
def _(d):
    env = {"HF_TOKEN": HF9, "HUGGING_FACE_HUB_TOKEN": HF9, "WANDB_API_KEY": WANDB9,
           "AWS_SECRET_ACCESS_KEY": AWS9, "PIP_INDEX_URL": f"https://ci:{PW9}@pypi.corp/simple",
           "PIP_EXTRA_INDEX_URL": f"https://ci:{PW9}@extra.corp/simple",
           "UV_INDEX_URL": f"https://ci:{PW9}@uv.corp/simple",
           "CONDA_CHANNELS": f"https://ci:{PW9}@conda.corp/t/{GHP9}/main"}
    return dict(shell=["sh", "-c", f'{sys.executable} -m envdoctor facts -o {d}/f.json && '
                       f'{sys.executable} -m envdoctor report --static -o {d}/r.md && '
                       f'exec {sys.executable} -m envdoctor check --static -v --format json'],
                env=env, rc=ANY, bound=40)


@fault("9K02", "secrets", "a token in the path of CONDA_PREFIX, shown as a toolkit's path")
def _(d):
    meta = d / GHP9 / "conda-meta"
    meta.mkdir(parents=True)
    (meta / "cudatoolkit-11.8.0-h1.json").touch()
    return dict(args=["check", "--static", "-v", "--format", "json"],
                env={"CONDA_PREFIX": str(d / GHP9)}, rc=ANY, bound=20)


# --------------------------------------------------------------------------- signals
@fault("9G01", "signals", "SIGUSR1 while rocminfo's setsid grandchild ignores TERM and hangs")
def _(d):
    env = _tools(d, rocminfo=(f"setsid sh -c 'trap \"\" TERM HUP INT; exec sleep 1000' &\n"
                              f"touch {d}/started\necho 'ROCk module is loaded'\nexec sleep 1000"))
    return dict(args=["check", "--static"], env=env, rc={138, -10}, bound=20,
                signal=(signal.SIGUSR1, "started", False), check=m3.stderr_lines(1))


@fault("9G02", "signals", "SIGTERM 1 s into the explain of a 30 MB log: 143, nothing left")
def _(d):
    line = "epoch 1 loss 0.5 RuntimeError: CUDA error: no kernel image is available\n"
    (d / "big.log").write_text(line * (30_000_000 // len(line)))
    return dict(args=["explain", str(d / "big.log")], rc={143, -15}, bound=20,
                signal=(signal.SIGTERM, 1.0, False), check=m3.stderr_lines(1))


# --------------------------------------------------------------------------- runner
def run_fault(fid: str, python: str = sys.executable, slack: float = 1.0, keep: bool = False
              ) -> dict:
    spec_build = FAULTS[fid][2]
    m7.warm(python)

    def build(d):
        spec = m8.judged(spec_build(d))
        check = spec["check"]
        spec["check"] = all_of(check, no_secret9)
        env = spec.setdefault("env", {})
        env.setdefault("XDG_CACHE_HOME", str(m4._cache_dir() / "cache"))
        env.setdefault("XDG_STATE_HOME", str(m4._cache_dir() / "state"))
        return spec
    faults = {fid: (FAULTS[fid][0], FAULTS[fid][1], build)}
    return m3.run_fault(fid, python, slack, keep, faults=faults)


def main() -> None:
    m3.run_cli(FAULTS, run_fault, "fault9-results.json")


if __name__ == "__main__":
    main()
