"""Which timer fires first when rank 0 cannot reach its own store must not change the answer.

Rank 0 hosts the TCP store on every address of its host, but its own client connects to
MASTER_ADDR. Where that address is elsewhere, our deadline (``bounded``) and torch's own connect
timeout race: on a quiet host ours fires while the kernel still retries the SYN, on a loaded one
torch's "client socket has timed out" comes first. Both are the same state and get one answer.
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from envdoctor.fleet import store  # noqa: E402
from envdoctor.fleet.layout import Layout  # noqa: E402

TORCH_TIMEOUT = ("The client socket has timed out after 7989ms while trying to connect to "
                 "(192.0.2.1, 46087).")


def _layout(rank: int, addr: str = "192.0.2.1") -> Layout:
    return Layout(launcher="env", rank=rank, world_size=2, local_rank=0, local_world_size=1,
                  node_rank=rank, host=f"host-{rank}", master_addr=addr, master_port=46087)


def _raising(exc: BaseException):
    """``bounded`` whose store connect fails with ``exc``; every other call runs for real (the
    check that MASTER_ADDR is not an address of this host binds a socket)."""
    real = store.bounded

    def fake_bounded(fn, seconds, what):
        if what == "store connect":
            raise exc
        return real(fn, seconds, what)
    return fake_bounded


@pytest.mark.parametrize("fired", [TimeoutError("store connect"),
                                   RuntimeError(TORCH_TIMEOUT)], ids=["ours", "torch's"])
def test_rank0_with_master_addr_elsewhere_is_told_so_whichever_timer_fires(monkeypatch, fired):
    monkeypatch.setattr(store, "bounded", _raising(fired))
    with pytest.raises(store.StoreError, match="is not an address of this host"):
        store.open_store(_layout(0), 8.0)


def test_torch_timeout_on_a_local_master_addr_keeps_its_own_text(monkeypatch):
    monkeypatch.setattr(store, "bounded", _raising(RuntimeError(TORCH_TIMEOUT)))
    with pytest.raises(store.StoreError, match="cannot reach 127.0.0.1:46087") as got:
        store.open_store(_layout(0, "127.0.0.1"), 8.0)
    assert "not an address of this host" not in str(got.value)


def test_a_rank_other_than_0_is_not_told_master_addr_is_elsewhere(monkeypatch):
    monkeypatch.setattr(store, "bounded", _raising(RuntimeError(TORCH_TIMEOUT)))
    with pytest.raises(store.StoreError) as got:
        store.open_store(_layout(1), 8.0)
    assert "not an address of this host" not in str(got.value)
