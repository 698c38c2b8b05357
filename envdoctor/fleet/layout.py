"""Which launcher started this rank, and where it sits: rank, local rank, node, world size.

Read from the environment the launcher sets, in this order (the first that fits wins):

* torchrun / torch.distributed.run (also ``accelerate launch``, which runs it):
  ``TORCHELASTIC_RUN_ID``, RANK, LOCAL_RANK, GROUP_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
  MASTER_ADDR, MASTER_PORT.
* any launcher that exports RANK and WORLD_SIZE (deepspeed, Kubernetes PyTorchJob, a script).
* Open MPI (``mpirun``): OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE.
* PMI (MPICH/Intel MPI hydra, Slurm's PMI): PMI_RANK, PMI_SIZE, MPI_LOCALRANKID.
* Slurm (``srun``): SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID, SLURM_NTASKS; MASTER_ADDR is the
  first host of SLURM_JOB_NODELIST when the job did not export one.

Open MPI is checked before Slurm because ``mpirun`` inside an ``sbatch`` script inherits the
batch step's SLURM_PROCID=0 in every rank. A node is the launcher's node rank on a host: two
torchrun agents on one host are two nodes (and that is how the tests simulate a cluster).
"""

from __future__ import annotations

import re
import socket
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

DEFAULT_PORT = 29500
MAX_NODELIST = 65536  # characters of SLURM_JOB_NODELIST read


class LayoutError(ValueError):
    """The environment names no usable rank layout; the message says what is missing."""


@dataclass(frozen=True)
class Layout:
    launcher: str                 # torchrun | env | openmpi | pmi | slurm
    rank: int
    world_size: int
    local_rank: int
    local_world_size: int | None
    node_rank: int | None         # the launcher's node index (torchrun GROUP_RANK, SLURM_NODEID)
    host: str
    master_addr: str = ""
    master_port: int = DEFAULT_PORT
    store_file: str = ""          # a shared-file rendezvous instead of MASTER_ADDR

    @property
    def node(self) -> str:
        """The node's name in a report: host, plus the node rank when the launcher has one."""
        return self.host if self.node_rank is None else f"{self.host}#{self.node_rank}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "node": self.node}


def _int(env: Mapping[str, str], name: str) -> int | None:
    value = env.get(name, "").strip()
    if not value:
        return None
    try:
        number = int(value) if value.isascii() and len(value) <= 4300 else None
    except ValueError:
        number = None
    if number is None:
        raise LayoutError(f"${name}={value[:40]!r} is not an integer")
    if not 0 <= number < 1 << 31:  # ranks, sizes, ports and job ids
        raise LayoutError(f"${name}={value[:40]!r} is out of range")
    return number


def _need(env: Mapping[str, str], name: str) -> int:
    value = _int(env, name)
    if value is None:
        raise LayoutError(f"${name} is not set")
    return value


def first_host(nodelist: str) -> str:
    """The first host of a Slurm host list: ``gpu[003-010,017],cpu1`` -> ``gpu003``.

    Only the first entry is expanded, by one linear scan; the list may be huge.
    """
    text = nodelist[:MAX_NODELIST].strip()
    depth, end = 0, len(text)
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            end = i
            break
    # each bracket stands for a range list: its first number is the first host's part
    return re.sub(r"\[([0-9]*)[^\]]*\]", lambda m: m.group(1), text[:end])


def _tasks_per_node(value: str) -> int | None:
    """SLURM_TASKS_PER_NODE ``4(x2),3`` -> 4 (this node's count is not known; the first is)."""
    match = re.match(r"^\s*([0-9]+)", value or "")
    return int(match.group(1)) if match else None


def _port(env: Mapping[str, str], default: int) -> int:
    port = _int(env, "MASTER_PORT")
    if port is None:
        return default
    if not 0 < port < 65536:
        raise LayoutError(f"$MASTER_PORT={port} is not a TCP port")
    return port


def hostname() -> str:
    return socket.gethostname() or "localhost"


def detect(env: Mapping[str, str], store_file: str = "", host: str | None = None) -> Layout:
    """The layout of this rank; LayoutError when no launcher's variables are complete."""
    host = host or hostname()
    store_file = store_file or env.get("ENVDOCTOR_FLEET_STORE", "")
    addr = env.get("MASTER_ADDR", "").strip()
    if env.get("TORCHELASTIC_RUN_ID") or (env.get("RANK") and env.get("WORLD_SIZE")):
        launcher = "torchrun" if env.get("TORCHELASTIC_RUN_ID") else "env"
        layout = Layout(launcher, _need(env, "RANK"), _need(env, "WORLD_SIZE"),
                        _int(env, "LOCAL_RANK") or 0, _int(env, "LOCAL_WORLD_SIZE"),
                        _int(env, "GROUP_RANK") if launcher == "torchrun"
                        else _int(env, "NODE_RANK") if "NODE_RANK" in env
                        else _int(env, "GROUP_RANK"),
                        host, addr, _port(env, DEFAULT_PORT), store_file)
    elif env.get("OMPI_COMM_WORLD_RANK"):
        layout = Layout("openmpi", _need(env, "OMPI_COMM_WORLD_RANK"),
                        _need(env, "OMPI_COMM_WORLD_SIZE"),
                        _int(env, "OMPI_COMM_WORLD_LOCAL_RANK") or 0,
                        _int(env, "OMPI_COMM_WORLD_LOCAL_SIZE"), None, host, addr,
                        _port(env, DEFAULT_PORT), store_file)
    elif env.get("PMI_RANK"):
        layout = Layout("pmi", _need(env, "PMI_RANK"), _need(env, "PMI_SIZE"),
                        _int(env, "MPI_LOCALRANKID") or 0, _int(env, "MPI_LOCALNRANKS"), None,
                        host, addr, _port(env, DEFAULT_PORT), store_file)
    elif env.get("SLURM_PROCID"):
        job = _int(env, "SLURM_JOB_ID") or _int(env, "SLURM_JOBID") or 0
        nodelist = env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST") or ""
        layout = Layout("slurm", _need(env, "SLURM_PROCID"),
                        _int(env, "SLURM_NTASKS") or _need(env, "SLURM_NPROCS"),
                        _int(env, "SLURM_LOCALID") or 0,
                        _int(env, "SLURM_NTASKS_PER_NODE")
                        or _tasks_per_node(env.get("SLURM_TASKS_PER_NODE", "")),
                        _int(env, "SLURM_NODEID"), host,
                        addr or (first_host(nodelist) if nodelist else ""),
                        # one port per job, the same in every task of it
                        _port(env, 20000 + job % 20000), store_file)
    else:
        raise LayoutError("no launcher found: run under torchrun, srun or mpirun, or set RANK "
                          "and WORLD_SIZE (see `envdoctor fleet --help`)")
    if layout.world_size < 1 or not 0 <= layout.rank < layout.world_size:
        raise LayoutError(f"rank {layout.rank} does not fit world size {layout.world_size}")
    if not layout.master_addr and not layout.store_file:
        raise LayoutError(f"{layout.launcher}: no MASTER_ADDR to meet at; set MASTER_ADDR and "
                          "MASTER_PORT, or give --store FILE on a shared file system")
    return layout
