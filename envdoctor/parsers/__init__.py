"""Read someone else's environment from the text they pasted: a partial facts snapshot.

Maintainers get environments as ``collect_env`` output, ``jax.print_environment_info()``,
``nvidia-smi`` tables, ``pip list``, issue-template blocks… ``parse_text`` cleans what
GitHub did to the text (fences, ``>`` quotes, ``<details>``, CRLF), runs every registered
parser on it, and merges what they stated into one ``Facts`` with ``origin = "report"``.
Sections no parser stated stay ``unknown``, so rules that need them are *unknown*, never
findings. When two formats state the same fact, the more specific source wins (``RANK``:
``nvidia-smi -q`` over the table over ``collect_env`` over templates over prose).

Adding a format: a module with ``NAME``, ``RANK`` and ``parse(text) -> Partial``, listed in
``PARSERS``. ``envdoctor explain`` calls ``parse_text`` too; keep its signature.
"""

from __future__ import annotations

from typing import Protocol

from envdoctor.facts import Facts
from envdoctor.parsers import (
    banners,
    collect_env,
    conda_info,
    informal,
    installer,
    jax_env,
    nvcc,
    nvidia_smi,
    nvidia_smi_q,
    packages,
    pip_show,
    platform_lines,
    rocminfo,
    shell_lines,
    system_info,
    tf_build_info,
)
from envdoctor.parsers._partial import Partial, merge
from envdoctor.parsers._text import clean


class Parse(Protocol):
    """A format's ``parse``: cleaned text -> what it states (an empty Partial when the text
    holds none of its format); never raises on odd text, the input is anyone's paste."""

    def __call__(self, text: str, /) -> Partial: ...


# name -> parse(cleaned text) -> Partial. Order only breaks ties between equal ranks.
PARSERS: dict[str, Parse] = {
    nvidia_smi_q.NAME: nvidia_smi_q.parse,
    nvcc.NAME: nvcc.parse,
    nvidia_smi.NAME: nvidia_smi.parse,
    rocminfo.NAME: rocminfo.parse,
    platform_lines.NAME: platform_lines.parse,
    tf_build_info.NAME: tf_build_info.parse,
    jax_env.NAME: jax_env.parse,
    collect_env.NAME: collect_env.parse,
    conda_info.NAME: conda_info.parse,
    packages.NAME: packages.parse,
    pip_show.NAME: pip_show.parse,
    shell_lines.NAME: shell_lines.parse,
    system_info.NAME: system_info.parse,
    installer.NAME: installer.parse,
    banners.NAME: banners.parse,
    informal.NAME: informal.parse,
}
MAX_CHARS = 2_000_000  # a paste longer than this is cut: reports are kilobytes


def parse_parts(text: str) -> list[Partial]:
    """What each registered parser recognised in the text (empty partials dropped)."""
    return _parse_cleaned(clean(text[:MAX_CHARS] if isinstance(text, str) else ""))


def _parse_cleaned(cleaned: str) -> list[Partial]:
    parts = []
    for parse in PARSERS.values():
        part = parse(cleaned)
        if part:
            parts.append(part)
    return parts


def detect(text: str) -> list[str]:
    """Names of the formats found in the text, most specific first."""
    from envdoctor.parsers import envdoctor_report
    found = [p.source for p in sorted(parse_parts(text), key=lambda p: -p.rank)]
    if envdoctor_report.find_facts(clean(text or "")) is not None:
        found.insert(0, envdoctor_report.NAME)
    return found


def parse_text(text: str) -> Facts | None:
    """A partial facts snapshot (origin "report") from a pasted report; None if it has none."""
    from envdoctor.parsers import envdoctor_report
    if not isinstance(text, str) or not text.strip():
        return None
    cleaned = clean(text[:MAX_CHARS])
    own = envdoctor_report.find_facts(text[:MAX_CHARS]) or envdoctor_report.find_facts(cleaned)
    if own is not None:
        return own
    parts = _parse_cleaned(cleaned)
    if not _enough(parts):
        return None
    facts = merge(parts)
    if facts is None:
        return None
    from envdoctor.facts.serialize import out_of_range_unobserved
    return out_of_range_unobserved(facts)


def _enough(parts: list[Partial]) -> bool:
    """Prose alone (one stray ``name==1.0``) is not a report; a tool's output is."""
    if any(p.source not in (packages.NAME, informal.NAME, installer.NAME) for p in parts):
        return True
    facts_stated = sum(len(p.values) + len(p.packages) + len(p.gpus) + len(p.live)
                       for p in parts)
    # a CUDA out-of-memory message is PyTorch's own account of the device (total, free, what
    # the process held): tool output, not prose
    measured = any(g.memory_outside_mb is not None for p in parts for g in p.gpus)
    return facts_stated >= 2 or measured


def parse_pasted(text: str) -> Facts | None:
    """What ``check --from`` reads in a paste: its environment facts (``parse_text``) and the
    causes its error lines state (the ``explain`` engine, with those facts as conditions), in
    one snapshot. A paste with an error and no environment report is explained, not refused:
    its sections stay unknown (nothing was shown) and the diagnoses carry the cause. None
    when the text holds neither."""
    facts = parse_text(text)
    from envdoctor.live.parse import text_causes
    found = text_causes(text, facts)
    if not found:
        return facts
    if facts is None:
        from envdoctor.parsers._partial import ORIGIN
        facts = Facts(origin=ORIGIN)  # every section unknown: the text showed none
    from dataclasses import replace
    return replace(facts, diagnoses=found)


def load_report_file(path: str) -> Facts:
    """``check --from FILE|-``: a pasted report found anywhere in the input, read as a stream
    (bounded memory, any size); BadInput (exit 2, one line) when the input cannot be read or
    holds no report, saying exactly what was read."""
    from envdoctor.bounded import open_input
    from envdoctor.errors import BadInput, reading
    from envdoctor.parsers._stream import read_report_text
    stream = open_input(path, "a report")
    with stream, reading(path, "a report"):
        text, summary = read_report_text(stream)
    if summary.binary:
        raise BadInput(f"{path}: binary data, not a report")
    facts = parse_pasted(text)
    if facts is None:
        raise BadInput(f"{path}: no environment report found, nor an error envdoctor knows "
                       f"({summary.describe()}; expected "
                       "collect_env, nvidia-smi, nvcc, pip/conda list, jax or transformers "
                       "env output, or a platform tool's: rocminfo, rocm-smi, amd-smi, "
                       "ls -l /dev/kfd, sysctl, nv_tegra_release, wsl -l -v, "
                       "nvidia-container-cli info)")
    return facts
