"""AMD SMI library queries, run in a child process so a crashing or hanging libamd_smi cannot
take envdoctor down (as ``_nvml_child`` does for NVML).

Standalone on purpose (no envdoctor imports): the parent starts it as
``python -I -S -c <this source> <folder of amdsmi>`` and reads one JSON object from stdout.
Before each call the child writes ``step <name>`` to stderr, so when it dies or hangs the parent
can say where. ``collect(lib)`` is also what tests call with a fake ``amdsmi``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

MAX_GPUS = 64


def _step(name: str) -> None:
    try:
        sys.stderr.write(f"step {name}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def _text(value: Any) -> str:
    return str(value)[:200] if value is not None else ""


def collect(lib: Any) -> dict[str, Any]:
    """Init, list the GPU handles, read each one's ASIC info (market name, gfx target), shut
    down. An exception in init or listing is the answer's ``error``."""
    _step("amdsmi_init")
    lib.amdsmi_init()
    gpus: list[dict[str, Any]] = []
    lost: list[dict[str, Any]] = []
    try:
        _step("amdsmi_get_processor_handles")
        handles = list(lib.amdsmi_get_processor_handles() or [])[:MAX_GPUS]
        for i, handle in enumerate(handles):
            _step(f"amdsmi_get_gpu_asic_info({i})")
            try:
                asic = lib.amdsmi_get_gpu_asic_info(handle) or {}
            except Exception as exc:  # noqa: BLE001 - one GPU's failure is that GPU's
                lost.append({"index": i, "error": (str(exc) or type(exc).__name__)[:200]})
                continue
            gpus.append({"index": i, "name": _text(asic.get("market_name")),
                         "gfx": _text(asic.get("target_graphics_version"))})
    finally:
        _step("amdsmi_shut_down")
        try:
            lib.amdsmi_shut_down()
        except Exception:  # noqa: BLE001 - the answer is already read
            pass
    return {"ok": True, "gpus": gpus, "lost": lost}


def main(argv: list[str]) -> int:
    if len(argv) > 1 and argv[1]:
        sys.path.insert(0, argv[1])
    try:
        import amdsmi as lib
    except Exception as exc:  # noqa: BLE001
        answer: dict[str, Any] = {"ok": False, "stage": "import",
                                  "error": f"amdsmi unavailable: {exc}"}
    else:
        try:
            answer = collect(lib)
        except Exception as exc:  # noqa: BLE001
            answer = {"ok": False, "stage": "query",
                      "error": (str(exc) or type(exc).__name__).strip()[:500]}
    sys.stdout.write(json.dumps(answer))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
