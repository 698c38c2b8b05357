"""Fourth fault matrix: faults no earlier matrix or tests/test_hostile_inputs.py lists.

Usage (from the repository root):
  python tests/faults/matrix4.py [--root SRC] [--out results.json] [--only ID,...]
tests/faults/test_faults4.py runs it under pytest (``-m boundary``); MATRIX4.md holds the table.

Classes: ``root`` (hostile trees under ``check --static --root``: symlinks that leave the
tree, loops, FIFOs, sparse files, bytes that are not text, names with escapes), ``tools``
(fake nvidia-smi / rocm-smi / amd-smi / rocminfo / nvcc that fork a pipe holder, die by a
signal, print binary, floods or escapes), ``env`` (huge device lists, control characters,
credentials in every output format), ``snapshot`` (counts no machine has, line breaks that
forge report lines, surrogates, duplicate keys), ``paste`` (UTF-16, CR-only, credentials,
escapes), ``writes`` and ``signals`` (pipes that never close, read as /dev/stdin).

Every fault is also judged by ``matrix3.universal`` (no exit 3 or traceback, exit 2 with one
stderr line, no raw control character, none of matrix3's planted credentials, bounded time,
nothing left running); the faults here add ``SECRETS4`` and forged-line checks.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.faults import matrix as m
    from tests.faults import matrix2 as m2
    from tests.faults import matrix3 as m3
else:
    from . import matrix as m
    from . import matrix2 as m2
    from . import matrix3 as m3

FAULTS: dict[str, tuple[str, str, object]] = {}


def fault(fid: str, category: str, title: str):
    def deco(fn):
        FAULTS[fid] = (category, title, fn)
        return fn
    return deco


# --------------------------------------------------------------------------- planted data
HF = "hf_PLANTED4hfTokenAbCdEfGhIjKlMnOpQr"
AWS_SECRET = "PLANTED4awsSecretKey0123456789abcdefghij"
PROXY_PW = "PLANTED4proxyPw"
PIP_PW = "PLANTED4pipPw"
BEARER = "PLANTED4bearerTokenAbCdEfGh123"
GHP = "ghp_PLANTED4githubTokenAbCdEfGhIjKlMnOpQrSt"
SECRETS4 = [HF, AWS_SECRET, PROXY_PW, PIP_PW, BEARER, GHP]
SECRET_ENV = {"HF_TOKEN": HF, "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
              "HTTPS_PROXY": f"http://svc:{PROXY_PW}@proxy.corp:3128",
              "PIP_INDEX_URL": f"https://svc:{PIP_PW}@pypi.corp.example/simple",
              "GITHUB_TOKEN": GHP}
FORGED = "[✓] All checks passed"
FORGE = f"X\n{FORGED}\n::error title=PWNED4::forged\r::warning::PWNED4"
OSC = "\x1b]52;c;cHduZWQ=\x07\x1b]0;title\x07\x1b[31m"
STATIC_JSON = ["check", "--static", "--format", "json"]
ANY = {0, 1}


def no_secret4(out, err, d):
    text = out + err + m3.written(d)
    leaked = [s[:14] for s in SECRETS4 if s in text]
    return f"leaked {leaked}" if leaked else ""


def no_forged_line(out, err, d):
    """No line of the output is one the input wrote: a report line, or a workflow command."""
    bad = [ln for ln in (out + m3.written(d)).splitlines()
           if ln.lstrip().startswith((FORGED, "::error title=PWNED4", "::warning::PWNED4"))]
    return f"forged lines {bad[:3]}" if bad else ""


def facts_of(out: str) -> dict:
    d = m.json_facts(out)
    return d.get("facts") or d


def distro_is(want: str):
    def check(out, err, d):
        got = (facts_of(out).get("host") or {}).get("distro")
        return "" if got == want else f"distro {got!r} (want {want!r})"
    return check


def probe_ok(section: str):
    def check(out, err, d):
        st = ((facts_of(out).get(section) or {}).get("probe") or {})
        bad = st.get("status") == "error" or "killed by" in (st.get("reason") or "")
        return f"{section} probe {st.get('status')}: {st.get('reason')!r}"[:200] if bad else ""
    return check


def gpus_named(n: int):
    def check(out, err, d):
        gpus = (facts_of(out).get("nvidia") or {}).get("gpus") or []
        return "" if len(gpus) == n else f"{len(gpus)} GPUs (want {n})"
    return check


def image(d: Path) -> Path:
    root = d / "img"
    for sub in ("etc", "usr/lib", "proc/driver/nvidia", "sys/bus/pci/devices", "dev"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    return root


def tool(d: Path, name: str, body: str) -> dict:
    m.sh(d / "bin" / name, body)
    return {"PATH": f"{d}/bin:" + os.environ["PATH"]}


def query_smi(d: Path, prefix: str, rows: str | None = None) -> dict:
    """nvidia-smi that runs ``prefix`` first, then answers like a one-GPU H100 machine."""
    (d / "smi").mkdir(exist_ok=True)
    (d / "smi/q.txt").write_text(rows if rows is not None else m2.csv_row(0) + "\n")
    (d / "smi/t.txt").write_text(m2.H100_TABLE)
    return tool(d, "nvidia-smi", f'{prefix}\ncase "$*" in *--query-gpu*) cat "{d}/smi/q.txt"; '
                                 f'exit 0;; esac\ncat "{d}/smi/t.txt"')


def snap(d: Path, name: str = "s.json", **edits) -> Path:
    data = m3.snapshot()
    for path, value in edits.items():
        node = data
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        node[keys[-1]] = value
    return m3.write_json(d / name, data)


TB = ("Traceback (most recent call last):\n  File \"train.py\", line 7, in <module>\n"
      "    model.cuda()\nRuntimeError: CUDA error: no kernel image is available for execution "
      "on the device\n")


# --------------------------------------------------------------------------- root
@fault("4R01", "root", "--root: etc/os-release is an absolute symlink to a host file")
def _(d):
    root = image(d)
    (d / "host-os-release").write_text('PRETTY_NAME="HOST-DISTRO"\n')
    (root / "etc/os-release").symlink_to(d / "host-os-release")
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, check=distro_is(""))


@fault("4R02", "root", "--root: etc/os-release -> /usr/lib/os-release (absolute, as in images)")
def _(d):
    root = image(d)
    (root / "usr/lib/os-release").write_text('PRETTY_NAME="IMAGE-DISTRO"\n')
    (root / "etc/os-release").symlink_to("/usr/lib/os-release")
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8,
                check=distro_is("IMAGE-DISTRO"))


@fault("4R03", "root", "--root: a symlink climbing out with ../../../.. resolves in the image")
def _(d):
    root = image(d)
    (root / "usr/lib/os-release").write_text('PRETTY_NAME="IMAGE-DISTRO"\n')
    (root / "etc/os-release").symlink_to("../" * 12 + "usr/lib/os-release")
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8,
                check=distro_is("IMAGE-DISTRO"))


@fault("4R04", "root", "--root: usr/local/cuda -> /usr/local/cuda-12.1 (the image's toolkit)")
def _(d):
    root = image(d)
    tk = root / "usr/local/cuda-12.1"
    (tk / "include").mkdir(parents=True)
    (tk / "version.json").write_text(json.dumps({"cuda": {"name": "CUDA SDK",
                                                          "version": "12.1.105"}}))
    (root / "usr/local/cuda").symlink_to("/usr/local/cuda-12.1")

    def check(out, err, d):
        tks = (facts_of(out).get("cuda") or {}).get("toolkits") or []
        versions = sorted({str(t.get("version")) for t in tks})
        return "" if versions == ["12.1"] or versions == ["12.1.105"] else \
            f"toolkits {versions} (want the image's 12.1 only)"
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, check=check,
                env={"PATH": "/usr/bin:/bin"})


@fault("4R05", "root", "--root: a symlink loop where /proc/driver/nvidia/version should be")
def _(d):
    root = image(d)
    nv = root / "proc/driver/nvidia"
    (nv / "a").symlink_to("b")
    (nv / "b").symlink_to("/proc/driver/nvidia/a")
    (nv / "version").symlink_to("a")
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, check=m3.json_ok)


@fault("4R06", "root", "--root: /proc/driver/nvidia/version is a FIFO nobody writes to")
def _(d):
    root = image(d)
    os.mkfifo(root / "proc/driver/nvidia/version")
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, check=m3.json_ok)


@fault("4R07", "root", "--root: /proc/driver/nvidia/version is a 2 GB sparse file")
def _(d):
    root = image(d)
    m3.sparse(root / "proc/driver/nvidia/version", b"NVRM version: NVIDIA UNIX x86_64 Kernel "
              b"Module  550.54.15\n", 2 << 30)
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, rss_mb=300,
                check=m3.json_ok)


@fault("4R08", "root", "--root: os-release with NUL, invalid UTF-8, OSC 52 and :: in PRETTY_NAME")
def _(d):
    root = image(d)
    (root / "etc/os-release").write_bytes(
        b'NAME="Ubu\x00ntu\xff\xfe"\nPRETTY_NAME="\x1b]52;c;cHduZWQ=\x07Evil\x9b31m '
        b'::error title=PWNED4::x <script>"\nID=ubuntu\n')
    return dict(args=["check", "--static", "--root", str(root), "-v"], rc=ANY, bound=8,
                check=no_forged_line)


@fault("4R09", "root", "--root: etc/os-release is a directory, /etc/passwd unreadable bytes")
def _(d):
    root = image(d)
    (root / "etc/os-release").mkdir()
    (root / "etc/passwd").write_bytes(os.urandom(4096))
    (root / "etc/group").write_bytes(b"video:x:44:\x1b[2J" + b"a," * 100000 + b"\n")
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, check=m3.json_ok)


@fault("4R10", "root", "--root: PCI device folders named with a newline and an escape")
def _(d):
    root = image(d)
    for name in ("0000:01:00.0\n[✓] All checks passed", "0000:02:00.0\x1b]0;x\x07"):
        dev = root / "sys/bus/pci/devices" / name
        dev.mkdir()
        (dev / "vendor").write_text("0x10de\n")
        (dev / "class").write_text("0x030200\n")
    return dict(args=["check", "--static", "--root", str(root), "-v"], rc=ANY, bound=8,
                check=no_forged_line)


@fault("4R11", "root", "--root DIR where DIR is a FIFO")
def _(d):
    os.mkfifo(d / "fifo")
    return dict(args=["check", "--static", "--root", str(d / "fifo")], rc=m.ONE_LINE_2, bound=6)


# --------------------------------------------------------------------------- tools
@fault("4T01", "tools", "nvidia-smi answers, exits 0, and leaves a child holding its stdout")
def _(d):
    return dict(args=STATIC_JSON, env=query_smi(d, "(exec sleep 300) &"), rc=ANY, bound=6,
                check=m3.all_of(probe_ok("nvidia"), gpus_named(1)))


@fault("4T02", "tools", "nvidia-smi leaves a setsid grandchild holding its pipes")
def _(d):
    return dict(args=STATIC_JSON, env=query_smi(d, "setsid sleep 300 &"), rc=ANY, bound=6,
                check=m3.all_of(probe_ok("nvidia"), gpus_named(1)))


@fault("4T03", "tools", "rocm-smi/amd-smi/rocminfo hang while a slow nvcc answers in time")
def _(d):
    env = {}
    for name in ("rocm-smi", "amd-smi", "rocminfo"):
        env = tool(d, name, "exec sleep 1000")
    tool(d, "nvcc", 'sleep 9\necho "Cuda compilation tools, release 12.4, V12.4.131"')
    # the ROCm probe spends its own deadline on three hung tools (~17 s); the fault is nvcc
    return dict(args=STATIC_JSON, env=env, rc=ANY, bound=20, check=probe_ok("cuda"))


@fault("4T04", "tools", "nvidia-smi prints 50 MB of one line")
def _(d):
    return dict(args=STATIC_JSON, env=tool(d, "nvidia-smi", "head -c 50000000 /dev/zero | tr "
                                           "'\\0' A"), rc=ANY, bound=10, rss_mb=400,
                check=m3.json_ok)


@fault("4T05", "tools", "nvidia-smi prints random binary with NULs and C1 bytes")
def _(d):
    (d / "bin").mkdir()
    (d / "noise").write_bytes(bytes(range(256)) * 64 + os.urandom(8192))
    return dict(args=["check", "--static", "-v"], env=tool(d, "nvidia-smi", f'cat "{d}/noise"'),
                rc=ANY, bound=8)


@fault("4T06", "tools", "nvidia-smi dies by its own SIGSEGV")
def _(d):
    return dict(args=STATIC_JSON, env=tool(d, "nvidia-smi", "kill -SEGV $$"), rc=ANY, bound=6,
                check=m3.json_ok)


@fault("4T07", "tools", "nvidia-smi GPU name with OSC 52/title/CSI and a GitHub token, text")
def _(d):
    rows = m2.csv_row(0, name=f"NVIDIA H100 {OSC} {GHP}") + "\n"
    return dict(args=["check", "--static"], env=query_smi(d, ":", rows), rc=ANY, bound=6,
                check=no_secret4)


@fault("4T08", "tools", "nvcc prints escapes, a token and a 5000-digit release")
def _(d):
    return dict(args=STATIC_JSON, env=tool(d, "nvcc", f'printf "\\033]0;t\\007{HF}\\n"; echo '
                                           f'"Cuda compilation tools, release 12.{"9" * 5000}"'),
                rc=ANY, bound=6, check=m3.all_of(m3.json_ok, no_secret4))


@fault("4T09", "tools", "rocminfo floods 20 MB of 'Name: gfx' agent lines")
def _(d):
    return dict(args=STATIC_JSON, env=tool(d, "rocminfo", "yes '  Name:                    "
                                           "gfx90a' | head -c 20000000"),
                rc=ANY, bound=10, rss_mb=400, check=m3.json_ok)


@fault("4T10", "tools", "amd-smi prints JSON nested 200 000 deep")
def _(d):
    (d / "deep.json").write_text("[" * 200000)
    return dict(args=STATIC_JSON, env=tool(d, "amd-smi", f'cat "{d}/deep.json"'), rc=ANY,
                bound=8, check=m3.json_ok)


@fault("4T11", "tools", "nvidia-smi closes its output, then keeps running")
def _(d):
    return dict(args=STATIC_JSON, env=tool(d, "nvidia-smi", "exec >&- 2>&-; exec sleep 1000"),
                rc=ANY, bound=16, check=m3.json_ok)


# --------------------------------------------------------------------------- env
@fault("4E01", "env", "CUDA_VISIBLE_DEVICES with 10 000 entries")
def _(d):
    return dict(args=STATIC_JSON, env={"CUDA_VISIBLE_DEVICES": ",".join(map(str, range(10000)))},
                rc=ANY, bound=8, check=m3.json_ok)


@fault("4E02", "env", "LD_LIBRARY_PATH with OSC 52, CR/LF and a forged report line, text -v")
def _(d):
    return dict(args=["check", "--static", "-v"], env={"LD_LIBRARY_PATH": f"/x{OSC}:{FORGE}"},
                rc=ANY, bound=8, check=no_forged_line)


def _secrets_in(fmt: str):
    def build(d):
        return dict(args=["check", "--static", "-v", "--format", fmt], env=SECRET_ENV, rc=ANY,
                    bound=8, check=no_secret4)
    return build


for _i, _fmt in enumerate(("json", "markdown", "github", "prometheus", "junit", "sarif")):
    fault(f"4E{3 + _i:02d}", "env", f"HF/AWS/GitHub tokens, proxy and index passwords in env, "
                                   f"check -v --format {_fmt}")(_secrets_in(_fmt))


@fault("4E09", "env", "credentials in env, `report --static` and `facts`")
def _(d):
    py = sys.executable
    return dict(shell=["sh", "-c", f'"{py}" -m envdoctor report --static > "{d}/out1.md"; '
                                   f'"{py}" -m envdoctor facts > "{d}/out2.json"; exit 0'],
                env=SECRET_ENV, rc={0}, bound=12, check=no_secret4)


@fault("4E10", "env", "a 120 kB environment value and 3000 variables")
def _(d):
    env = {f"ED_VAR_{i}": "x" * 100 for i in range(3000)}
    env["NCCL_DEBUG"] = "INFO" * 30000  # 120 kB: past bounded.MAX_ENV, under MAX_ARG_STRLEN
    return dict(args=STATIC_JSON, env=env, rc=ANY, bound=8, check=m3.json_ok)


# --------------------------------------------------------------------------- snapshot
@fault("4S01", "snapshot", "check --facts: 200 000 GPUs in one snapshot")
def _(d):
    gpus = [{"index": i, "name": "G", "cc": "8.0", "memory_total_mib": 1} for i in range(200000)]
    return dict(args=["check", "--facts", str(snap(d, nvidia__gpus=gpus))], rc={0, 1, 2},
                bound=8)


@fault("4S02", "snapshot", "check --facts: a GPU name whose line breaks forge report lines, text")
def _(d):
    return dict(args=["check", "--facts", str(snap(d, nvidia__gpus__0__name=FORGE)), "-v"],
                rc=ANY, bound=6, check=no_forged_line)


@fault("4S03", "snapshot", "check --facts: a GPU name with line breaks, --format github")
def _(d):
    return dict(args=["check", "--facts", str(snap(d, nvidia__gpus__0__name=FORGE)),
                      "--format", "github"], rc=ANY, bound=6, check=no_forged_line)


@fault("4S04", "snapshot", "diff: a hostname and a torch version with line breaks, text")
def _(d):
    a = snap(d, "a.json")
    b = snap(d, "b.json", host__hostname=FORGE, env__vars={"CUDA_VISIBLE_DEVICES": FORGE})
    return dict(args=["diff", str(a), str(b)], rc={0, 1}, bound=6, check=no_forged_line)


@fault("4S05", "snapshot", "fleet compare: node snapshots whose values forge lines, text")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    snap(nodes, "a.json")
    snap(nodes, "b.json", host__hostname="node-b", nvidia__gpus__0__name=FORGE)
    return dict(args=["fleet", "compare", str(nodes)], rc={0, 1}, bound=8, check=no_forged_line)


@fault("4S06", "snapshot", "check --facts: duplicate keys, the last one of the wrong type")
def _(d):
    (d / "s.json").write_text('{"schema_version": 1, "nvidia": {"probe": {"status": "ok"}, '
                              '"gpus": [], "gpus": {"a": 1}}}')
    return dict(args=["check", "--facts", str(d / "s.json")], rc=m.ONE_LINE_2, bound=5)


@fault("4S07", "snapshot", "check --facts: memory 1e308 MiB and -1e20 MiB")
def _(d):
    s = m3.snapshot()
    s["nvidia"]["gpus"].append(dict(s["nvidia"]["gpus"][0], index=1, memory_total_mib=-1e20))
    s["nvidia"]["gpus"][0]["memory_total_mib"] = 1e308
    return dict(args=["check", "--facts", str(m3.write_json(d / "s.json", s)), "--format",
                      "json"], rc={0, 1, 2}, bound=5)


@fault("4S08", "snapshot", "check --facts: lone surrogates (\\ud800) in a GPU name, markdown")
def _(d):
    p = d / "s.json"
    p.write_text(json.dumps(m3.snapshot()).replace("NVIDIA GeForce RTX 3090",
                                                   "\\ud800\\udfff\\udc00 <b>x</b>"))
    return dict(args=["check", "--facts", str(p), "--format", "markdown"], rc={0, 1, 2},
                bound=5, check=m3.no_html)


@fault("4S09", "snapshot", "check --facts: a UTF-16 snapshot with a BOM")
def _(d):
    (d / "s.json").write_bytes(json.dumps(m3.snapshot()).encode("utf-16"))
    return dict(args=["check", "--facts", str(d / "s.json")], rc=m.ONE_LINE_2, bound=5)


@fault("4S10", "snapshot", "check --facts: credentials in env values, every format in turn")
def _(d):
    s = snap(d, env__vars=SECRET_ENV)
    py = sys.executable
    runs = "; ".join(f'"{py}" -m envdoctor check --facts "{s}" -v --format {f} > "{d}/out_{f}"'
                     for f in ("text", "json", "markdown", "github", "junit", "sarif",
                               "prometheus"))
    return dict(shell=["sh", "-c", runs + "; exit 0"], rc={0}, bound=20, check=no_secret4)


# --------------------------------------------------------------------------- paste
@fault("4P01", "paste", "explain a UTF-16 traceback with a BOM")
def _(d):
    (d / "tb.txt").write_bytes(TB.encode("utf-16"))

    def check(out, err, d):
        return "" if "no kernel image" in out or "ECUDA" in out else "the error was not read"
    return dict(args=["explain", str(d / "tb.txt")], rc={0, 1}, bound=6, check=check)


@fault("4P02", "paste", "explain a CR-only (old Mac) traceback")
def _(d):
    (d / "tb.txt").write_bytes(TB.replace("\n", "\r").encode())
    return dict(args=["explain", str(d / "tb.txt")], rc={0, 1}, bound=6)


@fault("4P03", "paste", "check --from: pasted credentials (index URL, bearer, AWS, HF), json")
def _(d):
    (d / "p.txt").write_text(TB + f"pip install --index-url https://bob:{PIP_PW}@pypi.corp/simple"
                             f" torch\nHF_TOKEN={HF}\naws_secret_access_key = {AWS_SECRET}\n"
                             f"Authorization: Bearer {BEARER}\n")
    return dict(args=["check", "--from", str(d / "p.txt"), "--format", "json"], rc=ANY, bound=6,
                check=m3.all_of(no_secret4, m3.json_ok))


@fault("4P04", "paste", "check --from: nvidia-smi table, GPU name with OSC and ::, github")
def _(d):
    table = m2.H100_TABLE.replace("NVIDIA H100 80GB HBM3", f"H100{OSC}::error title=PWNED4::x",
                                  1)
    (d / "p.txt").write_text(table)
    return dict(args=["check", "--from", str(d / "p.txt"), "--format", "github"], rc=ANY,
                bound=6, check=m3.all_of(no_forged_line, m3.no_workflow))


@fault("4P05", "paste", "explain: a traceback with a 4 MB line of escapes")
def _(d):
    (d / "tb.txt").write_text(TB + "x" + "\x1b[31m" * 800000 + "\n")
    return dict(args=["explain", str(d / "tb.txt")], rc={0, 1, 2}, bound=8)


# --------------------------------------------------------------------------- writes
@fault("4W01", "writes", "-o a path whose name holds OSC 52, a newline and ::error")
def _(d):
    return dict(args=["check", "--static", "-o", f"{d}/nope/\x1b]52;c;eA==\x07x\n::error "
                      f"title=PWNED4::y"], rc=m.ONE_LINE_2, bound=6, check=m3.no_workflow)


@fault("4W02", "writes", "--report junit:FILE where FILE is a symlink to /dev/full")
def _(d):
    (d / "out.xml").symlink_to("/dev/full")
    return dict(args=["check", "--static", "--report", f"junit:{d}/out.xml"], rc=m.ONE_LINE_2,
                bound=6)


@fault("4W03", "writes", "-o a symlink loop")
def _(d):
    (d / "outa").symlink_to(d / "outb")
    (d / "outb").symlink_to(d / "outa")
    return dict(args=["check", "--static", "-o", str(d / "outa")], rc=m.ONE_LINE_2, bound=6)


# --------------------------------------------------------------------------- signals
def _never(signum: int, args: list[str]):
    def build(d):
        return dict(args=args, stdin=("cmd", ["sleep", "1000"]), bound=6,
                    signal=(signum, 1.5, False), rc={128 + signum, -signum}, check=m.one_line)
    return build


fault("4G01", "signals", "SIGTERM during `explain /dev/stdin` of a pipe that never closes")(
    _never(signal.SIGTERM, ["explain", "/dev/stdin", "--no-facts"]))
fault("4G02", "signals", "SIGHUP during `check --from /dev/stdin` of a pipe that never closes")(
    _never(signal.SIGHUP, ["check", "--from", "/dev/stdin"]))
fault("4G03", "signals", "SIGINT during `diff /dev/stdin B` of a pipe that never closes")(
    _never(signal.SIGINT, ["diff", "/dev/stdin", "/dev/null"]))


@fault("4G04", "signals", "SIGTERM while nvidia-smi's setsid grandchild hangs")
def _(d):
    env = tool(d, "nvidia-smi", f'touch "{d}/started"; setsid sleep 1000; sleep 1000')
    return dict(args=STATIC_JSON, env=env, bound=6, rc={143, -15},
                signal=(signal.SIGTERM, "started", False), check=m.one_line)


@functools.cache
def _cache_dir() -> Path:
    """The warm rule cache ``matrix.warm_rule_cache`` builds (once per process): every matrix
    shares it, and its large-input anchors are chosen before any bound is timed."""
    return Path(m.warm_rule_cache(m.ROOT)["XDG_CACHE_HOME"]).parent


def run_fault(fid: str, python: str = sys.executable, slack: float = 1.0, keep: bool = False
              ) -> dict:
    spec_build = FAULTS[fid][2]

    def build(d):
        spec = spec_build(d)
        spec.setdefault("rc", ANY)
        # one warm rule cache per source tree: a fault's bound is its own cost, not a rebuild
        env = spec.setdefault("env", {})
        env.setdefault("XDG_CACHE_HOME", str(_cache_dir() / "cache"))
        env.setdefault("XDG_STATE_HOME", str(_cache_dir() / "state"))  # the cache's seal key
        return spec
    faults = {fid: (FAULTS[fid][0], FAULTS[fid][1], build)}
    return m3.run_fault(fid, python, slack, keep, faults=faults)


def main() -> None:
    m3.run_cli(FAULTS, run_fault, "fault4-results.json")


if __name__ == "__main__":
    main()
