"""The glue between ``envdoctor check``'s options and the live workers (kept out of the command
so that the command file stays a list of options)."""

from __future__ import annotations

from dataclasses import dataclass

from envdoctor.errors import BadInput
from envdoctor.facts import Facts
from envdoctor.live import run_live, smoke_lines
from envdoctor.live.orchestrate import DEFAULT_TIMEOUT
from envdoctor.outputs.summary import AreaLine
from envdoctor.workers import WORKERS

ALIASES = {"pytorch": "torch", "tf": "tensorflow", "tensorflow-cpu": "tensorflow",
           "paddlepaddle": "paddle", "paddlepaddle-gpu": "paddle", "ms": "mindspore",
           "mx": "mxnet", "apache-mxnet": "mxnet", "tf-keras": "keras"}
FULL_TIMEOUT = 300.0
STATUS = {"passed": "ok", "failed": "error", "error": "error", "skipped": "unknown"}


@dataclass(frozen=True)
class LiveOptions:
    frameworks: tuple[str, ...] | None
    timeout: float | None


def live_options(frameworks: str | None, timeout: float | None) -> LiveOptions:
    """Validate ``--framework`` and ``--timeout``; BadInput (exit 2) names the wrong value."""
    names: tuple[str, ...] | None = None
    if frameworks is not None:
        raw = [n.strip().lower() for n in frameworks.split(",") if n.strip()]
        names = tuple(dict.fromkeys(ALIASES.get(n, n) for n in raw))
        unknown = [n for n in names if n not in WORKERS]
        if unknown or not names:
            raise BadInput(f"--framework {frameworks!r}: unknown {', '.join(unknown) or 'list'}; "
                           f"choose from {', '.join(WORKERS)}")
    return LiveOptions(names, None if timeout is None else float(timeout))


def run_for_check(facts: Facts, options: LiveOptions, suite: str, smoke: bool) -> Facts:
    # torch.compile builds C++ with the system compiler: a minute of CPU on a small machine
    timeout = options.timeout or (FULL_TIMEOUT if suite == "full" and smoke else DEFAULT_TIMEOUT)
    return run_live(facts, options.frameworks, suite=suite, smoke=smoke, timeout=timeout)


def smoke_areas(facts: Facts) -> list[AreaLine]:
    """One summary line per smoke-tested framework (the pipeline adds them to the report)."""
    return [AreaLine(f"smoke:{name}", f"Smoke {name}", STATUS.get(status, "unknown"),
                     f"{status}: {detail}") for name, status, detail in smoke_lines(facts)]
