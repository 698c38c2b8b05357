"""cuDNN's absence on a Jetson Nano (L4T R32.7.1) is a problem only for a framework that links
it, and only on the board itself (`check --static --root`, as a user runs it).

NVIDIA's JetPack 4.6 torch wheel (1.10.0, CUDA 10.2) links libcudnn.so.8: on a board without
cuDNN or nvidia-jetpack `import torch` fails (JET004 is right, pytorch/pytorch#41975,
dusty-nv/jetson-containers#9). Without such a framework nothing needs it. An unpacked JetPack 4
image (an l4t container's tree: L4T's release file, no device tree) carries no cuDNN because
the NVIDIA runtime mounts the host's into the container at start
(/etc/nvidia-container-runtime/host-files-for-container.d/*.csv,
NVIDIA/nvidia-container-runtime#123): not judged.
"""

from __future__ import annotations

import shutil

from tests.heldout.test_machines import deps  # noqa: F401 - the fixture
from tests.probes import jetson_machines as machines
from tests.probes.test_jetson_machines import check

NANO_NO_CUDNN = machines.board(machines.R32_7_1, machines.NANO,
                               **{**machines.JP461, "jetpack": None, "cudnn": None})


def _loud(found: list[dict]) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in found if f["severity"] in ("error", "warning")]


def test_nano_without_cudnn_and_without_a_framework_is_clean(tmp_path, deps):  # noqa: F811
    code, found, _ = check({"system": NANO_NO_CUDNN, "dists": []}, tmp_path, deps)
    assert code == 0 and not _loud(found)


def test_nano_board_with_nvidias_wheel_and_no_cudnn_is_named(tmp_path, deps):  # noqa: F811
    code, found, _ = check({"system": NANO_NO_CUDNN, "dists": machines.NV_JP46}, tmp_path, deps)
    assert ("JET004", "error") in _loud(found) and code == 1


def test_unpacked_jetpack4_image_without_cudnn_is_not_told_it_is_missing(tmp_path, deps):  # noqa: F811
    sc = {"system": NANO_NO_CUDNN, "dists": machines.NV_JP46}
    site, bindir, root = machines.build(sc, tmp_path / "img")
    shutil.rmtree(root / "proc" / "device-tree")  # an image has no device tree
    from tests.probes import test_jetson_machines as tjm
    orig = machines.build
    try:
        machines.build = lambda _sc, _box: (site, bindir, root)  # the tree as prepared here
        code, found, _ = tjm.check(sc, tmp_path, deps)
    finally:
        machines.build = orig
    assert "JET004" not in [c for c, _ in _loud(found)]
