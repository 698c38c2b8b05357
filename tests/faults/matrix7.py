"""Seventh fault matrix: faults no earlier matrix, tests/test_hostile_inputs.py or
tests/test_adv_boundaries.py lists.

Usage (from the repository root):
  python tests/faults/matrix7.py [--root SRC] [--out results.json] [--only ID,...]
tests/faults/test_faults7.py runs it under pytest (``-m boundary``); MATRIX7.md holds the table.

Classes: ``args`` (the command line itself: an invalid choice holding an escape and a token,
an unknown option, a value out of range, a missing argument, an unknown command: click's own
errors), ``numbers`` (float options given nan, inf and 1e999), ``gate`` (policies: a BOM,
UTF-16, duplicate keys, non-finite numbers, 200 000 requirements, 100 000 ignores, thousands
of ``--require``), ``json`` (snapshots with duplicate keys, in check, diff and fleet compare, a
UTF-8 BOM, UTF-16), ``secrets`` (a token written as a URL's user name, in a pasted error line,
a pasted log, an environment value; JWT, PEM, Azure and MongoDB shapes in a paste), ``writes``
(a signal while the output's temporary file is being made durable), ``env`` (PYTHONIOENCODING
ascii, XDG folders that are files, a missing TMPDIR, no HOME, COLUMNS 0/-1/abc) and ``stdin``
(a closed stdin).

Every fault is also judged by ``matrix3.universal`` (no exit 3 or traceback, exit 2 with one
stderr line, no raw C0/C1 control character, none of matrix3's planted credentials, bounded
time, nothing left running); secrets here add ``SECRETS7``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.faults import matrix as m
    from tests.faults import matrix3 as m3
    from tests.faults import matrix4 as m4
else:
    from . import matrix as m
    from . import matrix3 as m3
    from . import matrix4 as m4

FAULTS: dict[str, tuple[str, str, object]] = {}


def fault(fid: str, category: str, title: str):
    def deco(fn):
        FAULTS[fid] = (category, title, fn)
        return fn
    return deco


# --------------------------------------------------------------------------- planted data
GHP7 = "ghp_PLANTED7githubTokenZyXwVuTsRqPoNmLkJi"
HF7 = "hf_PLANTED7hfTokenZyXwVuTsRqPo"
# a classic GitHub token (40 hex) as git documents it: https://<token>@github.com/owner/repo
HEX7 = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c"
URLTOK7 = "PLANTED7urlUserToken0123456789"
MONGO7 = "PLANTED7mongoPw"
AZURE7 = "PLANTED7azureKey0123456789abcdefghij=="
JWT7 = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJQTEFOVEVEN2p3dCJ9.PLANTED7jwtSigAbcdefgh"
PEM7 = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQPLANTED7pemBody"
SECRETS7 = [GHP7, HF7, HEX7, URLTOK7, MONGO7, AZURE7, JWT7, PEM7]
OSC52 = "\x1b]52;c;cHduZWQ=\x07"
ANY = {0, 1}
TWO = {2}
TB = m4.TB
snap = m4.snap


def no_secret7(out, err, d):
    text = out + err + m3.written(d)
    leaked = [s[:14] for s in SECRETS7 if s in text]
    return f"leaked {leaked}" if leaked else ""


def shows(*needles: str):
    """The channel is exercised: each needle (a canary next to the planted data) shows."""
    def check(out, err, d):
        text = out + err + m3.written(d)
        missing = [n for n in needles if n not in text]
        return f"canary {missing} missing (channel not exercised)" if missing else ""
    return check


def says(*needles: str):
    """The one stderr line names what was wrong."""
    def check(out, err, d):
        missing = [n for n in needles if n not in err]
        return f"stderr {err.strip()[-160:]!r} lacks {missing}" if missing else ""
    return check


def one_line(out, err, d):
    return m.one_line(out, err, d)


def all_of(*checks):
    return m3.all_of(*checks)


def _write(p: Path, text: str) -> str:
    p.write_text(text)
    return str(p)


# --------------------------------------------------------------------------- args
@fault("7A01", "args", "check --format VALUE holding OSC 52 and a GitHub token")
def _(d):
    return dict(args=["check", "--format", f"x{OSC52}{GHP7}"], rc=TWO, bound=6,
                check=all_of(one_line, no_secret7, says("--format")))


@fault("7A02", "args", "check with an unknown option whose name holds a CSI escape")
def _(d):
    return dict(args=["check", "--nosuch\x1b[31m"], rc=TWO, bound=6,
                check=all_of(one_line, says("--nosuch")))


@fault("7A03", "args", "explain --max-mb 0 (out of its range)")
def _(d):
    (d / "tb.txt").write_text(TB)
    return dict(args=["explain", "--max-mb", "0", str(d / "tb.txt")], rc=TWO, bound=6,
                check=all_of(one_line, says("--max-mb")))


@fault("7A04", "args", "diff with one snapshot (a missing argument)")
def _(d):
    return dict(args=["diff", str(snap(d))], rc=TWO, bound=6, check=one_line)


@fault("7A05", "args", "an unknown command holding a token and a bidi override")
def _(d):
    return dict(args=[f"chek\u202e{GHP7}"], rc=TWO, bound=6,
                check=all_of(one_line, no_secret7, m3.no_bidi))


@fault("7A06", "args", "--fail-on given invalid UTF-8 bytes (surrogate-escaped argv)")
def _(d):
    bad = os.fsdecode(b"err\xff\xfeor")
    return dict(args=["check", "--facts", str(snap(d)), "--fail-on", bad], rc=TWO, bound=6,
                check=one_line)


@fault("7A07", "args", "a token in a --policy path that does not exist")
def _(d):
    return dict(args=["check", "--facts", str(snap(d)), "--policy", f"/nonexistent/{HF7}.toml"],
                rc=TWO, bound=6, check=all_of(one_line, no_secret7))


# --------------------------------------------------------------------------- numbers
def _timeout(value: str):
    def build(d):
        return dict(args=["check", "--timeout", value], rc=TWO, bound=30,
                    check=all_of(one_line, says("--timeout")))
    return build


fault("7U01", "numbers", "check --timeout nan")(_timeout("nan"))
fault("7U02", "numbers", "check --timeout inf")(_timeout("inf"))
fault("7U03", "numbers", "check --timeout 1e999 (overflows to inf)")(_timeout("1e999"))
fault("7U04", "numbers", "check --timeout -nan")(_timeout("-nan"))


@fault("7U05", "numbers", "suggest --online --online-timeout nan (an index on a closed port)")
def _(d):
    return dict(args=["suggest", "--online", "--online-timeout", "nan", "--index-url",
                      "http://127.0.0.1:9/simple", "torch"], rc=TWO, bound=8,
                check=all_of(one_line, says("--online-timeout")))


# --------------------------------------------------------------------------- gate
def _policy(d: Path, body: bytes | str, name: str = "p.toml") -> Path:
    p = d / name
    if isinstance(body, str):
        body = body.encode()
    p.write_bytes(body)
    return p


def _gate(d: Path, body, rc=TWO, bound=8, check=one_line, extra=()):
    return dict(args=["check", "--facts", str(snap(d)), "--policy", str(_policy(d, body)),
                      *extra], rc=rc, bound=bound, check=check)


@fault("7P01", "gate", "policy with a UTF-8 BOM (a Windows editor) is read")
def _(d):
    return _gate(d, b'\xef\xbb\xbfrequire = ["gpus>=2"]\n', rc={1},
                 check=shows("gpus>=2"))


@fault("7P02", "gate", "policy in UTF-16 with a BOM")
def _(d):
    return _gate(d, 'require = ["gpus>=2"]\n'.encode("utf-16"))


@fault("7P03", "gate", "policy with a duplicate key (require twice)")
def _(d):
    return _gate(d, 'require = ["gpus>=1"]\nrequire = ["gpus>=2"]\n')


@fault("7P04", "gate", "policy numbers nan and inf (TOML allows them)")
def _(d):
    return _gate(d, 'expect = nan\nfail_on = inf\n')


@fault("7P05", "gate", "policy with 200 000 requirements (2 MB, under the 4 MB cap)")
def _(d):
    body = "require = [" + ",".join(['"gpus>=1"'] * 200000) + "]\n"
    return _gate(d, body, bound=8)


@fault("7P06", "gate", "policy ignoring 100 000 (valid-looking) check codes")
def _(d):
    import itertools
    import string
    codes = [f"{''.join(p)}{n:03d}" for p in itertools.product(string.ascii_uppercase, repeat=3)
             for n in range(6)][:100000]
    body = "ignore = {" + ",".join(f'{c} = "r"' for c in codes) + "}\n"
    return _gate(d, body, bound=8)


@fault("7P07", "gate", "--require given 3000 times on the command line")
def _(d):
    reqs = [x for _ in range(3000) for x in ("--require", "gpus>=1")]
    return dict(args=["check", "--facts", str(snap(d)), *reqs], rc=TWO, bound=5, check=one_line)


@fault("7P08", "gate", "a requirement holding OSC 52 and a token: the error line is clean")
def _(d):
    return _gate(d, f'require = ["torch>=2.4\\u001b]52;c;cHduZWQ=\\u0007{GHP7}"]\n',
                 check=all_of(one_line, no_secret7))


@fault("7P09", "gate", "./pyproject.toml in the working folder is a symlink loop")
def _(d):
    (d / "pyproject.toml").symlink_to(d / "pyproject.toml")
    return dict(args=["check", "--facts", str(snap(d))], rc={0, 1, 2}, bound=8)


# --------------------------------------------------------------------------- json
def _dup_snapshot(d: Path, name: str = "dup.json") -> Path:
    """A snapshot whose "nvidia" section is written twice: a healthy one first (what a
    first-wins reader, a reviewer or a jq -s '.[0]' sees), an old driver last."""
    good = m3.snapshot()
    good["nvidia"]["driver_version"] = "560.35.03"
    good["nvidia"]["cuda_driver_version"] = "12.6"
    text = json.dumps(good)
    bad = json.dumps(m3.snapshot()["nvidia"])
    text = text[:-1] + f', "nvidia": {bad}}}'
    p = d / name
    p.write_text(text)
    return p


@fault("7J01", "json", "check --facts: a snapshot with a duplicate key (nvidia twice)")
def _(d):
    return dict(args=["check", "--facts", str(_dup_snapshot(d))], rc=TWO, bound=8,
                check=all_of(one_line, says("nvidia")))


@fault("7J02", "json", "diff: one side has a duplicate key")
def _(d):
    return dict(args=["diff", str(snap(d)), str(_dup_snapshot(d))], rc=TWO, bound=8,
                check=one_line)


@fault("7J03", "json", "fleet compare: a node snapshot with a duplicate key is not compared")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    snap(nodes, "a.json")
    snap(nodes, "b.json", host__hostname="node-b")
    _dup_snapshot(nodes, "c.json")

    def check(out, err, d):
        return "" if "c.json" in out + err and "twice" in out + err else \
            "the node with a duplicate key was compared without a word"
    return dict(args=["fleet", "compare", str(nodes), "--show-hosts"], rc={0, 1, 2}, bound=10,
                check=check)


@fault("7J04", "json", "check --facts: a snapshot with a UTF-8 BOM")
def _(d):
    p = snap(d)
    p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())
    return dict(args=["check", "--facts", str(p)], rc={1}, bound=8, check=shows("DRV001"))


@fault("7J05", "json", "check --facts: a snapshot in UTF-16 with a BOM")
def _(d):
    p = snap(d)
    p.write_bytes(p.read_text().encode("utf-16"))
    return dict(args=["check", "--facts", str(p)], rc=TWO, bound=8, check=one_line)


# --------------------------------------------------------------------------- secrets
def _error_line(extra: str) -> str:
    return ("Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\n"
            "RuntimeError: CUDA error: no kernel image is available for execution on the device"
            f" ({extra})\n")


@fault("7K01", "secrets", "explain json: a classic token as a URL's user name on the error line")
def _(d):
    (d / "tb.txt").write_text(_error_line(f"git clone https://{HEX7}@github.com/org/x.git"))
    return dict(args=["explain", "--format", "json", str(d / "tb.txt")], rc=ANY, bound=10,
                check=all_of(no_secret7, shows("github.com")))


@fault("7K02", "secrets", "explain text: https://TOKEN@host (no password) on the error line")
def _(d):
    (d / "tb.txt").write_text(_error_line(f"pip install --index-url "
                                          f"https://{URLTOK7}@pkgs.example.com/simple x"))
    return dict(args=["explain", str(d / "tb.txt")], rc=ANY, bound=10,
                check=all_of(no_secret7, shows("pkgs.example.com")))


@fault("7K03", "secrets", "check -v json: TORCH_MODEL_ZOO=https://TOKEN@host/zoo in env")
def _(d):
    return dict(args=["check", "--static", "-v", "--format", "json"], rc=ANY, bound=12,
                env={"TORCH_MODEL_ZOO": f"https://{URLTOK7}@pkgs.example.com/zoo",
                     "TORCH_HUB_MIRROR": f"https://{HEX7}@ghe.example.com/hub"},
                check=all_of(no_secret7, shows("pkgs.example.com")))


@fault("7K04", "secrets", "explain json: JWT, PEM, Azure and MongoDB shapes on the error line")
def _(d):
    body = _error_line(f"jwt {JWT7} AccountKey={AZURE7}; mongodb+srv://admin:{MONGO7}@c0.ex.net")
    body += f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM7}\n-----END OPENSSH PRIVATE KEY-----\n"
    (d / "tb.txt").write_text(body)
    return dict(args=["explain", "--format", "json", str(d / "tb.txt")], rc=ANY, bound=10,
                check=all_of(no_secret7, shows("no kernel image")))


@fault("7K05", "secrets", "explain - markdown: https://TOKEN@host on the error line, on stdin")
def _(d):
    return dict(args=["explain", "-", "--format", "markdown"], rc=ANY, bound=10,
                stdin=_write(d / "tb.txt",
                             _error_line(f"https://{URLTOK7}@pkgs.example.com/simple/torch/")),
                check=all_of(no_secret7, shows("pkgs.example.com")))


# --------------------------------------------------------------------------- writes
_SLOW_FSYNC = """\
import os, time
_fsync = os.fsync
def fsync(fd):
    flag = os.environ.get("EDFAULT_SLOW_FSYNC")
    if flag:  # a slow disk (NFS, a busy SSD): the output is written, not yet durable
        open(flag, "w").close()
        time.sleep(30)
    return _fsync(fd)
os.fsync = fsync
"""


def _slow_disk(d: Path) -> dict:
    site = d / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_SLOW_FSYNC)
    return {"PYTHONPATH": str(site), "EDFAULT_SLOW_FSYNC": str(d / "syncing")}


def _no_torn(name: str, old: str):
    def check(out, err, d):
        left = sorted(p.name for p in d.iterdir() if p.name.endswith(".tmp"))
        if left:
            return f"temporary files left: {left}"
        target = d / name
        if target.exists() and target.read_text() != old:
            return f"{name} was changed by a run that did not finish"
        return ""
    return check


@fault("7W01", "writes", "SIGTERM while check -o FILE waits on a slow fsync: no .tmp left")
def _(d):
    (d / "out.txt").write_text("OLD\n")
    return dict(args=["check", "--facts", str(snap(d)), "-o", str(d / "out.txt")],
                env=_slow_disk(d), rc={143, -15}, bound=10,
                signal=(signal.SIGTERM, "syncing", False),
                check=all_of(one_line, _no_torn("out.txt", "OLD\n")))


@fault("7W02", "writes", "SIGINT while --report json:FILE waits on a slow fsync")
def _(d):
    (d / "out.json").write_text("OLD\n")
    return dict(args=["check", "--facts", str(snap(d)), "--report", f"json:{d}/out.json"],
                env=_slow_disk(d), rc={130, -2}, bound=10,
                signal=(signal.SIGINT, "syncing", False),
                check=all_of(one_line, _no_torn("out.json", "OLD\n")))


@fault("7W03", "writes", "SIGHUP while `facts -o FILE` waits on a slow fsync")
def _(d):
    return dict(args=["facts", "-o", str(d / "out.json")], env=_slow_disk(d), rc={129, -1},
                bound=12, signal=(signal.SIGHUP, "syncing", False),
                check=all_of(one_line, _no_torn("out.json", "")))


# --------------------------------------------------------------------------- env
@fault("7E01", "env", "PYTHONIOENCODING=ascii:strict, text output with ✓ and ≤")
def _(d):
    return dict(args=["check", "--facts", str(snap(d))], rc={1}, bound=8,
                env={"PYTHONIOENCODING": "ascii:strict"}, check=shows("DRV001"))


@fault("7E02", "env", "XDG_CACHE_HOME, XDG_STATE_HOME and XDG_CONFIG_HOME are files")
def _(d):
    (d / "f").write_text("x")
    (d / "tb.txt").write_text(TB)
    f = str(d / "f")
    return dict(args=["explain", str(d / "tb.txt"), "--no-facts"], rc=ANY, bound=30,
                env={"XDG_CACHE_HOME": f, "XDG_STATE_HOME": f, "XDG_CONFIG_HOME": f},
                check=shows("no kernel image"))


@fault("7E03", "env", "TMPDIR names a folder that does not exist, check -o FILE")
def _(d):
    return dict(args=["check", "--facts", str(snap(d)), "-o", str(d / "out.txt")], rc={1},
                bound=8, env={"TMPDIR": str(d / "missing")}, check=shows("DRV001"))


@fault("7E04", "env", "no HOME at all, explain a rule code")
def _(d):
    return dict(args=["explain", "ETORCH001"], rc={0}, bound=8, env={"HOME": None},
                check=shows("ETORCH001"))


@fault("7E05", "env", "COLUMNS=0, LINES=-1, TERM=dumb, NO_COLOR=1: text output")
def _(d):
    return dict(args=["check", "--facts", str(snap(d))], rc={1}, bound=8,
                env={"COLUMNS": "0", "LINES": "-1", "TERM": "dumb", "NO_COLOR": "1"},
                check=shows("DRV001"))


# --------------------------------------------------------------------------- stdin
@fault("7S01", "stdin", "explain with stdin closed (no FILE given)")
def _(d):
    return dict(args=["explain"], stdin="closed", rc=TWO, bound=8, check=one_line)


@fault("7S02", "stdin", "check --from - with stdin closed")
def _(d):
    return dict(args=["check", "--from", "-"], stdin="closed", rc=TWO, bound=8, check=one_line)


# --------------------------------------------------------------------------- injection
EVIL_NAME = ('RTX"} evil_metric{a="b"} 1\n# ```\n</failure>]]><x/>|col|` ``` '
             '[click](javascript:alert(1)) <img src=x onerror=alert(1)> =cmd|\' /C calc\'!A0')


def _evil(d: Path) -> Path:
    return snap(d, nvidia__gpus__0__name=EVIL_NAME, host__hostname='node"}\nfake_up 1')


_PROM_LINE = (r'^(#.*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*"'
              r',?)*\})? -?[0-9.eE+-]+|NaN|)$')


def prometheus_ok(out, err, d):
    import re
    bad = [ln for ln in out.splitlines() if not re.match(_PROM_LINE, ln)]
    forged = [ln for ln in out.splitlines() if ln.startswith(("evil_metric", "fake_up"))]
    return f"lines outside the exposition format: {(bad + forged)[:2]}" if bad or forged else ""


@fault("7I01", "injection", "prometheus: a GPU name and host name closing the label and a line")
def _(d):
    return dict(args=["check", "-v", "--facts", str(_evil(d)), "--format", "prometheus"],
                rc={1}, bound=8, check=prometheus_ok)


@fault("7I02", "injection", "junit: a GPU name holding ]]>, </failure> and XML markup")
def _(d):
    def check(out, err, d):
        import xml.dom.minidom
        try:
            xml.dom.minidom.parseString(out)
        except Exception as exc:  # noqa: BLE001
            return f"JUnit XML does not parse: {exc}"
        return "" if "<x/>" not in out else "raw markup from the input"
    return dict(args=["check", "-v", "--facts", str(_evil(d)), "--format", "junit"], rc={1},
                bound=8, check=check)


@fault("7I03", "injection", "report markdown: a GPU name that closes a code fence, links js")
def _(d):
    def check(out, err, d):
        fences = [ln for ln in out.splitlines() if ln.lstrip().startswith("```")]
        if len(fences) % 2:
            return "an odd number of code fences: the input closed one"
        import re
        prose, inside = [], False
        for ln in out.splitlines():  # what a renderer reads as markdown: outside the fences
            if ln.lstrip().startswith("```"):
                inside = not inside
            elif not inside:
                prose.append(ln)
        text = "\n".join(prose)
        bad = [t for t in (r"<img", r"(?<!\\)\]\(javascript:", r"</failure>")
               if re.search(t, text)]
        return f"live markup {bad}" if bad else ""
    return dict(args=["report", "--facts", str(_evil(d))], rc={0, 1}, bound=10, check=check)


# --------------------------------------------------------------------------- runner
_WARM: set[str] = set()


def warm(python: str = sys.executable) -> None:
    """Fill the shared rule cache once (a cold one costs ~10 s of explain's anchor build,
    which is no fault's cost)."""
    import subprocess
    import tempfile
    if python in _WARM:
        return
    _WARM.add(python)
    with tempfile.TemporaryDirectory() as tmp:
        tb = Path(tmp) / "tb.txt"
        tb.write_text(TB)
        env = dict(os.environ, XDG_CACHE_HOME=str(m4._cache_dir() / "cache"),
                   XDG_STATE_HOME=str(m4._cache_dir() / "state"), HOME=tmp)
        if m.ROOT:
            env["PYTHONPATH"] = m.ROOT
        subprocess.run([python, "-m", "envdoctor", "explain", str(tb), "--no-facts"],
                       env=env, cwd=tmp, capture_output=True, timeout=120)


def run_fault(fid: str, python: str = sys.executable, slack: float = 1.0, keep: bool = False
              ) -> dict:
    spec_build = FAULTS[fid][2]
    warm(python)

    def build(d):
        spec = spec_build(d)
        spec.setdefault("rc", ANY)
        env = spec.setdefault("env", {})
        env.setdefault("XDG_CACHE_HOME", str(m4._cache_dir() / "cache"))
        env.setdefault("XDG_STATE_HOME", str(m4._cache_dir() / "state"))
        return spec
    faults = {fid: (FAULTS[fid][0], FAULTS[fid][1], build)}
    return m3.run_fault(fid, python, slack, keep, faults=faults)


def main() -> None:
    m3.run_cli(FAULTS, run_fault, "fault7-results.json")


if __name__ == "__main__":
    main()
