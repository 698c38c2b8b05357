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
    if "-f" in tokens:   # 1.8.1's own line: -f torch_stable.html, the variant in the local pin
        assert tokens[tokens.index("-f") + 1] == INDEX + "torch_stable.html", tokens
        pins = [t.partition("+")[2] for t in tokens if t.startswith("torch==") and "+" in t]
        return pins[0] if pins else None
    flag = next((f for f in ("--index-url", "--extra-index-url") if f in tokens), None)
    if flag is None:
        return None
    url = tokens[tokens.index(flag) + 1]
    assert url.startswith(INDEX), url
    return url[len(INDEX):]


def _python_ok(spec: str, m: Machine, priced: bool) -> None:
    """``priced``: the command is an alternative whose price names a Python upgrade."""
    if not priced and m.python is not None:
        assert SpecifierSet(spec).contains(m.python), f"Python {m.python} not in {spec}"


def _platform(m: Machine, price: str) -> str:
    return "linux_x86_64" if price.startswith("WSL2") or m.platform is None else m.platform


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


# ------------------------------------------------------------------ held-out judging
# The newest releases of the shipped data when the held-out labels (heldout/labels.toml,
# profiles3.toml, profiles4.toml) were written. A label that names one of them named "the
# newest release that fits" then; the data has gained newer releases since (torch 2.14.1 and
# 2.15.0, jax 0.11.2 to 0.12.0.1), and the acceptance asks for an answer "not older than the
# newest release in the shipped data that fits". So such a label also accepts a newer release
# of the shipped data, provided its build installs (check_all) and runs on the profile's GPU
# and driver by the data (``_runs``); for a --keep answer only a newer patch of the same
# release line and build (the planner keeps the newest patch of the installed minor). Every
# other label (none, undecided, an older release) is judged exactly.
LABELLED_NEWEST = {"torch": Version("2.14.0"), "jax": Version("0.11.1")}


def _runs(framework: str, variant: str, version: Version, m: Machine) -> bool:
    """Whether a build of the shipped data runs on ``m``'s GPUs and driver: an arch list with
    code for each GPU and the driver floor of its CUDA major (torch), the plugin's compute
    capability and driver floors (jax). CPU builds run anywhere."""
    from envdoctor.matrices.gpus import code_for
    from envdoctor.suggest import data
    if variant in ("cpu", "-") or not m.gpus:
        return True
    if framework == "torch":
        cuda = data.variant_cuda(variant)
        if cuda is None:
            return False
        archs = data.torch_archs(version, variant, m.platform or "linux_x86_64")
        floor = data.driver_floor(cuda, data.driver_os(m))
        return (archs is not None and floor is not None and m.driver is not None
                and m.driver >= floor[0]
                and all(g.sm is not None and code_for(archs[0], g.sm) is not None
                        for g in m.gpus))
    major = re.fullmatch(r"jax\[cuda(\d+)\]", variant)
    plugin = next((p for p in matrix("jax").get("plugin", [])
                   if major and str(p.get("cuda_major")) == major.group(1)), None)
    if plugin is None or m.driver is None:
        return False
    return (m.driver >= Version(str(plugin["min_driver_linux"]))
            and all(g.cc is not None and Version(str(g.cc)) >= Version(str(plugin["min_cc"]))
                    for g in m.gpus))


def judged(framework: str, want: str, got: str, m: Machine, keep: bool = False) -> bool:
    """The held-out judge: the label's answer, or (see LABELLED_NEWEST) a newer release."""
    if got == want:
        return True
    newest = LABELLED_NEWEST.get(framework)
    parts, have = want.split(" "), got.split(" ")
    if newest is None or len(parts) != 2 or len(have) != 2:
        return False
    try:
        was, now = Version(parts[0]), Version(have[0])
    except ValueError:
        return False
    if keep and (now.release[:2] != was.release[:2] or have[1] != parts[1]):
        return False   # --keep stays on the labelled release line and build; a newer patch only
    return was == newest and now > newest and _runs(framework, have[1], now, m)
