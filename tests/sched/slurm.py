"""A real single-host Slurm for tests: munged, slurmctld and slurmd from the Debian packages
(``slurm-wlm``, ``munge``), all in a temp folder with their own ports, key and socket, started
and stopped by the test. Nothing of the machine's own Slurm or munge is touched: clients find
this cluster through ``SLURM_CONF``."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

BINARIES = ("munged", "slurmctld", "slurmd", "srun", "scontrol", "sinfo")


def missing() -> str:
    """Why a real Slurm cannot run here ('' when it can)."""
    absent = [b for b in BINARIES if shutil.which(b) is None]
    if absent:
        return (f"{', '.join(absent)} not installed "
                "(apt-get install -y slurm-wlm munge; .ci/run does)")
    if os.geteuid() != 0:
        return "slurmd must run as root to launch tasks as the job's user"
    return ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(what: str, ready, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.2)
    raise TimeoutError(f"{what} not ready after {timeout:.0f} s")


class Cluster:
    def __init__(self, root: Path, extra_conf: str = "") -> None:
        self.root = root
        self.node = socket.gethostname().split(".")[0]
        self.conf = root / "slurm.conf"
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))
        self.extra_conf = extra_conf
        self.munge_pid = root / "munge" / "munged.pid"
        self.pids: list[int | None] = []

    def run(self, *argv: str, timeout: float = 60, **kw) -> subprocess.CompletedProcess[str]:
        kw.setdefault("env", self.env)
        return subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout,
                              cwd=self.root, **kw)

    def _write_conf(self) -> None:
        r = self.root
        self.conf.write_text("\n".join([
            "ClusterName=envdoctor-test",
            f"SlurmctldHost={self.node}(127.0.0.1)",
            f"SlurmctldPort={_free_port()}", f"SlurmdPort={_free_port()}",
            "SlurmUser=root", "SlurmdUser=root",
            "AuthType=auth/munge", f"AuthInfo=socket={r}/munge/munge.socket",
            "CredType=cred/munge",
            f"StateSaveLocation={r}/state", f"SlurmdSpoolDir={r}/spool",
            f"SlurmctldPidFile={r}/slurmctld.pid", f"SlurmdPidFile={r}/slurmd.pid",
            f"SlurmctldLogFile={r}/log/slurmctld.log", f"SlurmdLogFile={r}/log/slurmd.log",
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "MpiDefault=none",
            "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU",
            "SchedulerType=sched/builtin", "JobCompType=jobcomp/none",
            "AccountingStorageType=accounting_storage/none",
            "JobAcctGatherType=jobacct_gather/none", "ReturnToService=2",
            self.extra_conf,
            f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN",
            "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP", ""]))

    def start(self) -> None:
        r = self.root
        for sub in ("munge", "state", "spool", "log"):
            (r / sub).mkdir(parents=True, exist_ok=True)
        (r / "munge").chmod(0o711)
        key = r / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        self._write_conf()
        m = self.run("munged", "--force", f"--key-file={key}",
                     f"--socket={r}/munge/munge.socket", f"--pid-file={self.munge_pid}",
                     f"--log-file={r}/munge/munged.log", f"--seed-file={r}/munge/seed")
        if m.returncode:
            raise RuntimeError(f"munged: {m.stderr.strip()}")
        for daemon in (["slurmctld", "-i"], ["slurmd"]):
            d = self.run(*daemon)
            if d.returncode:
                raise RuntimeError(f"{daemon[0]}: {d.stderr.strip()} {self.logs()}")
        _wait("the node", self.node_ready)
        # the pids now: a daemon removes its pid file on shutdown, even when it then lingers
        # (slurmd waiting for a hung prolog)
        self.pids = [_pid(self.root / f) for f in ("slurmd.pid", "slurmctld.pid")]

    def node_ready(self) -> bool:
        r = self.run("sinfo", "-h", "-n", self.node, "-o", "%t", timeout=10)
        return r.returncode == 0 and r.stdout.strip().rstrip("*") in ("idle", "drain")

    def state(self) -> str:
        """idle, drain, drng ... without sinfo's flags (``*`` not responding for a moment:
        slurmd answers no ping while a HealthCheckProgram runs)."""
        return self.run("sinfo", "-h", "-n", self.node, "-o", "%t").stdout.strip().rstrip(
            "*~#!%$@^-")

    def reason(self) -> str:
        """The node's drain reason as Slurm stores it (no user or time stamp)."""
        out = self.run("scontrol", "show", "node", self.node).stdout
        for line in out.splitlines():
            line = line.strip()
            if line.startswith("Reason="):
                return line[len("Reason="):].rsplit(" [", 1)[0]
        return ""

    def logs(self) -> str:
        return " | ".join(p.read_text(errors="replace")[-600:]
                          for p in sorted((self.root / "log").glob("*.log")))

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.run("scancel", "--full", "-u", "root", timeout=10)
        with contextlib.suppress(Exception):
            self.run("scontrol", "shutdown", timeout=20)
        pids = self.pids or [_pid(self.root / f) for f in ("slurmd.pid", "slurmctld.pid")]
        for pid in [*pids, _pid(self.munge_pid)]:
            if pid is not None:
                _end(pid)


def _pid(pidfile: Path) -> int | None:
    try:
        return int(pidfile.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _end(pid: int) -> None:
    """The daemon ``pid`` and what it started (a prolog, its children) ended: SIGTERM, then
    SIGKILL after 10 s."""
    family = [pid, *_descendants(pid)]
    for sig, grace in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 2.0)):
        for p in family[1:]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, sig)
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if not _alive(pid):
                return
            time.sleep(0.1)


def _descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (read from /proc, children before grandchildren)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text(errors="replace")
                parents.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(
                    int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    found, todo = [], [pid]
    while todo:
        kids = parents.get(todo.pop(0), [])
        found += kids
        todo += kids
    return found


def _alive(pid: int) -> bool:
    """Running, not a zombie (a daemon whose parent is a PID 1 that does not reap)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@contextlib.contextmanager
def cluster(root: Path, extra_conf: str = "") -> Iterator[Cluster]:
    c = Cluster(root, extra_conf)
    try:
        c.start()
        yield c
    finally:
        c.stop()
