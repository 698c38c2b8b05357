"""Helpers: run `suggest` on a machine snapshot and check every command it prints against the
index data (the version exists on that index, for that Python and platform)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envdoctor import pipeline
from envdoctor.matrices import matrix
from envdoctor.suggest import suggest
from envdoctor.suggest.machine import Machine, machine_of
from envdoctor.suggest.model import Suggestion

MACHINES = Path(__file__).parent / "machines"
INDEX = "https://download.pytorch.org/whl/"
SEEN: list[tuple[str, str, str]] = []   # (machine, framework, command) of every command checked


def _reqs(tokens: list[str]) -> dict[str, str]:
    """``torch==2.13.0`` / ``jax[cuda13]==0.11.0`` -> {"torch": "2.13.0", "jax[cuda13]": ...}."""
    out = {}
    for t in tokens:
        m = re.match(r"^([A-Za-z0-9_.\-\[\]]+)==(.+)$", t)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _index_variant(tokens: list[str]) -> str | None:
    flag = next((f for f in ("--index-url", "--extra-index-url") if f in tokens), None)
    if flag is None:
        return None
    url = tokens[tokens.index(flag) + 1]
    assert url.startswith(INDEX), url
    return url[len(INDEX):]


def _python_ok(spec: str, m: Machine, priced: bool) -> None:
    if not priced and m.python is not None:
        assert SpecifierSet(spec).contains(m.python), f"Python {m.python} not in {spec}"


def _platform(m: Machine, price: str) -> str:
    return "linux_x86_64" if price == "WSL2" or m.platform is None else m.platform


def check_torch(tokens: list[str], m: Machine, price: str) -> None:
    reqs = _reqs(tokens)
    version = (reqs.get("torch") or reqs.get("pytorch") or "").partition("+")[0] or None
    rows = matrix("wheel_index")["torch"]
    row = next(r for r in rows if r["torch"] == version) if version else \
        next(r for r in rows if r.get("torchvision") == reqs.get("torchvision"))  # companion only
    version = row["torch"]
    platform = _platform(m, price)
    local = {k: v.partition("+")[2] for k, v in reqs.items() if "+" in v}
    reqs = {k: v.partition("+")[0] for k, v in reqs.items()}
    assert not local or (row.get("local_pins") and set(local.values()) == {_index_variant(tokens)})
    if tokens[0] == "conda":
        assert Version(version) <= Version("2.5.1"), "PyTorch's conda channel ends at 2.5"
        return
    variant = _index_variant(tokens)
    if variant is None:  # PyPI: macOS CPU/MPS wheels, the older releases' aarch64 CPU wheels
        assert platform.startswith("macos") or platform in row.get("pypi_only", [])
        assert "cpu" in row[platform]
    else:
        assert variant in row.get(platform, []), f"{variant} has no torch {version} on {platform}"
    _python_ok(row["python"], m, "Python" in price)
    if "torchvision" in reqs:
        assert reqs["torchvision"] == row["torchvision"]
    if "torchaudio" in reqs:
        assert reqs["torchaudio"] == row["torchaudio"]


def check_jax(tokens: list[str], m: Machine, price: str) -> None:
    (name, version), = _reqs(tokens).items()
    release = next(r for r in matrix("jax")["release"]
                   if Version(r["first"]) <= Version(version) <= Version(r["last"]))
    extra = name[4:-1] if "[" in name else "cpu"
    prow = next(r for r in matrix("wheel_index")["jax_platform"]
                if r["platform"] == _platform(m, price))
    assert extra in prow["wheels"], f"jax[{extra}] has no wheels on {_platform(m, price)}"
    assert "last" not in prow or Version(version) <= Version(prow["last"]), \
        f"jax {version} has no wheels on {_platform(m, price)} after {prow['last']}"
    if extra != "cpu":
        plugin = next(p for p in matrix("jax")["plugin"] if p["extra"] == f"jax[{extra}]")
        assert Version(version) >= Version(plugin["extra_from"]), f"no {extra} plugin {version}"
    _python_ok(release["python"], m, "Python" in price)


def check_tensorflow(tokens: list[str], m: Machine, price: str) -> None:
    (name, version), = _reqs(tokens).items()
    assert version.endswith(".*")
    row = next(r for r in matrix("tensorflow")["release"] if r["tensorflow"] == version[:-2])
    platform = _platform(m, price)
    prow = next(r for r in matrix("wheel_index")["tensorflow_platform"]
                if r["platform"] == platform)
    tf = Version(row["tensorflow"])
    assert "first" not in prow or tf >= Version(prow["first"]), f"no TF {tf} on {platform}"
    assert "last" not in prow or tf <= Version(prow["last"]), f"no TF {tf} on {platform}"
    if name == "tensorflow[and-cuda]":
        assert platform == "linux_x86_64" and tf >= Version("2.14")
        assert row.get("and_cuda_installs", True), f"{name}=={version} does not resolve"
    _python_ok(row["python"], m, "Python" in price)


def check_companion(framework: str, tokens: list[str], m: Machine, price: str) -> None:
    data = matrix("wheel_index")
    if framework == "xformers":
        version = _reqs(tokens)["xformers"]
        row = next(r for r in data["xformers"] if r["xformers"] == version)
        assert _index_variant(tokens) in row["indexes"]
    elif framework == "bitsandbytes":
        assert _reqs(tokens)["bitsandbytes"] == data["bitsandbytes"][0]["bitsandbytes"]
    else:
        assert " ".join(tokens).endswith(data["flash_attn"][0]["command"].split(" ", 1)[1])


def check_command(framework: str, cmd: str, m: Machine, price: str = "") -> None:
    tokens = shlex.split(cmd)
    if tokens[:2] == ["uv", "pip"]:
        tokens = tokens[1:]
    if tokens[:3] == ["python", "-m", "pip"]:
        tokens = tokens[2:]
    assert tokens[0] in ("pip", "conda") and tokens[1] == "install", cmd
    {"torch": check_torch, "jax": check_jax, "tensorflow": check_tensorflow}.get(
        framework, lambda t, mm, p: check_companion(framework, t, mm, p))(tokens, m, price)


def check_all(name: str, got: Suggestion, m: Machine) -> None:
    """Every command of a suggestion and of its alternatives is on its index."""
    if got.status in ("ok",):
        assert got.command and got.reasons, got
    for cmd, price in [(got.command, ""), *((a.command, a.price) for a in got.alternatives)]:
        if cmd:
            check_command(got.framework, cmd, m, price)
            SEEN.append((name, got.framework, cmd))
    assert all(r.text for r in got.reasons)


def run(name: str, *frameworks: str, installer: str = "pip"):
    """run("a100-driver550", "torch") -> the checked Suggestion (a tuple with several names)."""
    facts = pipeline.load_facts_file(str(MACHINES / f"{name}.json"))
    m = machine_of(facts)
    result = suggest(facts, list(frameworks) or None, installer)
    for s in result.suggestions:
        check_all(name, s, m)
    return result.suggestions[0] if len(frameworks) == 1 else result.suggestions
