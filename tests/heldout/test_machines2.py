"""machines2 (tests/heldout/machines2.py) through the real static probes, `check` and `suggest`.

As test_machines.py: a fake ``nvidia-smi`` printing a recorded table, a fake site-packages, the
probes in a child ``python -S``, host facts patched in, ``check --facts`` judging the snapshot.
Verdicts: a healthy machine gets no error or warning; a broken one gets a check expressing its
label (as an error where the official answer is that it cannot run). Fixes: every install
command in a finding's fix and every command ``suggest`` prints for the machine names a
release that the wheel-index data has on that index, platform and Python
(tests/suggest/suggest_support.check_command), and no torch fix downgrades the installed
release.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envdoctor import pipeline
from envdoctor.matrices import matrix
from envdoctor.suggest import suggest
from envdoctor.suggest.machine import machine_of
from tests.heldout import machines2
from tests.heldout.test_machines import (  # noqa: F401 - deps is a fixture
    REPO,
    assert_verdict,
    deps,
    run,
)
from tests.suggest.suggest_support import check_all, check_command

# label -> (check ids that express it, must it be an error)
LABELS = {
    "gpu-arch-missing-from-torch-wheel": ({"gpu-arch-missing-from-torch-wheel"}, True),
    "cuda13-drops-gpu-arch": ({"gpu-arch-missing-from-torch-wheel"}, True),
    "driver-too-old-for-cuda-runtime": ({"driver-too-old-for-framework-cuda"}, True),
    "numpy2-incompatible": ({"numpy2-with-numpy1-builds"}, True),
    "numpy2-incompatible-with-torch": ({"numpy2-with-numpy1-builds"}, True),
    "python-outside-torch-range": ({"python-outside-torch-range"}, True),
    "python-outside-tf-range": ({"python-outside-tensorflow-range"}, True),
    "python-outside-jax-range": ({"python-outside-jax-range"}, True),
    "tf-cudnn9-shared-with-torch": ({"tensorflow-cudnn-shared-with-torch"}, False),
    "tf-without-cuda-libs": ({"tensorflow-without-cuda-libraries"}, False),
    "tf-cpu-on-gpu-host": ({"tensorflow-cpu-build-on-gpu-host", "gpu-expected-but-cpu-only-builds"},
                           True),
    "jax-plugin-mismatch": ({"jax-jaxlib-plugin-version-mismatch"}, True),
    "gpu-too-old-for-jax-plugin": ({"gpu-too-old-for-jax-cuda-plugin"}, True),
    "jaxlib-cpu-on-gpu-host": ({"jaxlib-without-cuda-plugin-on-gpu-host"}, False),
    "torch-cpu-build-on-gpu-host": ({"torch-cpu-build-on-gpu-host"}, False),
    "rocm-torch-on-nvidia": ({"rocm-torch-on-nvidia-host"}, True),
    "keras3-with-old-tf": ({"keras3-with-old-tensorflow"}, True),
    "two-distributions-one-module": ({"two-distributions-one-module"}, True),
    "torch-companion-mismatch": ({"torch-torchvision-torchaudio-mismatch"}, True),
    "visible-devices-hide-all": ({"cuda-visible-devices-hides-all"}, False),
    "visible-devices-missing": ({"cuda-visible-devices-names-missing-gpus"}, False),
    "alloc-conf": ({"malformed-pytorch-cuda-alloc-conf"}, False),
    "tf-cuda-mismatch": ({"tensorflow-cuda-version-mismatch", "tensorflow-without-cuda-libraries"},
                         False),
    "tf-native-windows": ({"tensorflow-gpu-on-native-windows"}, False),
    "jax-native-windows": ({"jax-gpu-on-native-windows"}, False),
    "tf-cudnn-older-than-build": ({"tensorflow-cudnn-shared-with-torch",
                                   "tensorflow-cuda-version-mismatch"}, False),
    "jax-cudnn-older": ({"jax-cudnn-older-than-plugin-needs"}, False),
}
_INSTALL = re.compile(r"\b(?:uv pip|python -m pip|pip|conda) install\b")
_STOP = ("#", ";", "(", ")", "&&", "||", "|", "or", "and", "then")
_FRAMEWORK = {"torch": "torch", "pytorch": "torch", "jax": "jax", "tensorflow": "tensorflow"}


def install_commands(text: str) -> list[tuple[str, str | None]]:
    """(command, Python it is meant for) of each install command in a fix text, each cut
    where the prose resumes; the Python is the one a ``--python X`` / ``python=X`` earlier on
    the same line asks for (a new environment), else None (this interpreter)."""
    out = []
    for m in _INSTALL.finditer(text):
        head = m.group(0).split()
        words = []
        for word in text[m.end():].split("\n", 1)[0].split():
            if word.startswith(_STOP) or word in _STOP or word.startswith("`"):
                break
            words.append(word.rstrip(";"))
            if word.endswith((".", ",", ")", "`", ";")) and not re.search(r"\d[.,]$", word):
                break
        words = [w.rstrip(".,)`") for w in words]
        line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        py = re.findall(r"(?:--python |python=)(3\.\d+)", line)
        out.append((" ".join(head + words), py[-1] if py else None))
    return out


def machine_facts(sc, tmp_path: Path, deps_dir: Path) -> tuple[Path, dict[str, str]]:
    site, bindir = machines2.build(sc, tmp_path / "box")
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps_dir}",
           "HOME": str(tmp_path), "ENVDOCTOR_NO_CACHE": "1", "LANG": "C.UTF-8"}
    probed = run(["facts"], env)
    assert probed.returncode == 0, probed.stderr
    facts = json.loads(probed.stdout)
    machines2.patch(facts, sc)
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(facts))
    return path, env


def _framework_of(tokens: list[str]) -> str | None:
    for token in tokens[2:]:
        name = re.split(r"[=<>~!\[]", token, maxsplit=1)[0].lower()
        if name in _FRAMEWORK:
            return _FRAMEWORK[name]
    return None


def _req(tokens: list[str], name: str) -> tuple[str, str] | None:
    """(extra-less requirement name, specifier) for ``name`` among the tokens."""
    for t in tokens:
        m = re.match(rf"^{name}(\[[\w,-]+\])?([=<>~!].*)?$", t)
        if m:
            return (m.group(1) or ""), (m.group(2) or "")
    return None


def _newest(rows: list[dict], key: str, spec: str) -> dict | None:
    wanted = SpecifierSet(spec.replace("==", "==") if spec else "")
    got = [r for r in rows if wanted.contains(Version(r[key]), prereleases=True)]
    return max(got, key=lambda r: Version(r[key])) if got else None


def _torch_release_problem(spec: str, tokens: list[str], m) -> str | None:
    """A pinned torch release that wheel_index lacks, judged by the torch matrix's RELEASE.md
    row of its series: the index variant is one of the release's CUDA variants, Python in
    range."""
    want = Version(spec.lstrip("=").split("+")[0]) if spec.startswith("==") else None
    row = next((r for r in matrix("torch")["release"] if want is not None
                and Version(r["torch"]).release == want.release[:2]), None)
    if row is None:
        return f"no torch release {spec} in the data"
    index = tokens[tokens.index("--index-url") + 1] if "--index-url" in tokens else ""
    variant = index.rsplit("/", 1)[-1]
    if variant and variant != "cpu" and variant not in row["cuda_variants"]:
        return f"torch {want} has no {variant} variant"
    if m.python is not None and not SpecifierSet(row["python"]).contains(m.python):
        return f"torch {want} has no wheel for Python {m.python}"
    return None


def check_fix_command(fw: str, tokens: list[str], m) -> str | None:
    """Why an install command in a fix cannot work on this machine, or None."""
    extra, spec = _req(tokens, {"torch": "torch", "jax": "jax", "tensorflow": "tensorflow"}[fw]) \
        or ("", "")
    gpu_extra = extra.startswith("[cuda") or extra == "[and-cuda]"
    if gpu_extra and not m.has_nvidia:
        return f"a CUDA install ({extra}) on a machine without an NVIDIA GPU"
    if fw == "torch":
        if spec.startswith("==") or "--index-url" in tokens:
            try:
                check_command("torch", shlex.join(tokens), m)
            except StopIteration:   # wheel_index holds the newest patch of 2.5+ only
                return _torch_release_problem(spec, tokens, m)
            except (AssertionError, KeyError) as exc:
                return str(exc) or "no such release/index in the data"
        return None
    if fw == "tensorflow":
        rows = [{"v": r["tensorflow"], **r} for r in matrix("tensorflow")["release"]]
        if spec.startswith("=="):
            spec = "==" + ".".join(spec[2:].split(".")[:2]) + ".*"
        row = _newest(rows, "v", spec)
        if row is None:
            return f"no TensorFlow release {spec}"
        if m.python is not None and not SpecifierSet(row["python"]).contains(m.python):
            return f"TensorFlow {row['v']} has no wheel for Python {m.python}"
        return None
    rows = [{"v": v, **r} for r in matrix("jax")["release"] for v in (r["first"], r["last"])]
    row = _newest(rows, "v", spec)
    if spec.startswith("=="):  # a pinned release: the matrix row whose range holds it
        want = Version(spec[2:])
        row = next((r for r in matrix("jax")["release"]
                    if Version(r["first"]) <= want <= Version(r["last"])), None)
        row = {"v": spec[2:], **row} if row else None
    if row is None:
        return f"no jax release {spec}"
    if m.python is not None and not SpecifierSet(row["python"]).contains(m.python):
        return f"jax {row['v']} has no wheel for Python {m.python}"
    return None


def fix_problems(found: list[dict], facts, installed_torch: Version | None) -> list[str]:
    """Install commands in findings that cannot work here, or whose first torch command
    downgrades torch (a later one may, as the price of staying on this Python)."""
    machine = machine_of(facts)
    out = []
    for f in found:
        first_torch = True
        for cmd, python in install_commands(f.get("fix") or ""):
            m = dataclasses.replace(machine, python=Version(python)) if python else machine
            tokens = shlex.split(cmd.replace("uv pip", "pip").replace("python -m pip", "pip"))
            fw = _framework_of(tokens)
            if fw is None or tokens[0] == "conda":
                continue
            why = check_fix_command(fw, tokens, m)
            if why:
                out.append(f"{f['code']}: {cmd!r}: {why}")
            pin = re.search(r"\btorch==([\d.]+)", cmd)
            # DRV001's "Or keep the driver and install a torch built for an older CUDA" is a
            # downgrade by design: the price of keeping a driver the installed build cannot use
            kept_driver = f"keep the driver and install a torch built for an older CUDA: {cmd}" \
                in (f.get("fix") or "")
            if fw == "torch" and first_torch and pin and installed_torch is not None \
                    and not kept_driver \
                    and Version(pin.group(1)) < Version(installed_torch.base_version):
                out.append(f"{f['code']}: {cmd!r} downgrades torch {installed_torch}")
            first_torch = first_torch and fw != "torch"
    return out


def _cases():
    for s in machines2.SCENARIOS:
        marks = (pytest.mark.xfail(strict=True, reason=s["weak"]),) if s.get("weak") else ()
        yield pytest.param(s, marks=marks, id=s["name"])


@pytest.mark.parametrize("sc", list(_cases()))
def test_machine2(sc, tmp_path, deps):  # noqa: F811 - the fixture
    path, env = machine_facts(sc, tmp_path, deps)
    argv = ["check", "--facts", str(path), "--format", "json", "--expect", sc.get("expect", "auto")]
    checked = run(argv, env)
    assert checked.returncode in (0, 1), checked.stderr
    found = json.loads(checked.stdout)["findings"]
    facts = pipeline.load_facts_file(str(path))
    if sc.get("smi"):  # the facts read the table's driver and every GPU row
        shown = re.search(r"(?:Driver|KMD) Version:\s*([\d.]+)", sc["smi"]).group(1)
        assert str(facts.nvidia.driver_version) == shown
        assert len(facts.nvidia.gpus) == len(re.findall(r"^\|\s+\d+  \S", sc["smi"], re.M))
    tv = facts.frameworks.torch.version if facts.frameworks.torch is not None else None
    assert not fix_problems(found, facts, tv)
    for s in suggest(facts).suggestions:
        check_all(sc["name"], s, machine_of(facts))
    assert_verdict(sc, found, LABELS)
