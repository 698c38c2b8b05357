"""The loader's verdicts (``libraries.verdicts``) that are a risk, for LDR001.

ld.so loading the system's libcudnn.so.9 instead of the wheel's is what the headers say; it is
a fault only when that copy is older than the one the framework was built against (or nobody
can tell): the same or a newer cuDNN/cuBLAS of the same soname is the common, working
``/usr/local/cuda/lib64`` set-up and no warning.
"""

from __future__ import annotations

from typing import Any

from envdoctor.engine.knowledge._reads import reads

SHADOWING_STEPS = ("ld_library_path", "ld.so.cache", "default")


def _risky(v: Any) -> bool:
    if not (v.bundled and v.path and v.path != v.bundled and v.step in SHADOWING_STEPS):
        return False
    if v.path_version is None or v.bundled_version is None:
        return True
    return bool(v.path_version.release[:3] < v.bundled_version.release[:3])


@reads(verdicts="libraries.verdicts")
def shadowing_verdicts(*, verdicts: Any) -> list[Any]:
    """The verdicts where ld.so loads a system copy instead of the wheel's and that copy is
    older than the wheel's (or a version is unknown)."""
    return [v for v in verdicts if _risky(v)]
