"""Print the two figures of a held-out set of pasted reports: healthy clean, problems caught.

    PYTHONPATH=$PWD python tests/corpus/reports/measure.py tests/corpus/reports/heldout2

One line per report (ALARM: a healthy report got an error or warning; MISS: a problem report
got none of its ``expected_any`` checks), then the totals.
"""

from __future__ import annotations

import sys
from pathlib import Path

import tomllib

from envdoctor import pipeline
from envdoctor.parsers import parse_text

LOUD = ("error", "warning")


def main(folder: str) -> int:
    clean = healthy = caught = problems = 0
    for path in sorted(Path(folder).glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        facts = parse_text(data["text"])
        loud = [] if facts is None else [f for f in pipeline.diagnose(facts).findings
                                          if f.severity.value in LOUD]
        if data["healthy"]:
            healthy += 1
            clean += not loud
            print("ok   " if not loud else "ALARM", path.stem, [f.id for f in loud])
        else:
            problems += 1
            hit = bool({f.id for f in loud} & set(data["expected_any"]))
            caught += hit
            print("hit  " if hit else "MISS ", path.stem, sorted({f.id for f in loud}))
    print(f"healthy clean {clean}/{healthy}; problems caught {caught}/{problems}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "tests/corpus/reports/heldout2"))
