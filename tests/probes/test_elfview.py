"""The loader model (envdoctor/probes/_elf.py) on real ELF files built here with gcc, checked
against the real ld.so: a library linked with -rpath written as DT_RPATH (--disable-new-dtags)
finds its own libfoo.so.1 before LD_LIBRARY_PATH; the same written as DT_RUNPATH
(--enable-new-dtags) loses to LD_LIBRARY_PATH. The child process loads the library with ctypes
and reads /proc/self/maps, so the test proves the model's verdict is the loader's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envdoctor.probes import _elf as elfview
from tests import elfbuild

pytestmark = pytest.mark.skipif(elfbuild.GCC is None or not sys.platform.startswith("linux"),
                                reason="needs gcc and a Linux ld.so")

MAPS = """
import ctypes, sys
ctypes.CDLL(sys.argv[1])
maps = open('/proc/self/maps').read().split()
print(sorted({p for p in maps if p.endswith('libfoo.so.1')}))
"""


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    root = tmp_path_factory.mktemp("elf")
    wheel = elfbuild.shared_lib(root / "wheel" / "libfoo.so.1", "libfoo.so.1", symbol="foo")
    system = elfbuild.shared_lib(root / "system" / "libfoo.so.1", "libfoo.so.1", symbol="foo")
    users = {}
    for kind, runpath in (("rpath", False), ("runpath", True)):
        users[kind] = elfbuild.shared_lib(root / kind / "lib" / "libuser.so", "libuser.so",
                                          needed=(wheel,), rpath="$ORIGIN/../../wheel",
                                          runpath=runpath)
    return root, wheel, system, users


def _real_loader(lib: Path, ld_library_path: str) -> list[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LD_LIBRARY_PATH": ld_library_path}
    done = subprocess.run([sys.executable, "-S", "-c", MAPS, str(lib)], env=env,
                          capture_output=True, text=True, timeout=60, check=True)
    return eval(done.stdout)  # noqa: S307 - a list literal this test's child printed


@pytest.mark.parametrize("kind", ["rpath", "runpath"])
def test_headers_read(box, kind):
    root, wheel, _, users = box
    elf = elfview.read_elf(users[kind])
    assert not isinstance(elf, str), elf
    assert elf.soname == "libuser.so"
    assert "libfoo.so.1" in elf.needed
    expanded = (os.path.normpath(str(root / "wheel")),)
    assert (elf.rpath, elf.runpath) == ((expanded, ()) if kind == "rpath" else ((), expanded))
    assert elf.elfclass == 64 or elf.elfclass == 32


@pytest.mark.parametrize("kind,winner", [("rpath", "wheel"), ("runpath", "system")])
def test_verdict_matches_ld_so(box, kind, winner):
    root, wheel, system, users = box
    elf = elfview.read_elf(users[kind])
    assert not isinstance(elf, str)
    got = elfview.resolve("libfoo.so.1", elf, ld_library_path=str(system.parent))
    want = str(wheel if winner == "wheel" else system)
    assert got.path == want, got
    assert got.step == ("rpath" if kind == "rpath" else "ld_library_path")
    assert {p for p, _ in got.candidates} == {str(wheel), str(system)}
    # the real loader agrees
    assert _real_loader(users[kind], str(system.parent)) == [os.path.realpath(want)]


def test_without_ld_library_path_both_load_the_wheel(box):
    _, wheel, _, users = box
    for kind in ("rpath", "runpath"):
        elf = elfview.read_elf(users[kind])
        assert not isinstance(elf, str)
        got = elfview.resolve("libfoo.so.1", elf)
        assert got.path == str(wheel) and got.step == kind
        assert _real_loader(users[kind], "") == [os.path.realpath(str(wheel))]


def test_rpath_of_loader_applies_only_without_runpath(box):
    root, wheel, system, users = box
    plain = elfview.Elf(path=str(root / "plain.so"), needed=("libfoo.so.1",))
    via_rpath = elfview.read_elf(users["rpath"])
    via_runpath = elfview.read_elf(users["runpath"])
    assert not isinstance(via_rpath, str) and not isinstance(via_runpath, str)
    lp = str(system.parent)
    assert elfview.resolve("libfoo.so.1", plain, loaders=(via_rpath,),
                           ld_library_path=lp).path == str(wheel)
    assert elfview.resolve("libfoo.so.1", plain, loaders=(via_runpath,),
                           ld_library_path=lp).path == str(system)


def test_root_reads_system_folders_under_it(tmp_path):
    lib = tmp_path / "usr" / "lib" / "wsl" / "lib" / "libcuda.so.1"
    lib.parent.mkdir(parents=True)
    lib.write_bytes(b"")
    got = elfview.resolve("libcuda.so.1", None, cache=("/usr/lib/wsl/lib/libcuda.so.1",),
                          root=tmp_path)
    assert (got.path, got.step) == ("/usr/lib/wsl/lib/libcuda.so.1", "ld.so.cache")
    assert elfview.resolve("libcuda.so.1", None, root=tmp_path).step == "not_found"


@pytest.mark.parametrize("data", [b"", b"\x7fELF", b"\x7fELF\x02\x01\x01" + b"\xff" * 80,
                                  b"not an elf at all", b"\x7fELF" + b"\x00" * 4096])
def test_malformed_is_a_reason_not_a_crash(tmp_path, data):
    path = tmp_path / "bad.so"
    path.write_bytes(data)
    assert isinstance(elfview.read_elf(path), str)


def test_fifo_and_folder_are_refused(tmp_path):
    fifo = tmp_path / "fifo.so"
    os.mkfifo(fifo)
    assert isinstance(elfview.read_elf(fifo), str)
    assert isinstance(elfview.read_elf(tmp_path), str)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2000), st.binary(min_size=1, max_size=64))
def test_corrupted_real_library_never_raises(box, tmp_path, offset, junk):
    _, _, _, users = box
    data = bytearray(users["runpath"].read_bytes())
    data[offset:offset + len(junk)] = junk
    path = tmp_path / "fuzzed.so"
    path.write_bytes(bytes(data))
    result = elfview.read_elf(path)
    assert isinstance(result, (str, elfview.Elf))


@pytest.mark.parametrize("runpath,winner,step", [(False, "wheel", "rpath"),
                                                 (True, "system", "ld_library_path")])
def test_view_of_a_site_packages(tmp_path, monkeypatch, runpath, winner, step):
    """The libraries-probe view: a torch/lib library NEEDS the cuDNN wheel's soname, a system
    copy is on LD_LIBRARY_PATH; the verdict names the file ld.so loads."""
    from envdoctor.probes import _loader

    site = tmp_path / "site"
    wheel = elfbuild.shared_lib(site / "nvidia" / "cudnn" / "lib" / "libcudnn.so.9", "libcudnn.so.9")
    system = elfbuild.shared_lib(tmp_path / "opt" / "libcudnn.so.9", "libcudnn.so.9")
    elfbuild.shared_lib(site / "torch" / "lib" / "libtorch_cuda.so", "libtorch_cuda.so",
                        needed=(wheel,), rpath="$ORIGIN/../../nvidia/cudnn/lib", runpath=runpath)
    monkeypatch.setenv("LD_LIBRARY_PATH", str(system.parent))
    objects, verdicts = _loader.view({}, sites=[str(site)])
    assert {Path(o.path).name for o in objects} == {"libtorch_cuda.so", "libcudnn.so.9"}
    (v,) = [v for v in verdicts if v.soname == "libcudnn.so.9"]
    assert v.path == str(wheel if winner == "wheel" else system) and v.step == step
    assert v.bundled == str(wheel) and v.loader.endswith("libtorch_cuda.so")
    monkeypatch.delenv("LD_LIBRARY_PATH")
    _, quiet = _loader.view({}, sites=[str(site)])
    assert [v for v in quiet if v.soname == "libcudnn.so.9"] == []  # one copy: nothing to say
