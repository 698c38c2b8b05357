"""Table answers for the impossibilities a text states (envdoctor.explain.impossible): whether
a GPU of a compute capability can run a torch or CUDA build, and whether a Python version has
wheels of a framework in any release (gpus.toml, torch.toml, tensorflow.toml)."""

from __future__ import annotations

from envdoctor.matrices import matrix
from envdoctor.matrices.gpus import archs_run_on, cuda_dropped, cuda_predates, sm_of
from envdoctor.versions import in_range, ver


def torch_build_lacks(torch: str, cuda: str | None, cc: str,
                      official: bool = True) -> bool | None:
    """Whether the torch wheels of ``torch`` (its ``cuda`` variant, or every variant the
    table lists when none is stated) carry no code for ``cc``; None when the table has no row.
    ``official``: the text shows no pre-release or source build of torch, so the release's
    ``[[binary_floor]]`` speaks for it too."""
    v, sm = ver(torch), sm_of(cc)
    if v is None or sm is None:
        return None
    from envdoctor.matrices.torch import lookup_binary_floor
    floor_row = lookup_binary_floor(v) if official else None
    floor, have = ver(floor_row.get("min_cc")) if floor_row else None, ver(cc)
    if floor is not None and have is not None and have < floor:
        return True  # below every official build of the release ([[binary_floor]])
    tag = f"cu{cuda.replace('.', '')}" if cuda else None
    rows = [r for r in matrix("torch").get("variant", [])
            if in_range(v, str(r.get("torch", ""))) and r.get("platform", "default") == "default"
            and (tag is None or r.get("cuda") == tag) and r.get("archs")]
    if not rows:
        return None
    return not any(archs_run_on(list(r["archs"]), sm) for r in rows)


def torch_variant_lacks(cuda: str, cc: str) -> bool | None:
    """Whether no torch release's ``cuda`` variant (``cu128`` named without a torch version)
    carries code for ``cc``; None when the table has no such variant."""
    sm, tag = sm_of(cc), f"cu{cuda.replace('.', '')}"
    rows = [r for r in matrix("torch").get("variant", [])
            if r.get("cuda") == tag and r.get("platform", "default") == "default"
            and r.get("archs")]
    if sm is None or not rows:
        return None
    return not any(archs_run_on(list(r["archs"]), sm) for r in rows)


def cuda_build_lacks(cuda: str, cc: str) -> bool:
    """Whether CUDA ``cuda`` no longer, or not yet, builds code for ``cc``."""
    return cuda_dropped(cuda, cc) is not None or cuda_predates(cuda, cc) is not None



def architecture_ccs(word: str) -> list[str]:
    """The compute capabilities of the GPU table's architecture rows named ``word`` ("Blackwell":
    10.0, 10.3, 12.0, 12.1), Jetson and Tegra boards (integrated GPUs) left out."""
    return [str(r.get("cc")) for r in matrix("gpus").get("arch", [])
            if str(r.get("name", "")).split(" ")[0] == word and not r.get("integrated")
            and "Jetson" not in str(r.get("name", "")) and "Tegra" not in str(r.get("name", ""))]


def cuda_builds_for_none(cuda: str, ccs: list[str]) -> bool:
    """Whether CUDA ``cuda`` builds code for none of these GPUs (an architecture's): every one the
    table can judge lacks it, and it can judge one. A GPU is judged when the table says it lacks
    it, knows its first CUDA, or names a last CUDA at or after this one (still built for); the
    others are skipped."""
    from envdoctor.matrices.gpus import first_cuda_for
    from envdoctor.versions import series
    want = series(cuda)
    lasts = {str(r.get("cc")): ver(r.get("last_cuda")) for r in matrix("gpus").get("arch", [])}
    judged = []
    for cc in ccs:
        lacks = cuda_build_lacks(cuda, cc)
        last = lasts.get(cc)
        if lacks or first_cuda_for(cc) is not None or \
                (want is not None and last is not None and last >= want):
            judged.append(lacks)
    return bool(judged) and all(judged)

def tf_release_cuda(version: str) -> str | None:
    """The CUDA a TensorFlow release's tested build was compiled with (tensorflow.toml), or
    None when the table has no row (or no CUDA) for it."""
    from envdoctor.matrices.tensorflow import lookup_tf_release
    row = lookup_tf_release(version)
    return str(row["cuda"]) if row is not None and row.get("cuda") else None


def python_outside_releases(framework: str, python: str, pin: str | None = None) -> bool:
    """Whether no release of ``framework`` in its table (only those a ``pin`` such as
    ">=2.2,<2.5" admits, when one is given) has wheels for ``python``."""
    v = ver(python)
    rows = [r for r in matrix(framework).get("release", [])
            if r.get("python") and (pin is None or _release_admitted(str(r.get(framework)), pin))]
    ranges = [str(r["python"]) for r in rows]
    return v is not None and bool(ranges) and not any(in_range(v, spec) for spec in ranges)


def _release_admitted(release: str, pin: str) -> bool:
    """Whether some patch of the minor ``release`` ("2.4") satisfies ``pin``."""
    patches = (ver(f"{release}.{patch}") for patch in range(10))
    return any(v is not None and in_range(v, pin) for v in patches)


def libraries_predate(cudas: list[str], cc: str) -> str | None:
    """The ``libraries_first_cuda`` of the GPU table's architecture row ``cc`` (the first CUDA
    whose libraries, cuBLAS and cuDNN, work on it: Turing, 10.0) when every CUDA of ``cudas`` is
    older than it; else None (no such row, or a CUDA at or after it, or one that does not parse)."""
    row = next((r for r in matrix("gpus").get("arch", []) if str(r.get("cc")) == cc), None)
    floor = ver(row.get("libraries_first_cuda")) if row is not None else None
    if floor is None or not cudas:
        return None
    versions = [ver(c) for c in cudas]
    if any(v is None or v >= floor for v in versions):
        return None
    return str(row.get("libraries_first_cuda")) if row is not None else None
