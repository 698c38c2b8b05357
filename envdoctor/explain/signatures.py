"""Error signatures (``rules/signatures/<family>/<CODE>.toml``): load, validate, compile.

A signature is data: regexes searched per line (``patterns``), regexes that cancel a claim
(``anti_patterns``), the explanation (``why``/``fix``/``references``), optional
``[[conditions]]`` over facts, and ``[[examples]]`` that must / must not match, each with the
URL it came from. Validation errors name the file and the field (``RuleFileError``).

For speed every pattern also gets a *prefilter*: a set of lower-case literal strings of which
at least one must occur in any line the regex can match (extracted from the regex's parse
tree). The scanner checks the cheap literals on big blocks of text first and runs the regex
only on the few lines that contain one; see ``envdoctor.explain.scan``.
"""

from __future__ import annotations

import re
import sys
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, overload

if sys.version_info >= (3, 11):  # the parser moved to re._parser
    from re import _compiler as sre_compile
    from re import _constants as sre_constants
    from re import _parser as sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_compile
    import sre_constants
    import sre_parse
_sre = sys.modules.get("_sre")  # the regex engine (``re`` has imported it)

from envdoctor.engine import redos
from envdoctor.explain import digits, platforms, precompiled
from envdoctor.explain.reduced import ordinary, reduced_len
from envdoctor.rulefiles import (
    RuleFileError,
    cached_json,
    check_identity,
    file_stamps,
    is_url,
    load_toml,
    rules_dir,
    toml_files,
)

CATEGORIES = ("environment", "usage", "benign", "user_code")
CONFIDENCES = ("high", "medium", "low")
CODE_RE = re.compile(r"^E[A-Z]{2,8}\d{3}$")
REQUIRED = ("code", "id", "title", "category", "patterns", "why", "fix", "references",
            "examples")
_REQUIRED_CACHED = REQUIRED[:-1]  # a cached entry's examples are cached apart
MIN_LITERAL = 3  # shorter literals filter too little to be worth it


class Pattern:
    """One regex and its prefilter (None: no literal found, scan every line).

    The regex is compiled on first use: a short traceback touches only a few of the ~200
    patterns, so start-up does not pay for compiling all of them.
    """

    __slots__ = ("_regex", "literals", "source")

    def __init__(self, source: str, literals: tuple[str, ...] | None,
                 regex: re.Pattern[str] | None = None):
        self.source, self.literals, self._regex = source, literals, regex

    @property
    def regex(self) -> re.Pattern[str]:
        if self._regex is None:
            self._regex = precompiled.compile(self.source)
        return self._regex

    def __repr__(self) -> str:
        return f"Pattern({self.source!r})"


class Condition:
    """``when`` (an expression over facts) -> a note and, optionally, a new confidence and
    category (facts that show an environment cause turn "usually your input" into one).

    ``when`` is parsed on first use when the file came from the cache (it was validated when
    the cache was written), so explaining a plain traceback never imports the expression
    language.
    """

    __slots__ = ("when_source", "note", "confidence", "category", "_tree")

    def __init__(self, when_source: str, note: str, confidence: str | None = None,
                 tree: Any = None, category: str | None = None):
        self.when_source, self.note, self.confidence, self._tree = \
            when_source, note, confidence, tree
        self.category = category

    @property
    def when(self) -> Any:  # ast.Expression
        if self._tree is None:
            from envdoctor.engine import expr
            self._tree = expr.compile_expr(self.when_source)
        return self._tree


@dataclass(frozen=True)
class Context:
    """Co-occurrence: other lines of the same text change what a hit means.

    Applies when one of ``text`` occurs anywhere in the text (or ``text`` is empty) and none
    of ``absent`` does. It may drop the hit (``drop``: "a bare KeyError only counts inside a
    framework wrapper"), re-categorise it ("a TensorFlow dlerror with *Ignore above
    ... if you do not have a GPU* and no GPU in sight is harmless"), move it in the ranking,
    add a note, or give the fix that fits the framework that raised it.
    """

    text: tuple[Pattern, ...] = ()
    absent: tuple[Pattern, ...] = ()
    category: str | None = None
    confidence: str | None = None
    rank: int = 0
    note: str = ""
    fix: str = ""
    drop: bool = False


@dataclass(frozen=True)
class SigExample:
    matches: bool
    text: str
    source: str


class CachedExamples(Sequence[SigExample]):
    """A cached signature's examples, read on first use: they are ~30 % of the signature cache
    (~0.5 MB of texts) and a log's scan never reads them, so they are cached in an entry of
    their own (``_ExampleStore``). Reads as the tuple ``parse_signature`` builds."""

    __slots__ = ("_store", "_index", "_got")

    def __init__(self, store: _ExampleStore, index: int):
        self._store, self._index = store, index
        self._got: tuple[SigExample, ...] | None = None

    def _all(self) -> tuple[SigExample, ...]:
        if self._got is None:
            self._got = self._store.get()[self._index]
        return self._got

    @overload
    def __getitem__(self, i: int) -> SigExample: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[SigExample, ...]: ...

    def __getitem__(self, i: int | slice) -> SigExample | tuple[SigExample, ...]:
        return self._all()[i]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[SigExample]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CachedExamples):
            other = other._all()
        return self._all() == other if isinstance(other, tuple) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._all())

    @property
    def store_key(self) -> Any:
        """The key the examples' cache entry is read under (words derived from them share it)."""
        return self._store.key


class _ExampleStore:
    """Every signature's examples of one load, from their own cache entry (keyed as the
    signatures' entry), or read from the rule files again when that entry is missing."""

    def __init__(self, key: Any, files: list[Path]):
        self.key, self.files = key, files
        self._got: list[tuple[SigExample, ...]] | None = None

    def get(self) -> list[tuple[SigExample, ...]]:
        if self._got is None:
            value, _ = cached_json("sigexamples", self.key, self._build, _valid_examples)
            if len(value) != len(self.files):  # another file list: cannot happen (keyed)
                value = self._build()
            self._got = [tuple(SigExample(m, t, src) for m, t, src in exs) for exs in value]
        return self._got

    def _build(self) -> list[list[list[Any]]]:
        return _example_rows([(load_toml(p), p) for p in self.files])


def _example_rows(parsed: list[tuple[dict[str, Any], Path]]) -> list[list[list[Any]]]:
    """Each file's examples, validated, as JSON rows [matches, text, source]."""
    rows = []
    for data, path in parsed:
        exs = data.get("examples")
        if not isinstance(exs, list):
            raise RuleFileError(path, "examples", "is required")
        rows.append([[e.matches, e.text, e.source]
                     for e in (_example(x, path, i) for i, x in enumerate(exs))])
    return rows


def _valid_examples(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(exs, list) and all(
            isinstance(e, list) and len(e) == 3 and isinstance(e[0], bool)
            and isinstance(e[1], str) and isinstance(e[2], str) for e in exs)
        for exs in value)


@dataclass(frozen=True)
class Signature:
    code: str
    id: str
    title: str
    category: str
    confidence: str
    root_cause_rank: int
    patterns: tuple[Pattern, ...]
    anti_patterns: tuple[Pattern, ...]
    why: str
    fix: str
    references: tuple[str, ...]
    conditions: tuple[Condition, ...] = ()
    examples: Sequence[SigExample] = ()  # a tuple, or ``CachedExamples`` (read on first use)
    contexts: tuple[Context, ...] = ()
    family: str = ""
    path: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------- literals
def required_literals(pattern: str) -> tuple[str, ...] | None:
    """Lower-case strings, one of which must occur in any text the regex matches, or None.

    Walks the ``re`` parse tree: for a sequence, the longest literal run (or the best
    alternation of literals) is required; a top-level ``a|b`` requires one of each branch's
    literals. Anything it cannot reason about returns None (the caller then scans every line),
    so the answer is always safe.
    """
    try:
        tree = sre_parse.parse(pattern)
    except re.error:
        return None
    return _literals_in(tree)


def _literals_in(tree: Any) -> tuple[str, ...] | None:
    """``required_literals`` of a parse tree."""
    result = _seq_literals(list(tree))
    if not result or any(len(lit.encode("utf-8")) < MIN_LITERAL for lit in result):
        return None
    # ASCII-only lower-casing: the scanner lower-cases raw UTF-8 bytes (bytes.lower)
    return tuple(sorted({lit.translate(_ASCII_LOWER) for lit in result}))


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


# Strings a literal run may expand to through small alternations. Wide enough for a phrase
# such as "(?:has|with|only) (?:one|a single|1) (?:GPU|graphics card)" to be its own literals
# (40 of them): its first word alone ("with") is in ordinary log lines, and every such line
# would go to the regex.
MAX_VARIANTS = 64
_ZERO_WIDTH = (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT)


def _score(cands: tuple[str, ...] | None) -> tuple[bool, bool, int]:
    """How selective a required literal set is, compared as a tuple: can every member anchor
    (``MIN_LITERAL`` bytes once reduced), does no member occur in healthy training-log lines
    ('site-packages', 'cuda_visible_devices': such a literal sends ordinary lines to the
    regexes), then the weakest member's length once reduced, in UTF-8 bytes, as the scanner
    searches it ('--gpu' is 'gpu' there; "怎么装", 9 bytes, is rarer). On a tie the earlier set
    is kept."""
    if not cands:
        return (False, False, 0)
    n = min(reduced_len(c) for c in cands)
    return (n >= MIN_LITERAL, not any(ordinary(c) for c in cands), n)


def _exact(items: list[tuple[Any, Any]]) -> list[str] | None:
    """Every string a sequence can match, if it is a small finite set of plain literals (small
    alternations, optional literals, one-character classes, zero-width assertions); else None."""
    out = [""]
    for op, av in items:
        if op is sre_constants.LITERAL:
            strs = [chr(av)]
        elif op in _ZERO_WIDTH:
            continue
        elif op is sre_constants.SUBPATTERN:
            sub = _exact(list(av[-1]))
            if sub is None:
                return None
            strs = sub
        elif op is sre_constants.BRANCH:
            alts = [_exact(list(b)) for b in av[1]]
            if any(a is None for a in alts):
                return None
            strs = sorted({x for a in alts for x in a or ()})
        elif op is sre_constants.IN:
            chars = _class_chars(av)
            if chars is None:
                return None
            strs = chars
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and av[:2] == (0, 1):
            sub = _exact(list(av[2]))
            if sub is None:
                return None
            strs = ["", *sub]
        else:
            return None
        out = [a + b for a in out for b in strs]
        if len(out) > MAX_VARIANTS:
            return None
    return out


def _class_chars(av: Any) -> list[str] | None:
    """The characters of a small ``[...]`` of plain ASCII literals (lower-cased), else None."""
    chars = set()
    for op, v in av:
        if op is not sre_constants.LITERAL or v > 0x7F:
            return None
        chars.add(chr(v).translate(_ASCII_LOWER))
    return sorted(chars) if 0 < len(chars) <= 4 else None


def _prefixes(items: list[tuple[Any, Any]]) -> list[str]:
    """The literal strings a sequence's match must start with (``[""]`` when none is known)."""
    out = [""]
    for k, (op, av) in enumerate(items):
        whole = _exact(items[k:k + 1])
        if whole is None:
            if op is sre_constants.SUBPATTERN:
                inner = _prefixes(list(av[-1]))
                return [a + b for a in out for b in inner] if len(out) * len(inner) \
                    <= MAX_VARIANTS else out
            return out
        grown = [a + b for a in out for b in whole]
        if len(grown) > MAX_VARIANTS:
            return out
        out = grown
    return out


def _seq_literals(items: list[tuple[Any, Any]]) -> tuple[str, ...] | None:
    """Best required literal set for a sequence of parse items.

    A literal run continues through zero-width assertions (``\\b``, look-arounds) and through
    small alternations of plain literals (``--gpu(?:_ids?|-ids?)`` requires one of
    '--gpu_id', '--gpu-ids', ...), and ends on the leading literals of an alternation it cannot
    pass: the longer the run, the rarer the anchor the scanner can search for it.
    """
    best: tuple[str, ...] | None = None
    run = [""]

    def flush() -> None:
        nonlocal best, run
        cand = tuple(sorted(set(run)))
        if _score(cand) > _score(best):
            best = cand
        run = [""]

    def grow(strs: list[str]) -> bool:
        nonlocal run
        grown = [a + b for a in run for b in strs]
        if len(grown) > MAX_VARIANTS:
            return False
        run = grown
        return True

    for op, av in items:
        if op in _ZERO_WIDTH:
            continue
        whole = _exact([(op, av)])
        if whole is not None and grow(whole):
            continue
        heads = _prefixes([(op, av)]) if whole is None else whole
        if heads != [""] and len(run) * len(heads) <= MAX_VARIANTS:
            grow(heads)
        flush()
        if whole is not None:  # too many variants to join the run: start a new one with them
            run = whole if len(whole) <= MAX_VARIANTS else [""]
            continue
        sub: tuple[str, ...] | None = None
        if op is sre_constants.SUBPATTERN:
            sub = _seq_literals(list(av[-1]))
        elif op is sre_constants.BRANCH:
            alts = [_seq_literals(list(b)) for b in av[1]]
            found = [a for a in alts if a]
            if len(found) == len(alts):
                sub = tuple(x for a in found for x in a)
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and av[0] >= 1:
            sub = _seq_literals(list(av[2]))
        if sub and _score(sub) > _score(best):
            best = sub
    flush()
    return best


def compile_pattern(source: str, path: Path | str, fld: str,
                    known: dict[str, Any] | None = None, rule: str = "") -> Pattern:
    """Validate and prepare one regex; ``known`` (from the cache) skips the compile.

    A regex that can backtrack catastrophically (``engine.redos``) is refused like a bad one:
    it would hang ``explain`` on a short line of pasted text. ``rule`` names the rule in the
    error. Cache entries were audited when they were written (the cache is sealed)."""
    if not isinstance(source, str) or not source:
        raise RuleFileError(path, fld, "each pattern must be a non-empty string")
    if known is not None and source in known:
        lits = known[source]
        return Pattern(source, None if lits is None else tuple(lits))
    done = _COMPILED.get(source)
    if done is not None:  # a source seen before (~30 %: the platform lists of contexts)
        return Pattern(source, done[0], done[1])
    try:  # one parse serves the compile and every check below (re.compile keeps no tree)
        tree = sre_parse.parse(source)
        regex = _compile_tree(source, tree)
    except (re.error, RecursionError, OverflowError) as exc:  # groups nested past the parser
        raise RuleFileError(path, fld, f"bad regex {source!r}: "
                                       f"{exc if isinstance(exc, re.error) else 'too complex'}"
                            ) from None
    if regex.search(""):
        raise RuleFileError(path, fld, f"{source!r} matches the empty string (matches anything)")
    digits.remember(source, digits.blind_tree(tree))
    why = redos.problem_in(tree)
    if why:
        raise RuleFileError(path, fld, f"rule {rule or '?'}: {source!r} can backtrack "
                                       f"catastrophically: {why}")
    done = _COMPILED[source] = (_literals_in(tree), regex)
    return Pattern(source, *done)


def _compile_tree(source: str, tree: Any) -> re.Pattern[str]:
    """``re.compile(source)`` from the tree ``sre_parse.parse(source)`` made: what
    ``re._compiler.compile`` does after its own parse (half of a compile's cost), the
    pattern's text kept so the result equals ``re.compile``'s (tests compare every rule's).
    ``re.compile`` where this Python's internals differ."""
    code_of = getattr(sre_compile, "_code", None)
    if code_of is None or _sre is None or not hasattr(tree, "state"):
        return re.compile(source)
    state = tree.state
    index_group: list[str | None] = [None] * state.groups
    for name, i in state.groupdict.items():
        index_group[i] = name
    regex: re.Pattern[str] = _sre.compile(source, state.flags, code_of(tree, 0), state.groups - 1,
                                          state.groupdict, tuple(index_group))
    return regex


# source -> (literals, regex) of each pattern that passed ``compile_pattern``'s checks, which
# depend on the source alone: a cold build meets ~3 900 patterns, ~2 750 of them distinct
_COMPILED: dict[str, tuple[tuple[str, ...] | None, re.Pattern[str]]] = {}


# ---------------------------------------------------------------------------- parsing
def parse_signature(data: dict[str, Any], path: Path | str,
                    known: dict[str, Any] | None = None,
                    examples: Sequence[SigExample] | None = None) -> Signature:
    """Validate one signature file's data; errors name the file and the field.

    ``known`` maps pattern source -> literals from a cache of already validated files;
    ``examples`` are its examples from that cache (then ``data`` has none: checked when the
    cache was written).
    """
    check_identity(data, path, REQUIRED if examples is None else _REQUIRED_CACHED, CODE_RE,
                   "ETORCH001 (E + family + 3 digits)")
    code = data["code"]
    where = str(path)  # os.path, not pathlib: two Paths a signature cost ~10 ms a load
    stem = os.path.splitext(os.path.basename(where))[0]
    if stem.startswith("E") and stem != code:
        raise RuleFileError(path, "code", f"{code!r} does not match the file name {stem!r}")
    for key in ("title", "why", "fix"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise RuleFileError(path, key, "must be a non-empty string")
    if data["category"] not in CATEGORIES:
        raise RuleFileError(path, "category", f"{data['category']!r} is not one of {CATEGORIES}")
    confidence = data.get("confidence", "medium")
    if confidence not in CONFIDENCES:
        raise RuleFileError(path, "confidence", f"{confidence!r} is not one of {CONFIDENCES}")
    rank = data.get("root_cause_rank", 50)
    if not isinstance(rank, int) or isinstance(rank, bool) or not 0 <= rank <= 100:
        raise RuleFileError(path, "root_cause_rank", f"{rank!r} is not an integer 0-100")
    refs = data["references"]
    if not isinstance(refs, list) or not refs or not all(is_url(r) for r in refs):
        raise RuleFileError(path, "references", "must be a non-empty list of URLs")
    pats = data["patterns"]
    if not isinstance(pats, list) or not pats:
        raise RuleFileError(path, "patterns", "must be a non-empty list of regexes")
    antis = data.get("anti_patterns", [])
    if not isinstance(antis, list):
        raise RuleFileError(path, "anti_patterns", "must be a list of regexes")
    rule = f"{code} ({data['id']})"
    patterns = tuple(compile_pattern(p, path, "patterns", known, rule) for p in pats)
    anti = tuple(compile_pattern(p, path, "anti_patterns", known, rule) for p in antis)
    conditions = tuple(_condition(c, path, i, validate=known is None)
                       for i, c in enumerate(data.get("conditions", [])))
    if examples is None:
        examples = tuple(_example(e, path, i) for i, e in enumerate(data["examples"]))
        if not any(e.matches for e in examples) or all(e.matches for e in examples):
            raise RuleFileError(path, "examples",
                                "needs at least one matching and one non-matching example")
    contexts = tuple(_context(c, path, i, known, rule)
                     for i, c in enumerate(data.get("context", [])))
    if known is None:  # checked when a cache entry was written (a big log never reads them)
        _check_readings(data, path)
    if "only_as_yield" in data and (not isinstance(data["only_as_yield"], bool)
                                    or not data.get("yields_to")):
        raise RuleFileError(path, "only_as_yield", "must be true or false, with yields_to")
    if "fallback" in data and not isinstance(data["fallback"], bool):
        raise RuleFileError(path, "fallback", "must be true or false")
    fields = set(REQUIRED) | {"confidence", "root_cause_rank", "anti_patterns", "conditions",
                              "context"}
    return Signature(code=code, id=data["id"], title=data["title"].strip(),
                     category=data["category"], confidence=confidence, root_cause_rank=rank,
                     patterns=patterns, anti_patterns=anti, why=data["why"].strip(),
                     fix=data["fix"].strip(), references=tuple(refs), conditions=conditions,
                     examples=examples, contexts=contexts,
                     family=os.path.basename(os.path.dirname(where)), path=where,
                     extra={k: v for k, v in data.items() if k not in fields})


def _check_readings(data: dict[str, Any], path: Path | str) -> None:
    """The fields that read a pasted text's stated facts: checked at load, not at use."""
    if "facts_notes" in data:
        from envdoctor.explain.stated import check_template
        check_template(data["facts_notes"], path)
    if "yields_to" in data:
        from envdoctor.explain.stated import check_yields
        check_yields(data["yields_to"], path)
    if "own_cause" in data:
        from envdoctor.explain.owncause import check_own_cause
        check_own_cause(data["own_cause"], path)
    if "stated_pair" in data:
        from envdoctor.explain.stated import check_pair
        check_pair(data["stated_pair"], path)
    if "stated_notes" in data:
        from envdoctor.explain.stated import check_stated_notes
        check_stated_notes(data["stated_notes"], path)
    if "no_claim_when" in data:
        from envdoctor.explain.stated import check_no_claim
        check_no_claim(data["no_claim_when"], path)
    if "lookup" in data:
        from envdoctor.explain.lookups import check_lookup
        check_lookup(data["lookup"], data["patterns"],
                     {k: data[k] for k in ("title", "why", "fix")}
                     | {f"context[{i}].fix": c.get("fix", "")
                        for i, c in enumerate(data.get("context", [])) if isinstance(c, dict)},
                     path)


def _condition(raw: Any, path: Path | str, i: int, validate: bool = True) -> Condition:
    fld = f"conditions[{i}]"
    if not isinstance(raw, dict) or not isinstance(raw.get("when"), str):
        raise RuleFileError(path, fld, "needs when = an expression")
    tree = None
    if validate:
        from envdoctor.engine import expr
        try:
            tree = expr.compile_expr(raw["when"])
        except expr.ExprError as exc:
            raise RuleFileError(path, f"{fld}.when", str(exc)) from None
        _check_condition_names(tree, raw.get("note", ""), path, fld)
    conf = raw.get("confidence")
    if conf is not None and conf not in CONFIDENCES:
        raise RuleFileError(path, f"{fld}.confidence", f"{conf!r} is not one of {CONFIDENCES}")
    note = raw.get("note", "")
    if not isinstance(note, str):
        raise RuleFileError(path, f"{fld}.note", "must be a string")
    category = raw.get("category")
    if category is not None and category not in CATEGORIES:
        raise RuleFileError(path, f"{fld}.category", f"{category!r} is not one of {CATEGORIES}")
    return Condition(raw["when"], note, conf, tree, category)


def _check_condition_names(tree: Any, note: Any, path: Path | str, fld: str) -> None:
    """A condition reads only names and fact paths that exist, in ``when`` and in the
    note's ``{placeholders}``: a misspelt one would never apply, silently."""
    from envdoctor.engine import expr
    from envdoctor.engine.checks import check_names
    check_names(tree, path, f"{fld}.when")
    for source in re.findall(r"\{([^{}]+)\}", note if isinstance(note, str) else ""):
        try:
            placeholder = expr.compile_expr(source)
        except expr.ExprError as exc:
            raise RuleFileError(path, f"{fld}.note", f"placeholder {{{source}}}: {exc}") \
                from None
        check_names(placeholder, path, f"{fld}.note")


CONTEXT_KEYS = {"text", "absent", "category", "confidence", "rank", "note", "fix", "drop"}


def _context(raw: Any, path: Path | str, i: int, known: dict[str, Any] | None,
             rule: str = "") -> Context:
    """One ``[[context]]`` table; its regexes need a prefilter literal (they are scanned)."""
    fld = f"context[{i}]"
    if not isinstance(raw, dict):
        raise RuleFileError(path, fld, "must be a table")
    extra = set(raw) - CONTEXT_KEYS
    if extra:
        raise RuleFileError(path, fld, f"unknown key(s) {sorted(extra)}; allowed: "
                                       f"{sorted(CONTEXT_KEYS)}")
    pats: dict[str, tuple[Pattern, ...]] = {}
    for key in ("text", "absent"):
        value = raw.get(key, [])
        if not isinstance(value, list):
            raise RuleFileError(path, f"{fld}.{key}", "must be a list of regexes")
        if any(isinstance(v, str) and v.startswith("@") for v in value):  # a platform's list
            value = platforms.expand(value, _rules_root(path), path, f"{fld}.{key}")
        pats[key] = tuple(compile_pattern(v, path, f"{fld}.{key}", known, rule) for v in value)
        for pat in pats[key]:
            if pat.literals is None:
                raise RuleFileError(path, f"{fld}.{key}", f"{pat.source!r} has no literal of "
                                    f"{MIN_LITERAL}+ characters to search for")
    if not pats["text"] and not pats["absent"]:
        raise RuleFileError(path, fld, "needs text or absent (or both)")
    category, conf = raw.get("category"), raw.get("confidence")
    if category is not None and category not in CATEGORIES:
        raise RuleFileError(path, f"{fld}.category", f"{category!r} is not one of {CATEGORIES}")
    if conf is not None and conf not in CONFIDENCES:
        raise RuleFileError(path, f"{fld}.confidence", f"{conf!r} is not one of {CONFIDENCES}")
    rank = raw.get("rank", 0)
    if not isinstance(rank, int) or isinstance(rank, bool) or not -100 <= rank <= 100:
        raise RuleFileError(path, f"{fld}.rank", f"{rank!r} is not an integer -100..100")
    for key in ("note", "fix"):
        if not isinstance(raw.get(key, ""), str):
            raise RuleFileError(path, f"{fld}.{key}", "must be a string")
    if not isinstance(raw.get("drop", False), bool):
        raise RuleFileError(path, f"{fld}.drop", "must be true or false")
    return Context(pats["text"], pats["absent"], category, conf, rank,
                   raw.get("note", "").strip(), raw.get("fix", "").strip(),
                   raw.get("drop", False))


def _rules_root(path: Path | str) -> Path | None:
    """The rules folder a signature file lies in (rules/signatures/<family>/X.toml), when it
    has platform files; None: the default rules folder."""
    parents = Path(str(path)).parents
    if len(parents) > 2 and (parents[2] / "platforms").is_dir():
        return parents[2]
    return None


def _example(raw: Any, path: Path | str, i: int) -> SigExample:
    fld = f"examples[{i}]"
    if not isinstance(raw, dict):
        raise RuleFileError(path, fld, "must be a table")
    if not isinstance(raw.get("matches"), bool):
        raise RuleFileError(path, f"{fld}.matches", "must be true or false")
    if not isinstance(raw.get("text"), str) or not raw["text"].strip():
        raise RuleFileError(path, f"{fld}.text", "must be a non-empty string")
    source = raw.get("source")
    if not isinstance(source, str) or not source.strip():
        raise RuleFileError(path, f"{fld}.source", "missing: say where the text came from")
    if raw["matches"] and not is_url(source):
        raise RuleFileError(path, f"{fld}.source", "a matching example must cite a URL")
    return SigExample(raw["matches"], raw["text"], source)


# ---------------------------------------------------------------------------- loading
def load_signatures(root: Path | None = None) -> tuple[Signature, ...]:
    """Every signature under ``rules/signatures`` (cached per folder); codes must be unique."""
    return _load(str(root or rules_dir()))


@lru_cache(maxsize=4)
def _load(root: str) -> tuple[Signature, ...]:
    files = toml_files("signatures", Path(root))
    built: list[Signature] = []
    stamps = file_stamps(files + platforms.files(Path(root)))
    key = None if stamps is None else [CACHE_VERSION, stamps]

    def build() -> list[dict[str, Any]]:
        """Parse and validate every file (raises on a bad one, so it is never cached). The
        examples go to an entry of their own (``_ExampleStore``), the rest to this one."""
        platforms.check(Path(root))  # their mentions compile on first use when cached
        entries = []
        parsed = []
        for path in files:
            data = load_toml(path)
            built.append(parse_signature(data, path))
            parsed.append((data, path))
            patterns = all_patterns(built[-1])
            entries.append({"data": _cacheable(data, built[-1]),
                            "literals": {p.source: None if p.literals is None
                                         else list(p.literals) for p in patterns},
                            "blind": sorted({p.source for p in patterns
                                             if digits.blind(p.source)})})
        _unique(built)
        rows = _example_rows(parsed)
        if key is not None:
            cached_json("sigexamples", key, lambda: rows, _valid_examples)
        return entries

    entries, cached = cached_json("signatures", key, build, _valid_entries)
    if not cached:
        precompiled.register((p.source for sig in built for p in all_patterns(sig)),
                             build=False)
        return tuple(built)
    if len(entries) != len(files):  # a cache of another file list: cannot happen (keyed)
        entries = [{"data": load_toml(p), "literals": None} for p in files]
        sigs = [parse_signature(e["data"], path) for e, path in zip(entries, files, strict=True)]
    else:
        for entry in entries:  # the scanner asks which patterns are blind to digits
            blind = set(entry.get("blind") or ())
            for source in entry.get("literals") or ():
                digits.remember(source, source in blind)
        store = _ExampleStore(key, files)
        sigs = [parse_signature(e["data"], path, e["literals"], CachedExamples(store, i))
                for i, (e, path) in enumerate(zip(entries, files, strict=True))]
    _unique(sigs)
    precompiled.register(p.source for sig in sigs for p in all_patterns(sig))
    return tuple(sigs)


def _cacheable(data: dict[str, Any], sig: Signature) -> dict[str, Any]:
    """A signature file's data as its cache entry keeps it: without the examples (cached
    apart), and with each context's platform lists (``"@name"``) expanded as ``sig`` has them,
    so a cached load never parses the platform files (their bytes are in the key)."""
    out = {k: v for k, v in data.items() if k != "examples"}
    contexts = data.get("context")
    if isinstance(contexts, list) and any(
            isinstance(v, str) and v.startswith("@") for raw in contexts
            for key in ("text", "absent") for v in raw.get(key, ())):
        out["context"] = [
            {**raw, **{key: [p.source for p in pats] for key, pats in
                       (("text", ctx.text), ("absent", ctx.absent)) if key in raw}}
            for raw, ctx in zip(contexts, sig.contexts, strict=True)]
    return out


def all_patterns(sig: Signature) -> tuple[Pattern, ...]:
    """Every regex the scanner searches for this signature (patterns, anti, contexts)."""
    ctx = tuple(p for c in sig.contexts for p in c.text + c.absent)
    return sig.patterns + sig.anti_patterns + ctx


def _unique(sigs: list[Signature]) -> None:
    seen: dict[str, str] = {}
    for sig in sigs:
        if sig.code in seen:
            raise RuleFileError(sig.path, "code", f"{sig.code} is also used by {seen[sig.code]}")
        seen[sig.code] = sig.path


# Parsing ~65 TOML files and compiling ~200 regexes costs ~70 ms per process, a quarter of the
# 0.3 s budget for explaining one traceback. The validated data and prefilter literals are
# cached by ``knowledge.cached_json`` (JSON, never pickle), keyed by every file's path and
# stat (``rulefiles.file_stamps``), so an edited rule is re-read at once. ENVDOCTOR_NO_CACHE=1
# turns it off; ENVDOCTOR_CACHE_DIR moves it. Bump CACHE_VERSION when the cached literals
# change meaning.
CACHE_VERSION = 9  # 9: platform lists expanded (``_cacheable``); 8: the examples in an entry
#    of their own (``CachedExamples``); 7: a literal run expands to 64 variants (was 16), and
#    which patterns are blind to digits (``digits``);
#    6: literals run through small alternations, scored by reduced length, a literal healthy
#    log lines hold scores lowest


def _valid_entries(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(e, dict) and isinstance(e.get("data"), dict)
        and isinstance(e.get("literals"), dict) and isinstance(e.get("blind"), list)
        and all(isinstance(x, str) for x in e["blind"]) for e in value)
