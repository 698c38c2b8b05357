"""The fleet fault matrix: one table of faults, each a real job on this box, and one judge.

A job is two "nodes" (two torchrun agents with --nnodes 2 --node-rank, or ranks started
directly with the torch.distributed variables, as srun or mpirun start them), gloo on the
loopback. Each fault changes one thing (a rank killed, stopped, never started, slowed, a port
held, NumPy missing, a signal from the scheduler) and states what the report must say: which
ranks are named and in which state, on which node, what rank 0 exits with, whether the run
says it was cancelled. ``judge`` checks all of it, plus the time bound of ``fleet --help`` and
that no process of the job (found by a marker in its environment) is left.

``tests/fleet/test_fleet_matrix.py`` runs every row; ``python -m tests.fleet.matrix`` prints
the handled count (the figure in FLEET_MATRIX.md).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from envdoctor.probes.nvidia import SMI_TIMEOUT
from tests.fleet.conftest import REPO, free_port, rank_env

MARK = "ENVDOCTOR_MATRIX_MARK"
HELP_GRACE = 15.0     # `fleet --help`: a fault ends the run within S + 15 s after torch import
CANCEL_GRACE = 10.0   # `fleet --help`: a signalled rank has left within 10 s
SLACK = 25.0          # starting torchrun and importing torch (twice) on 2 shared cores
LOST = ("FLEET017", "FLEET036")


@dataclass(frozen=True)
class Fault:
    """One row. ``lost``: rank -> state (late, dead, absent) the report must name, and no
    other rank; ``nodes``: rank -> node rank where that rank must be placed."""

    name: str
    launcher: str = "torchrun"          # torchrun | direct
    inject: str = "none"                # what is done to the running job
    target: tuple[int, ...] = (1,)      # the ranks it is done to
    node_env: tuple[str, ...] = ("", "")  # per node: "", smi-hang, smi-slow, nonumpy, exit
    port: str = "free"                  # free | silent | garbage
    timeout: float = 10.0
    lost: dict[int, str] = field(default_factory=dict)
    nodes: dict[int, int] = field(default_factory=dict)
    rc0: int | None = 1                 # rank 0's exit code (None: rank 0 does not report)
    cancelled: str = ""                 # the signal the report must say cancelled the run
    failure: bool = False               # a FLEET037 (no rank's fault) finding expected
    compare_named: dict[int, str] | None = None  # what `fleet compare --out-dir` names
    rendezvous_waits: bool = False      # the rendezvous itself waits (2 x S bound)


FAULTS: list[Fault] = [
    Fault("healthy", rc0=0, compare_named={}),
    Fault("nonumpy", node_env=("nonumpy", "nonumpy"), rc0=0, compare_named={}),
    Fault("kill9-before-join", inject="kill-early", lost={1: "absent"},
          rendezvous_waits=True),
    Fault("kill9-after-join", inject="kill-probe", node_env=("", "smi-hang"),
          lost={1: "dead"}, nodes={1: 1}),
    Fault("kill9-rank0-after-join", inject="kill-probe", target=(0,),
          node_env=("smi-hang", ""), rc0=None, compare_named={0: "dead"}),
    Fault("sigstop-hung", inject="stop-probe", node_env=("", "smi-hang"),
          lost={1: "late"}, nodes={1: 1}),
    Fault("never-joins", node_env=("", "exit"), lost={1: "absent"}, rendezvous_waits=True),
    Fault("slow-within-timeout", node_env=("", "smi-slow"), timeout=14.0, rc0=None,
          compare_named={}),
    # the hung nvidia-smi is killed after SMI_TIMEOUT: --timeout well below it, so rank 1 is
    # still probing when rank 0 closes the arrival however the two ranks' clocks started
    Fault("probe-child-hangs", node_env=("", "smi-hang"), timeout=0.6 * SMI_TIMEOUT,
          lost={1: "late"}, nodes={1: 1}),
    Fault("silent-port", launcher="direct", port="silent", failure=True),
    Fault("busy-port-garbage", launcher="direct", port="garbage", failure=True),
    Fault("sigterm-every-rank", inject="signal-probe", target=(0, 1),
          node_env=("smi-hang", "smi-hang"), rc0=143, cancelled="SIGTERM", compare_named={}),
    Fault("scheduler-cancel-job", inject="signal-job", node_env=("smi-hang", "smi-hang"),
          target=(0, 1), rc0=143, cancelled="SIGTERM", compare_named={}),
    Fault("sigterm-rank0-only", inject="signal-probe", target=(0,),
          node_env=("smi-hang", ""), rc0=143, cancelled="SIGTERM"),
    Fault("sigint-every-rank", inject="signal-probe:INT", target=(0, 1),
          node_env=("smi-hang", "smi-hang"), rc0=130, cancelled="SIGINT", compare_named={}),
    Fault("sighup-every-rank", inject="signal-probe:HUP", target=(0, 1),
          node_env=("smi-hang", "smi-hang"), rc0=129, cancelled="SIGHUP", compare_named={}),
    Fault("sigterm-direct-every-rank", launcher="direct", inject="signal-probe",
          target=(0, 1), node_env=("smi-hang", "smi-hang"), rc0=143, cancelled="SIGTERM",
          compare_named={}),
]


# ---------------------------------------------------------------------------- node set-up
def _node_dir(root: Path, node: int, kind: str, timeout: float) -> dict[str, str]:
    """The environment one node's agent (and so its ranks) gets for ``kind``."""
    base = rank_env()
    env: dict[str, str] = {}
    if not kind:
        return env
    folder = root / f"node{node}"
    folder.mkdir(parents=True, exist_ok=True)
    if kind.startswith("smi-"):
        # smi-slow: its first call sleeps past half the timeout (once, however many calls
        # the probe makes), then it says what nvidia-smi says without a driver
        flag = folder / "slept"
        body = "while :; do sleep 1; done\n" if kind == "smi-hang" else \
            f"if [ ! -e '{flag}' ]; then : > '{flag}'; sleep {timeout * 0.6:.1f}; fi\n" \
            "echo 'NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA " \
            "driver.'\nexit 9\n"
        smi = folder / "nvidia-smi"
        smi.write_text("#!/bin/sh\n" + body)
        smi.chmod(0o755)
        env["PATH"] = f"{folder}:{base['PATH']}"
    elif kind == "nonumpy":
        (folder / "sitecustomize.py").write_text(
            "import sys\n"
            "class _NoNumpy:\n"
            "    @staticmethod\n"
            "    def find_spec(name, path=None, target=None):\n"
            "        if name == 'numpy' or name.startswith('numpy.'):\n"
            "            raise ModuleNotFoundError(\"No module named 'numpy'\", name=name)\n"
            "        return None\n"
            "sys.meta_path.insert(0, _NoNumpy)\n")
        env["PYTHONPATH"] = f"{folder}:{REPO}"
    elif kind == "exit":  # the rank's process ends before envdoctor runs (never joins)
        (folder / "sitecustomize.py").write_text(
            "import os\nif os.environ.get('RANK') not in (None, '0'):\n    os._exit(0)\n")
        env["PYTHONPATH"] = f"{folder}:{REPO}"
    return env


@contextmanager
def _port(kind: str) -> Iterator[int]:
    """MASTER_PORT: free, held by a listener that never answers, or one that answers junk."""
    if kind == "free":
        yield free_port()
        return
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("0.0.0.0", 0))
    sock.listen(64)
    sock.settimeout(0.2)
    held: list[socket.socket] = []
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            try:
                conn = sock.accept()[0]
            except OSError:
                continue
            held.append(conn)
            if kind == "garbage":
                try:
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n\xff\xfe" * 64)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1]
    finally:
        done.set()
        thread.join(5)
        for c in held:
            c.close()
        sock.close()


# ---------------------------------------------------------------------------- the job
@dataclass
class Job:
    fault: Fault
    root: Path
    mark: str
    procs: list[subprocess.Popen[str]] = field(default_factory=list)
    start: float = 0.0
    ended: dict[int, float] = field(default_factory=dict)   # proc index -> when it ended
    injected_at: float | None = None
    outputs: list[tuple[str, str]] = field(default_factory=list)

    def argv(self, node: int) -> list[str]:
        f = self.fault
        fleet = ["-m", "envdoctor", "fleet", "--static", "--timeout", str(f.timeout),
                 "--out-dir", str(self.root / "snaps"), "--format", "json",
                 "-o", str(self.root / "report.json")]
        if f.launcher == "direct":
            return [sys.executable, *fleet]
        return [sys.executable, "-m", "torch.distributed.run", "--nnodes", "2",
                "--node-rank", str(node), "--nproc-per-node", "1", "--max-restarts", "0",
                "--master-addr", "127.0.0.1", "--master-port", str(self.port),
                "--monitor-interval", "0.2", *fleet[1:]]

    port: int = 0

    def launch(self) -> None:
        self.start = time.monotonic()
        for node in range(2):
            env = rank_env(**{MARK: self.mark},
                           **_node_dir(self.root, node, self.fault.node_env[node],
                                       self.fault.timeout))
            if self.fault.launcher == "direct":
                env.update(RANK=str(node), WORLD_SIZE="2", LOCAL_RANK="0",
                           NODE_RANK=str(node), MASTER_ADDR="127.0.0.1",
                           MASTER_PORT=str(self.port))
            self.procs.append(subprocess.Popen(
                self.argv(node), env=env, cwd=REPO, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, start_new_session=True))

    def ranks(self) -> dict[int, psutil.Process]:
        """The envdoctor rank processes of this job (the agents' children), by RANK."""
        out = {}
        for p in marked(self.mark):
            try:
                cmd = p.cmdline()
                if "fleet" not in cmd or "torch.distributed.run" in cmd:
                    continue
                env = p.environ()
                if "-c" in cmd or "RANK" not in env:  # the torch import pre-flight child
                    continue
                if self.fault.launcher == "direct" or \
                        p.pid not in [c.pid for c in _agents(self)]:
                    out[int(env["RANK"])] = p
            except psutil.Error:
                continue
        return out

    def wait(self, limit: float) -> None:
        deadline = time.monotonic() + limit
        threads = []
        for i, proc in enumerate(self.procs):
            def reap(i: int = i, proc: subprocess.Popen[str] = proc) -> None:
                try:
                    out, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    _killpg(proc.pid)
                    out, err = proc.communicate()
                self.ended[i] = time.monotonic()
                self.outputs[i] = (out, err)
            threads.append(threading.Thread(target=reap, daemon=True))
        self.outputs = [("", "")] * len(self.procs)
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def _agents(job: Job) -> list[psutil.Process]:
    out = []
    for p in job.procs:
        try:
            out.append(psutil.Process(p.pid))
        except psutil.Error:
            pass
    return out


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def marked(mark: str) -> list[psutil.Process]:
    """Every live process whose environment carries this job's marker."""
    found = []
    me = os.getpid()
    for p in psutil.process_iter():
        if p.pid == me:
            continue
        try:
            if p.environ().get(MARK) == mark and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p)
        except psutil.Error:
            continue
    return found


def _in_probes(job: Job, rank: int, limit: float = 150.0) -> psutil.Process:
    """Rank ``rank``'s process once a fake nvidia-smi runs under it (past the rendezvous)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        proc = job.ranks().get(rank)
        if proc is not None:
            try:
                for child in proc.children(recursive=True):
                    if any("nvidia-smi" in part for part in child.cmdline()):
                        return proc
            except psutil.Error:
                pass
        time.sleep(0.1)
    raise AssertionError(f"rank {rank} never reached its probes")


def _early(job: Job, rank: int, limit: float = 120.0) -> psutil.Process:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        proc = job.ranks().get(rank)
        if proc is not None:
            return proc
        time.sleep(0.02)
    raise AssertionError(f"rank {rank} never started")


def inject(job: Job) -> None:
    f = job.fault
    kind, _, sig = f.inject.partition(":")
    number = getattr(signal, f"SIG{sig or 'TERM'}")
    if kind == "none":
        return
    if kind == "kill-early":
        proc = _early(job, f.target[0])
        proc.kill()
    elif kind == "kill-probe":
        _in_probes(job, f.target[0]).kill()
    elif kind == "stop-probe":
        _in_probes(job, f.target[0]).suspend()
    elif kind == "signal-probe":
        procs = [_in_probes(job, r) for r in f.target]
        time.sleep(0.5)
        for p in procs:
            p.send_signal(number)
    elif kind == "signal-job":  # what scancel does: every process of the step at once
        procs = [_in_probes(job, r) for r in f.target]
        time.sleep(0.5)
        for p in [*_agents(job), *procs]:
            try:
                p.send_signal(number)
            except psutil.Error:
                pass
    job.injected_at = time.monotonic()


# ---------------------------------------------------------------------------- the verdict
def _named(report: dict[str, Any]) -> dict[int, str]:
    """Rank -> state for every rank a late/lost finding names (from the report's fleet)."""
    codes = {f["code"] for f in report.get("findings", [])}
    ranks = {r for f in report.get("findings", []) if f["code"] in LOST
             for r in f.get("evidence", {}).get("ranks", ())}
    fleet = report.get("fleet", {})
    state = {**{r: "late" for r in fleet.get("late_ranks", [])},
             **{r: "dead" for r in fleet.get("dead_ranks", [])},
             **{r: "absent" for r in fleet.get("absent_ranks", [])}}
    if ranks - set(state):
        state.update({r: "?" for r in ranks - set(state)})
    if not codes & set(LOST):
        return {r: s for r, s in state.items() if r in ranks}
    return {r: state[r] for r in ranks | set(state)}


def _node_of(report: dict[str, Any], rank: int) -> int | None:
    for n in report.get("fleet", {}).get("nodes", []):
        if any(r["rank"] == rank for r in n["ranks"]):
            return n.get("node_rank")
    return None


def _torchrun_rc(err: str, rank: int) -> int | None:
    """A worker's exit code from torchrun's failure summary (None: not reported there)."""
    for block in re.split(r"\n\s*\[\d+\]:\n", err):
        m = re.search(r"rank\s*:\s*(\d+)\s*\(local_rank.*?\n\s*exitcode\s*:\s*(-?\d+)",
                      block, re.S)
        if m and int(m.group(1)) == rank:
            return int(m.group(2))
    return None


def _compare(root: Path) -> tuple[int, dict[str, Any] | None, str]:
    proc = subprocess.run([sys.executable, "-m", "envdoctor", "fleet", "compare",
                           str(root / "snaps"), "--format", "json"], env=rank_env(),
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    try:
        return proc.returncode, json.loads(proc.stdout), proc.stderr
    except ValueError:
        return proc.returncode, None, proc.stderr + proc.stdout[:500]


def _cancel_stated(report: dict[str, Any], name: str) -> bool:
    text = json.dumps([f.get("title", "") for f in report.get("findings", [])] +
                      report.get("fleet", {}).get("errors", []))
    return f"cancelled by {name}" in text


def run_fault(fault: Fault, root: Path) -> list[str]:
    """Run one row; the list of what went wrong (empty: handled)."""
    root.mkdir(parents=True, exist_ok=True)
    job = Job(fault, root, uuid.uuid4().hex)
    problems: list[str] = []
    with _port(fault.port) as port:
        job.port = port
        job.launch()
        try:
            try:
                inject(job)
            except AssertionError as exc:
                problems.append(str(exc))
            if fault.inject.startswith("stop"):
                time.sleep(0)  # resumed below, once rank 0 has reported
            limit = 2 * fault.timeout + HELP_GRACE + SLACK + 30
            if fault.inject.startswith("stop"):
                waiter = threading.Thread(target=job.wait, args=(limit,), daemon=True)
                waiter.start()
                _wait_report(root, fault.timeout * 2 + HELP_GRACE + SLACK)
                for p in job.ranks().values():
                    try:
                        p.resume()
                    except psutil.Error:
                        pass
                job.injected_at = time.monotonic()
                waiter.join()
            else:
                job.wait(limit)
        finally:
            leftover = _settle(job.mark)
            for p in marked(job.mark):
                try:
                    p.kill()
                except psutil.Error:
                    pass
    if leftover:
        problems.append(f"processes left: {leftover}")
    problems += _judge(job)
    return problems


def _wait_report(root: Path, limit: float) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end and not (root / "report.json").exists():
        time.sleep(0.2)


def _settle(mark: str, grace: float = 5.0) -> list[str]:
    end = time.monotonic() + grace
    while True:
        left = marked(mark)
        if not left or time.monotonic() >= end:
            out = []
            for p in left:
                try:
                    out.append(f"{p.pid} {' '.join(p.cmdline())[:120]}")
                except psutil.Error:
                    continue
            return out
        time.sleep(0.2)


def _judge(job: Job) -> list[str]:
    f, root = job.fault, job.root
    problems = []
    err = "\n".join(e for _, e in job.outputs)
    # the time bound: what --help states, from launch (plus starting torch) or from the signal
    bound = (2 if f.rendezvous_waits else 1) * f.timeout + HELP_GRACE + SLACK
    took = max(job.ended.values(), default=job.start) - job.start
    if job.injected_at is not None and f.inject.startswith(("signal", "stop")):
        after = max(job.ended.values(), default=job.injected_at) - job.injected_at
        if after > CANCEL_GRACE + 5.0:
            problems.append(f"left {after:.1f} s after the signal (> {CANCEL_GRACE} s)")
    elif took > bound:
        problems.append(f"took {took:.1f} s (> {bound:.0f} s)")
    # rank 0's exit code (a direct rank's own; under torchrun, its failure summary)
    if f.rc0 is not None and f.inject.startswith("signal-job"):
        # torchrun's agent, signalled itself, prints no per-rank exit codes: rank 0's line
        # (through the agent's stderr) says how it ended
        if "rank 0 on " not in err or f"cancelled by {f.cancelled}" not in err:
            problems.append("rank 0 did not say it was cancelled")
    elif f.rc0 is not None:
        if f.launcher == "direct":
            rc0 = job.procs[0].returncode
        else:
            rc0 = 0 if job.procs[0].returncode == 0 else _torchrun_rc(err, 0)
        if rc0 != f.rc0:
            problems.append(f"rank 0 exited {rc0}, expected {f.rc0}")
    report_file = root / "report.json"
    report: dict[str, Any] | None = None
    if report_file.exists():
        try:
            report = json.loads(report_file.read_text())
        except ValueError as exc:
            problems.append(f"report.json is not JSON: {exc}")
    if f.rc0 is not None and report is None:
        problems.append("rank 0 wrote no report")
    if report is not None:
        named = _named(report)
        if named != f.lost:
            problems.append(f"report names {named}, expected {f.lost}")
        for rank, node in f.nodes.items():
            if _node_of(report, rank) != node:
                problems.append(f"rank {rank} placed on node {_node_of(report, rank)}, "
                                f"expected {node}")
        codes = {x["code"] for x in report.get("findings", [])}
        if f.failure and "FLEET037" not in codes:
            problems.append("no FLEET037 (the store failed, no rank's fault)")
        if f.cancelled and not _cancel_stated(report, f.cancelled):
            problems.append(f"the report does not say 'cancelled by {f.cancelled}'")
        if not f.cancelled and not f.failure and not f.lost and f.rc0 == 0 and \
                not report.get("fleet", {}).get("complete"):
            problems.append("a healthy run reported incomplete")
    # the snapshots of the run, read back
    if (root / "snaps").is_dir():
        rc, compared, cerr = _compare(root)
        expect = f.compare_named if f.compare_named is not None else f.lost
        if compared is None:
            problems.append(f"fleet compare failed: {cerr[-300:]}")
        else:
            named = _named(compared)
            blamed = set(named) - set(f.lost) - set(f.target if f.inject != "none" else ())
            if blamed:
                problems.append(f"fleet compare names healthy ranks {sorted(blamed)}")
            if f.compare_named is not None or f.lost:
                if named != expect:
                    problems.append(f"fleet compare names {named}, expected {expect}")
            failed = bool(f.lost or f.cancelled or f.failure or f.compare_named)
            if failed and rc != 1:
                problems.append(f"fleet compare of a failed run exited {rc}")
            if not failed and f.rc0 == 0 and rc != 0:
                problems.append(f"fleet compare of a healthy run exited {rc}")
            if f.cancelled and not _cancel_stated(compared, f.cancelled):
                problems.append(f"fleet compare does not say 'cancelled by {f.cancelled}'")
    if "Traceback" in err:
        tb = err[err.index("Traceback"):][:300]
        if "envdoctor" in tb:
            problems.append(f"a traceback: {tb}")
    return problems


def main() -> int:
    import tempfile
    wanted = set(sys.argv[1:])
    results = {}
    for f in FAULTS:
        if wanted and f.name not in wanted:
            continue
        with tempfile.TemporaryDirectory(prefix=f"matrix-{f.name}-") as tmp:
            t = time.monotonic()
            problems = run_fault(f, Path(tmp))
            results[f.name] = problems
            print(f"{'ok  ' if not problems else 'FAIL'} {f.name} ({time.monotonic() - t:.0f} s)"
                  + "".join(f"\n     - {p}" for p in problems), flush=True)
    handled = sum(1 for p in results.values() if not p)
    print(f"handled {handled}/{len(results)}")
    return 0 if handled == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
