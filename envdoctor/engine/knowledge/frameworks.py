"""Knowledge functions for the PaddlePaddle, MindSpore and MXNet checks (rules/checks/paddle|
mindspore|mxnet, NP002). What their workers printed is read in ``live`` (live_warned …).

Which Paddle CUDA variant a driver runs comes from rules/matrices/paddle.toml on top of CUDA's
own driver floors (cuda_driver.toml); the live functions read the workers' answers.
"""

from __future__ import annotations

import re
from typing import Any

from packaging.version import Version

from envdoctor.engine.knowledge._reads import Undetermined, optional, reads, result, some
from envdoctor.facts import LiveFramework
from envdoctor.matrices import confirmed, matrix
from envdoctor.matrices.cuda import lookup_compat_floor, lookup_max_cuda
from envdoctor.versions import in_range, ver

NEEDS_NUMPY = (("paddle", "PaddlePaddle"), ("mindspore", "MindSpore"), ("mxnet", "MXNet"),
               ("tensorflow", "TensorFlow"), ("jax", "JAX"), ("keras", "Keras"))


def driver_runs(driver: Version, cuda: Version, os_name: str = "linux") -> bool:
    """A driver runs a CUDA build when its newest CUDA series is at least the build's, or the
    build's major is in the driver's minor-version-compatibility range (same major, driver at
    or above that major's floor)."""
    newest = lookup_max_cuda(driver, os_name)
    if newest is not None and newest >= Version(f"{cuda.major}.{cuda.minor}"):
        return True
    floor = lookup_compat_floor(cuda, os_name)
    return floor is not None and driver >= floor and newest is not None \
        and newest.major == cuda.major


@reads(driver="nvidia.driver_version", os=optional("host.os", "linux"))
def driver_runs_cuda(cuda: Any, *, driver: Any, os: str) -> bool:
    """Can the installed driver run a build for that CUDA? Undetermined without a driver
    version or for a CUDA the matrix does not know."""
    have, want = ver(driver), ver(cuda)
    if have is None or want is None:
        raise Undetermined("no driver version or no CUDA version")
    if lookup_compat_floor(want, os) is None and lookup_max_cuda(have, os) is None:
        raise Undetermined(f"CUDA {want} / driver {have} are not in the matrix")
    return driver_runs(have, want, os)


def paddle_variants(paddle_version: Any) -> list[dict[str, Any]]:
    """The ``[[variant]]`` rows of rules/matrices/paddle.toml for that Paddle release."""
    v = ver(paddle_version)
    if v is None:
        return []
    base = Version(v.base_version)
    return [r for r in matrix("paddle").get("variant", []) if in_range(base, r.get("paddle", ""))]


@reads(paddle="frameworks.paddle", driver="nvidia.driver_version",
       os=optional("host.os", "linux"))
def paddle_variant(*, paddle: Any, driver: Any, os: str) -> dict[str, Any] | None:
    """The newest Paddle GPU variant of the installed release that this driver runs, as
    {tag, cuda, index_url, install, confirmed}; None when none does."""
    have = ver(driver)
    if paddle is None or have is None:
        return None
    fits = [(cuda, r) for r in paddle_variants(paddle.version)
            if (cuda := ver(r.get("cuda"))) is not None and driver_runs(have, cuda, os)]
    if not fits:
        return None
    best = max(fits, key=lambda fit: fit[0])[1]
    release = Version(paddle.version.base_version) if paddle.version else None
    if str(best["tag"]).startswith("post"):
        pin = f"paddlepaddle-gpu=={release}.{best['tag']}" if release else "paddlepaddle-gpu"
        install = f"python -m pip install {pin} -f {best['index_url']}"
    else:
        pin = f"paddlepaddle-gpu=={release}" if release else "paddlepaddle-gpu"
        install = f"python -m pip install {pin} -i {best['index_url']}"
    return {**best, "install": install, "confirmed": confirmed(best)}


@reads(variant=result("paddle_variant"))
def paddle_install(*, variant: dict[str, Any] | None) -> str:
    """The install command of ``paddle_variant()``, or what to do when no variant of this
    release runs on the driver."""
    if variant is None:
        return ("no paddlepaddle-gpu variant of this release runs on this driver: upgrade the "
                "NVIDIA driver (https://www.nvidia.com/Download/index.aspx)")
    return variant["install"]


@reads(frameworks=some("frameworks"), live=optional("live", None))
def numpy_dependents(*, frameworks: Any, live: dict[str, Any] | None) -> list[str]:
    """The installed frameworks that import NumPy when imported themselves (torch does not),
    less those whose import was observed to say otherwise: what a worker saw outranks what
    the package metadata suggests (see ``import_says_otherwise``)."""
    seen = live or {}
    return [label for name, label in NEEDS_NUMPY if getattr(frameworks, name) is not None
            and not import_says_otherwise(seen.get(name))]


# An import error that names a shared library ("libcudnn.so.9: cannot open shared object
# file") got past NumPy: the library is its cause, whatever the metadata says of NumPy.
_NAMES_LIBRARY = re.compile(r"\blib[\w+.-]{1,60}?\.(?:so|dylib|dll)\b|\.dll\b", re.IGNORECASE)
# Python's own words for NumPy not importable, in the error or in the traceback above it
# (jaxlib's final line is only "Encountered an error while initializing the extension"; the
# chained "No module named 'numpy'" above it also earns EPY008, which is NumPy's absence too)
_NUMPY_NOT_IMPORTABLE = re.compile(r"No module named '?numpy\b")


def import_says_otherwise(lf: Any) -> bool:
    """Whether a framework worker that ran observed something other than "NumPy is missing":
    its import worked, or it failed on a cause of its own (a shared library it names, or an
    error signature other than NumPy's). An opaque failure (jaxlib's "Encountered an error
    while initializing the extension") or one that names NumPy says nothing against it."""
    if not isinstance(lf, LiveFramework) or not lf.ran_cleanly:
        return False  # the worker did not run, or broke: it observed nothing of the import
    if lf.import_ok is True:
        return True
    error = lf.import_error or ""
    if lf.import_ok is not False or "numpy" in error.lower() \
            or _NUMPY_NOT_IMPORTABLE.search(lf.stderr_tail or ""):
        return False
    if any(not d.code.startswith("ENUMPY") for d in lf.diagnoses):
        return True
    return bool(_NAMES_LIBRARY.search(error))
