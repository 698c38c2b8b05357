"""Adversarial round 10 (tests/faults/MATRIX10.md): the boundary fixes, one test per class.

In-process and fast; the real-process faults are in tests/faults/matrix10.py, run under
``-m boundary`` by tests/faults/test_faults10.py.
"""

from __future__ import annotations

import time

import pytest

from envdoctor.fleet.layout import LayoutError, detect, first_host

GHP = "ghp_PLANTED10githubTokenZyXwVuTsRqPoNmLk"


def _refused(env: dict[str, str]) -> str:
    with pytest.raises(LayoutError) as info:
        detect(env, host="n1")
    return str(info.value)


# ------------------------------------------- the launcher's variables are read before torch is
@pytest.mark.parametrize("addr", [f"node\x1b]0;T\x07-{GHP}", "a b", "node\n::error::x",
                                  "-oProxyCommand=x", "gpu\u202e1", "[[[["])
def test_a_master_addr_that_is_no_host_name_is_refused(addr):
    # torch's C++ store would print it raw on stderr, many times, before giving up
    said = _refused({"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": addr})
    assert "not a host name or address" in said
    assert "\x1b" not in said and "\n" not in said and GHP not in said


@pytest.mark.parametrize("addr", ["127.0.0.1", "::1", "fe80::1%eth0", "[fe80::1]",
                                  "node-01.cluster.local", "gpu_07", "localhost"])
def test_a_master_addr_that_is_a_host_name_or_address_is_kept(addr):
    layout = detect({"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": addr}, host="n1")
    assert layout.master_addr == addr


def test_the_first_host_of_a_slurm_node_list_is_checked_like_master_addr():
    env = {"SLURM_PROCID": "0", "SLURM_NTASKS": "1",
           "SLURM_JOB_NODELIST": f"gpu\x1b]0;T\x07{GHP}[001-004],cpu1"}
    said = _refused(env)
    assert "SLURM_JOB_NODELIST" in said and GHP not in said and "\x1b" not in said
    env["SLURM_JOB_NODELIST"] = "gpu[003-010,017],cpu1"
    assert detect(env, host="n1").master_addr == "gpu003"


def test_a_slurm_node_list_is_scanned_once():
    # 64 kB of unclosed brackets: a regex restarting at each one took ~7 s (quadratic)
    start = time.monotonic()
    assert first_host("[" * 65536).startswith("[")
    assert first_host("[]" * 32768) == ""
    assert time.monotonic() - start < 1.0
    assert first_host("a[1-2]b[05-7],c") == "a1b05"


def test_a_world_size_no_job_runs_is_refused():
    # rank 0 asks the store about each rank it expects: 2^31-1 kept it past every bound
    said = _refused({"RANK": "0", "WORLD_SIZE": "2147483647", "MASTER_ADDR": "127.0.0.1"})
    assert "world size 2147483647" in said
    assert detect({"RANK": "0", "WORLD_SIZE": "4096", "MASTER_ADDR": "h"},
                  host="n1").world_size == 4096


@pytest.mark.parametrize("name", ["RANK", "WORLD_SIZE", "MASTER_PORT"])
def test_an_error_line_never_quotes_a_token_cut_short(name):
    # the value is cut to 40 characters: a token cut there is no longer seen as one
    env = {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "h", name: f"x {GHP}"}
    said = _refused(env)
    assert "PLANTED10" not in said


# ------------------------------------------------ a write error says what could not be done
def test_a_file_whose_folder_takes_no_new_file_is_said_so():
    # /proc/version is there (root may even "write" it): the temporary file beside it cannot
    # be made, and "No such file or directory" alone named a file that exists
    from envdoctor.errors import BadInput
    from envdoctor.outputs.sink import write_file
    with pytest.raises(BadInput) as info:
        write_file("/proc/version", "x")
    assert "no file can be created in /proc" in str(info.value)
