"""The specific answer: a signature's ``facts_notes`` filled from the facts its text states.

A signature names a family ("jax and its CUDA plugin are incompatible versions"); the text
that matched it often states the particulars: the versions of the pair, the GPU and its
compute capability, the symbol and the library release it was looked for in. A signature
lists notes with ``{placeholders}`` over ``STATED`` (names of ``textfacts.TextFacts``)::

    facts_notes = ["The text states jax {jax} with jaxlib {jaxlib}."]

A note is added only when every placeholder it names is stated in the text: a fact the text
does not state is unknown, and a note is never written about an unknown. Placeholder names are
checked when the rules load (``check_template``), so a misspelt one is a load error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from envdoctor.rulefiles import RuleFileError

if TYPE_CHECKING:
    from envdoctor.explain.rank import Diagnosis
    from envdoctor.explain.textfacts import TextFacts

_PLACEHOLDER = re.compile(r"\{([a-z_]{1,40})\}")
_VERSIONED = ("python", "torch", "torchvision", "torchaudio", "cuda", "cudnn", "driver", "jax",
              "jaxlib", "jax_plugin", "tensorflow", "keras", "tf_keras", "paddle", "mxnet",
              "mindspore", "numpy", "flash_attn", "xformers", "bitsandbytes", "vllm",
              "triton", "nccl", "libtpu")


def _first(values: tuple[str, ...]) -> str | None:
    return values[0] if values else None


def _version_of(name: str) -> Callable[[TextFacts], str | None]:
    def read(facts: TextFacts) -> str | None:
        return facts.version(name)
    return read


STATED: dict[str, Callable[[TextFacts], str | None]] = {
    **{name: _version_of(name) for name in _VERSIONED},
    "gpu": lambda f: _first(f.gpus),
    "cc": lambda f: _first(f.compute_capabilities),
    "symbol": lambda f: _first(f.symbols),
    "symbol_version": lambda f: _first(f.symbol_versions),
    "library": lambda f: _first(f.libraries),
    "exception": lambda f: f.last_exception.type if f.last_exception else None,
}
MAX_NOTES = 4


def check_template(notes: object, path: Path | str, fld: str = "facts_notes") -> tuple[str, ...]:
    """Validate a signature's ``facts_notes``: a list of strings naming only ``STATED``."""
    if not isinstance(notes, list) or not all(isinstance(n, str) and n.strip() for n in notes):
        raise RuleFileError(path, fld, "must be a list of non-empty strings")
    if len(notes) > MAX_NOTES:
        raise RuleFileError(path, fld, f"at most {MAX_NOTES} notes")
    for note in notes:
        names = _PLACEHOLDER.findall(note)
        if not names:
            raise RuleFileError(path, fld, f"{note!r} names no {{fact}} (use the why text)")
        unknown = sorted(set(names) - set(STATED))
        if unknown:
            raise RuleFileError(path, fld, f"unknown fact(s) {unknown}; known: {sorted(STATED)}")
    return tuple(notes)


def fill(note: str, facts: TextFacts) -> str | None:
    """The note with its placeholders filled, or None if the text does not state one."""
    values: dict[str, str] = {}
    for name in set(_PLACEHOLDER.findall(note)):
        value = STATED[name](facts) if name in STATED else None
        if value is None:
            return None
        values[name] = value
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], note)


def with_stated_facts(text: str, diagnoses: list[Diagnosis]) -> list[Diagnosis]:
    """``diagnoses`` with the notes their signatures' ``facts_notes`` can fill from ``text``
    (the text is read for facts only when a diagnosis has such notes)."""
    wanted = [d for d in diagnoses if d.signature is not None
              and d.signature.extra.get("facts_notes")]
    if not wanted:
        return diagnoses
    from envdoctor.explain.textfacts import text_facts
    facts = text_facts(text)
    out = []
    for d in diagnoses:
        templates = d.signature.extra.get("facts_notes", ()) if d.signature else ()
        notes = tuple(n for n in (fill(t, facts) for t in templates) if n and n not in d.notes)
        out.append(replace(d, notes=d.notes + notes) if notes else d)
    return out
