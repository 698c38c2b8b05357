"""Issue 21 signature breadth: the answer a text's own words call for (fix wording by setting,
yielding where the cause is the user's tensor). Texts are real, each with its thread."""

from __future__ import annotations

from envdoctor.explain import diagnose_text, primary


def _top(text: str):
    return primary(diagnose_text(text))


# https://github.com/mittagessen/kraken/issues/699 (no container anywhere in the thread's text)
SHM_BUS_HOST = """DataLoader worker (pid 270071) is killed by signal:\x20
Bus error. It is possible that dataloader's workers are out of shared memory.\x20
Please try to raise your shared memory limit.\x20
"""
# https://github.com/MIC-DKFZ/nnUNet/issues/294
SHM_WRITE_HOST = """  File "/raid/zhengsc/anaconda3/lib/python3.7/site-packages/torch/multiprocessing/reductions.py", line 333, in reduce_storage
    fd, size = storage._share_fd_()
RuntimeError: unable to write to file </torch_15769_1517813162>
"""


def test_shm_outside_a_container_is_not_answered_with_docker_only():
    for text, code in ((SHM_BUS_HOST, "ESYS007"), (SHM_WRITE_HOST, "ESYS008")):
        d = _top(text)
        assert d is not None and d.code == code
        head = d.fix.split("In a container")[0]
        assert "mount -o remount,size=" in head and "docker" not in head
        assert "file_system" in d.fix and "num_workers" in d.fix


def test_shm_in_a_container_leads_with_shm_size():
    d = _top("docker run --gpus all -it image\n" + SHM_BUS_HOST)
    assert d is not None and d.code == "ESYS007"
    assert d.fix.startswith("The text runs in a container") and "--shm-size" in d.fix


# https://github.com/rapidsai/docker/issues/353
NCCL_DOCKER = """RuntimeError: NCCL_ERROR: b'unhandled system error'

when running the cuML examples in the container on DASK.
* container start flags: --gpus all --rm -it -p 8888:8888 -p 8787:8787 -p 8786:8786
My guess would be that NCCL can't communicate through the docker container.
"""


def test_nccl_system_error_between_containers_names_host_network_and_ipc():
    d = _top(NCCL_DOCKER)
    assert d is not None and d.code == "ENCCL001"
    assert "--network host" in d.fix and "--ipc host" in d.fix
    assert "NCCL_SOCKET_IFNAME" in d.fix


def test_nccl_misspelt_unhandled_reads_the_same():
    # synthetic: c10d builds of 2019 printed the misspelling "unhanled system error"
    d = _top("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:272, unhanled system error\n"
             "both ranks run in docker containers on two hosts\n")
    assert d is not None and d.code == "ENCCL001" and "--network host" in d.fix
