"""The class batch 11's first run found wrong, fixed by class (tests/suggest/heldout/README.md,
batch 11): `--online` jax on a Jetson was held to the newest release with a CUDA plugin for the
board's driver, though a Jetson gets the CPU jaxlib whatever plugins the index lists. On
machines of our own, not the held-out profiles."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from envdoctor.suggest import suggest
from envdoctor.suggest.index import Online

from .heldout_common import isolate_online
from .test_heldout11 import snapshot


@pytest.fixture
def online(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Online]:
    from .heldout11_index import serving
    isolate_online(tmp_path, monkeypatch)
    with serving() as index:
        yield Online(index.url, index.torch_root, 10)


def _jax(row: dict[str, Any], online: Online) -> Any:
    return suggest(snapshot(row), ["jax"], online=online).suggestions[0]


def _jetson(**kw: Any) -> dict[str, Any]:
    return {"name": "own", "gpu": ["Orin (nvgpu)", "8.7"], "driver": "540.3.0", "os": "Linux",
            "arch": "aarch64", "python": "3.13.1", "kernel": "5.15.136-tegra",
            "jetpack": "6.0", "l4t": "36.3.0", **kw}


def test_a_jetson_gets_the_newest_cpu_jaxlib_the_index_lists(online):
    # the index's newest jax (0.13.2) has a CUDA 13 plugin only, which the board's 12.x
    # driver would not run: no matter, a Jetson gets the CPU jaxlib
    s = _jax(_jetson(), online)
    assert (s.status, s.version, s.variant) == ("ok", "0.13.2", "cpu")
    assert "Jetson" in " ".join(r.text for r in s.reasons)


def test_a_jetson_known_only_by_its_integrated_gpu_also_gets_it(online):
    row = _jetson()
    del row["jetpack"], row["l4t"], row["kernel"]
    s = _jax(row, online)
    assert (s.status, s.version, s.variant) == ("ok", "0.13.2", "cpu")


def test_an_arm_server_on_a_12x_driver_still_keeps_the_release_with_its_plugin(online):
    # the rule the Jetson is exempt from: a GPU box gets the newest release with a CUDA
    # plugin that runs on its driver (0.13.1 cuda12), not a newer CPU-only one
    row = {"name": "own", "gpu": ["NVIDIA GH200 480GB", "9.0"], "driver": "560.35.03",
           "os": "Linux", "arch": "aarch64", "python": "3.13.1"}
    s = _jax(row, online)
    assert (s.status, s.version, s.variant) == ("ok", "0.13.1", "jax[cuda12]")
