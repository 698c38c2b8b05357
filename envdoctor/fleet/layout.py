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
# ranks one job may declare: rank 0 asks the store about every rank it expects (~0.5 ms each),
# so a WORLD_SIZE no launcher sets (2147483647: an overflow, a typo) would keep it far past
# its bounds; the largest jobs run ~100 000 ranks
MAX_WORLD = 1 << 17


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


def _shown(value: str) -> str:
    """A variable's value as an error line quotes it: credentials out first, then cut (a cut
    token is no longer recognised as one), escapes spelled out."""
    from envdoctor.secrets import credentials, scrub
    return repr(credentials(scrub(value))[:40])


def _int(env: Mapping[str, str], name: str) -> int | None:
    value = env.get(name, "").strip()
    if not value:
        return None
    try:
        number = int(value) if value.isascii() and len(value) <= 4300 else None
    except ValueError:
        number = None
    if number is None:
        raise LayoutError(f"${name}={_shown(value)} is not an integer")
    if not 0 <= number < 1 << 31:  # ranks, sizes, ports and job ids
        raise LayoutError(f"${name}={_shown(value)} is out of range")
    return number


def _need(env: Mapping[str, str], name: str) -> int:
    value = _int(env, name)
    if value is None:
        raise LayoutError(f"${name} is not set")
    return value


def first_host(nodelist: str) -> str:
    """The first host of a Slurm host list: ``gpu[003-010,017],cpu1`` -> ``gpu003``.

    Only the first entry is expanded, by one linear scan (each bracket is stepped over once:
    the list may be huge, or 64 kB of unclosed brackets); an unclosed bracket is kept as it
    is, for ``master_host`` to refuse.
    """
    text = nodelist[:MAX_NODELIST].strip()
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == ",":
            break
        if ch != "[":
            out.append(ch)
            i += 1
            continue
        close = text.find("]", i)
        if close < 0:
            out.append(text[i:])
            break
        # a bracket stands for a range list: its first number is the first host's part
        j = i + 1
        while j < close and "0" <= text[j] <= "9":
            j += 1
        out.append(text[i + 1:j])
        i = close + 1
    return "".join(out)


# what torch's TCP store is given to connect to: a DNS name (RFC 1123, plus the '_' some
# clusters' /etc/hosts use), an IPv4 address or an IPv6 one (with a zone, in brackets or not)
_HOST = re.compile(r"^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,252})|\[?[0-9A-Fa-f:.]{2,45}"
                   r"(?:%[A-Za-z0-9_.-]{1,64})?\]?)$")


def master_host(value: str, name: str) -> str:
    """``value`` when it is a host name or address, else LayoutError (checked before torch sees
    it: torch's C++ store prints the name raw on stderr, many times, before it gives up)."""
    if value and not _HOST.match(value):
        raise LayoutError(f"{name}={_shown(value)} is not a host name or address")
    return value


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
    addr = master_host(env.get("MASTER_ADDR", "").strip(), "$MASTER_ADDR")
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
                        addr or (master_host(first_host(nodelist), "the first host of "
                                             "$SLURM_JOB_NODELIST") if nodelist else ""),
                        # one port per job, the same in every task of it
                        _port(env, 20000 + job % 20000), store_file)
    else:
        raise LayoutError("no launcher found: run under torchrun, srun or mpirun, or set RANK "
                          "and WORLD_SIZE (see `envdoctor fleet --help`)")
    if layout.world_size < 1 or not 0 <= layout.rank < layout.world_size:
        raise LayoutError(f"rank {layout.rank} does not fit world size {layout.world_size}")
    if layout.world_size > MAX_WORLD:
        raise LayoutError(f"world size {layout.world_size} is more ranks than any job runs "
                          f"(envdoctor fleet reads at most {MAX_WORLD})")
    if not layout.master_addr and not layout.store_file:
        raise LayoutError(f"{layout.launcher}: no MASTER_ADDR to meet at; set MASTER_ADDR and "
                          "MASTER_PORT, or give --store FILE on a shared file system")
    return layout
