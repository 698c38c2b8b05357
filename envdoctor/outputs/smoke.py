"""The one line about a framework's smoke run that every output shows (`check`, `report`, the
Markdown renderer), from the smoke block ``live.smoke_report`` writes or a saved JSON holds."""

from __future__ import annotations

from typing import Any


def smoke_detail(block: dict[str, Any]) -> str:
    """One line about one framework's smoke block (``smoke_report``'s shape, or the same block
    read back from a saved JSON): the one count every output shows ("7/7 steps passed"; a
    skipped step is not counted as run)."""
    steps = [s for s in block.get("steps") or () if isinstance(s, dict)]
    status = block.get("status")
    if status == "error":
        return str(block.get("detail") or (steps[0].get("detail", "") if steps else ""))
    if status == "skipped":
        return str(steps[0].get("detail", "skipped") if steps else "skipped")
    ran = [s for s in steps if s.get("status") != "skipped"]
    passed = sum(s.get("status") == "passed" for s in ran)
    failed = [f"{s.get('name')} ({s.get('detail') or s.get('status')})" for s in ran
              if s.get("status") != "passed"]
    seconds = sum(float(s.get("seconds") or 0.0) for s in steps)
    detail = f"{passed}/{len(ran)} steps passed on {block.get('device') or '?'} " \
             f"({block.get('suite') or '?'}, {seconds:.1f}s)"
    if failed:
        detail += "; failed: " + "; ".join(failed)
    return detail
