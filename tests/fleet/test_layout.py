"""Launcher and rank layout from the environment each launcher really sets."""

from __future__ import annotations

import pytest

from envdoctor.fleet.layout import LayoutError, detect, first_host

# What torchrun (torch/distributed/elastic/agent/server/local_elastic_agent.py) exports.
TORCHRUN = {"TORCHELASTIC_RUN_ID": "job7", "RANK": "9", "LOCAL_RANK": "1", "GROUP_RANK": "4",
            "WORLD_SIZE": "16", "LOCAL_WORLD_SIZE": "2", "MASTER_ADDR": "10.0.0.1",
            "MASTER_PORT": "29400", "TORCHELASTIC_USE_AGENT_STORE": "True"}


def test_torchrun() -> None:
    lay = detect(TORCHRUN, host="gpu07")
    assert (lay.launcher, lay.rank, lay.local_rank, lay.world_size, lay.local_world_size,
            lay.node_rank) == ("torchrun", 9, 1, 16, 2, 4)
    assert lay.node == "gpu07#4" and lay.master_addr == "10.0.0.1" and lay.master_port == 29400


def test_two_agents_on_one_host_are_two_nodes() -> None:
    a = detect({**TORCHRUN, "GROUP_RANK": "0", "RANK": "0"}, host="box")
    b = detect({**TORCHRUN, "GROUP_RANK": "1", "RANK": "2"}, host="box")
    assert a.node != b.node


def test_plain_rank_and_world_size() -> None:  # deepspeed, a Kubernetes PyTorchJob, a script
    lay = detect({"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "3", "MASTER_ADDR": "h",
                  "NODE_RANK": "0"}, host="h")
    assert (lay.launcher, lay.rank, lay.node_rank) == ("env", 3, 0)


def test_slurm_srun() -> None:
    env = {"SLURM_PROCID": "13", "SLURM_LOCALID": "5", "SLURM_NODEID": "1", "SLURM_NTASKS": "16",
           "SLURM_TASKS_PER_NODE": "8(x2)", "SLURM_JOB_NODELIST": "gpu[003-004,017],cpu1",
           "SLURM_JOB_ID": "123456"}
    lay = detect(env, host="gpu004")
    assert (lay.launcher, lay.rank, lay.local_rank, lay.world_size, lay.local_world_size,
            lay.node_rank) == ("slurm", 13, 5, 16, 8, 1)
    assert lay.master_addr == "gpu003"
    assert lay.master_port == detect(env, host="gpu003").master_port  # same in every task


def test_openmpi_wins_over_an_inherited_batch_step() -> None:
    env = {"SLURM_PROCID": "0", "SLURM_NTASKS": "1", "OMPI_COMM_WORLD_RANK": "6",
           "OMPI_COMM_WORLD_SIZE": "8", "OMPI_COMM_WORLD_LOCAL_RANK": "2",
           "OMPI_COMM_WORLD_LOCAL_SIZE": "4", "MASTER_ADDR": "n1"}
    lay = detect(env, host="n2")
    assert (lay.launcher, lay.rank, lay.world_size, lay.local_rank, lay.node) == \
        ("openmpi", 6, 8, 2, "n2")


def test_pmi() -> None:
    lay = detect({"PMI_RANK": "1", "PMI_SIZE": "2", "MPI_LOCALRANKID": "1",
                  "MASTER_ADDR": "n1"}, host="n1")
    assert (lay.launcher, lay.rank, lay.world_size, lay.local_rank) == ("pmi", 1, 2, 1)


def test_file_store_instead_of_master_addr() -> None:
    env = {"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}
    assert detect(env, store_file="/shared/rdzv", host="n").store_file == "/shared/rdzv"
    assert detect({**env, "ENVDOCTOR_FLEET_STORE": "/s/f"}, host="n").store_file == "/s/f"
    with pytest.raises(LayoutError, match="no MASTER_ADDR"):
        detect(env, host="n")


@pytest.mark.parametrize("env, message", [
    ({}, "no launcher found"),
    ({"RANK": "x", "WORLD_SIZE": "2", "MASTER_ADDR": "h"}, "RANK='x' is not an integer"),
    ({"RANK": "2", "WORLD_SIZE": "2", "MASTER_ADDR": "h"}, "does not fit world size 2"),
    ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "70000"},
     "not a TCP port"),
])
def test_bad_layouts_say_why(env: dict[str, str], message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        detect(env, host="h")


@pytest.mark.parametrize("nodelist, first", [
    ("gpu[003-010,017],cpu1", "gpu003"), ("node1,node2", "node1"), ("a-b-01", "a-b-01"),
    ("rack[1-2]-gpu[01-08]", "rack1-gpu01"), ("x" * 200000, "x" * 65536),
])
def test_first_host_of_a_slurm_node_list(nodelist: str, first: str) -> None:
    assert first_host(nodelist) == first
