"""Regular expressions that backtrack catastrophically, found from their parse tree.

Python's ``re`` is a backtracking matcher: when a repeated part can match the same text in
two ways (``(a+)+``, ``(a*)*``, ``(a|a)*``, ``(\\w+\\s?)+``, ``(x+x+)+``), a line that
almost matches and then fails is tried in every split, 2**n of them: ``(x+x+)+y`` takes
minutes on a 41-byte line. A rule's pattern is searched on pasted, untrusted text, so such
a pattern is refused when the rule loads, before any text is seen.

The analysis is structural, on the tree ``re`` itself compiles (``re._parser``, ``sre_parse``
on 3.10, after its own rewrites such as factoring ``a|ab`` into ``a(?:|b)``):

* the tree becomes a position (Glushkov) automaton whose edges carry *how many* ways the
  pattern has to take them, so ``(a*)*`` (the inner and the outer loop both go a -> a) and
  the two empty branches of ``(a|a)*`` count as two paths;
* the pattern backtracks exponentially exactly when some state has two different loops that
  read the same text (exponential degree of ambiguity; Weber & Seidl 1991, tested as in
  Allauzen, Mohri & Rastogi 2008): in the automaton paired with itself, a strongly connected
  part holds a state paired with itself and either two different states or a doubled edge.
  Character classes are compared on a fixed set of representative characters plus every
  character the pattern names, so overlap of ``\\w`` and ``\\d`` or ``[a-f]`` and ``[^x]``
  is seen;
* besides, an alternative under a repeat that is a prefix of another (``(a|ab)*``,
  ``(foo|foobar)+``) is refused: cheap to rewrite, and the first step towards the same trap.

A bounded repeat ``{m,n}`` counts as a loop when n > 8 (``(a|a){1,40}`` is 2**40 paths) or
its body holds a loop (``(a+){3}`` splits a run three ways); ``(\\d{1,3}\\.){3}`` does not.
Lookaround bodies are audited as patterns of their own; a backreference is read as its
group's pattern. A trailing loop that nothing can make fail is refused too: rules are
refused on their shape, not on what happens to follow them.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from typing import Any

if sys.version_info >= (3, 11):  # the parser moved to re._parser
    from re import _constants as sre_constants
    from re import _parser as sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_constants
    import sre_parse

_C = sre_constants
_REPEATS = tuple(op for op in (getattr(_C, n, None) for n in (
    "MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")) if op is not None)
_ATOMIC = getattr(_C, "ATOMIC_GROUP", None)
SMALL = 8  # a bounded repeat up to this many rounds, of a body without loops, is no loop
MAX_PAIRS = 200_000  # paired states explored before a pattern counts as too complex to audit
# Group nesting the recursive audit walks; deeper is refused outright, so the verdict never
# depends on the interpreter's recursion limit (test runners raise it).
MAX_DEPTH = 100

# Characters every class is tested on, besides those the pattern names itself: ASCII, and a
# few of each Unicode category the regex classes distinguish (letters, digits, spaces,
# separators, astral).
_EXTRA = "\x85\xa0\xb2\xb5\xc0\xdf\xe9\u0130\u0131\u017f\u0416\u0436\u0663\u0966\u2028" \
         "\u2029\u3000\u4e2d\ufb00\ufeff\U0001d7d8\U0001f600"
_BASE = tuple(chr(i) for i in range(128)) + tuple(_EXTRA)


class Audit:
    """One pattern's position automaton over one alphabet, and the ambiguity test on it."""

    def __init__(self, alphabet: tuple[str, ...]):
        self.alphabet = alphabet
        self.sets: list[int] = [0]          # position -> bitmask of alphabet characters
        self.follow: dict[tuple[int, int], int] = {}  # (p, q) -> ways (capped at 2)
        self.overlap: str | None = None     # why alternatives under a repeat overlap
        self.groups: dict[int, Any] = {}    # group number -> its parse tree (backreferences)
        self.expanding: set[int] = set()

    # ---------------------------------------------------------------- character classes
    def chars(self, test: Any) -> int:
        mask = 0
        for i, ch in enumerate(self.alphabet):
            if test(ch):
                mask |= 1 << i
        return mask

    def literal(self, code: int, flags: int) -> int:
        same = set(_cases(chr(code), flags))
        return sum(1 << i for i, ch in enumerate(self.alphabet) if ch in same)

    def position(self, mask: int) -> int:
        self.sets.append(mask)
        return len(self.sets) - 1

    def _class(self, items: list[tuple[Any, Any]], flags: int) -> int:
        negate = any(op is _C.NEGATE for op, _ in items)

        def one(op: Any, av: Any, c: str) -> bool:
            if op is _C.LITERAL:
                return bool(ord(c) == av)
            if op is _C.RANGE:
                return bool(av[0] <= ord(c) <= av[1])
            return op is _C.CATEGORY and _in_category(av, c)

        def member(c: str) -> bool:
            hit = any(one(op, av, v) for op, av in items for v in _cases(c, flags))
            return hit != negate
        return self.chars(member)

    # ---------------------------------------------------------------- the automaton
    def build(self, tree: Any, flags: int, in_loop: bool = False) -> Frag:
        """The fragment of a sequence of parse items (fresh positions each call)."""
        frag = Frag.empty()
        for op, av in tree:
            frag = self.concat(frag, self.item(op, av, flags, in_loop))
        return frag

    def item(self, op: Any, av: Any, flags: int, in_loop: bool) -> Frag:
        if op is _C.LITERAL or op is _C.NOT_LITERAL:
            mask = self.literal(av, flags)
            if op is _C.NOT_LITERAL:
                mask ^= (1 << len(self.alphabet)) - 1
            return Frag.single(self.position(mask))
        if op is _C.ANY:
            dotall = flags & re.DOTALL
            return Frag.single(self.position(self.chars(lambda c: dotall or c != "\n")))
        if op is _C.IN:
            return Frag.single(self.position(self._class(av, flags)))
        if op is _C.SUBPATTERN:
            add, remove = av[1], av[2]
            return self.build(av[-1], (flags | add) & ~remove, in_loop)
        if _ATOMIC is not None and op is _ATOMIC:
            return self.build(av, flags, in_loop)
        if op is _C.BRANCH:
            alts = [self.build(alt, flags, in_loop) for alt in av[1]]
            if in_loop and self.overlap is None:
                self.overlap = _overlapping(alts, self.sets)
            return Frag.union(alts)
        if op is _C.GROUPREF_EXISTS:
            alts = [self.build(av[1], flags, in_loop),
                    self.build(av[2] or [], flags, in_loop)]
            return Frag.union(alts)
        if op in _REPEATS:
            lo, hi, sub = av
            # a few rounds of a body without a loop of its own are a few paths, not a loop
            loop = hi > SMALL or (hi > 1 and _loops(sub))
            body = self.build(sub, flags, in_loop or loop)
            if not loop:
                return Frag(min(2, body.nullable + (lo == 0)), body.first, body.last)
            self.link(body.last, body.first)
            return Frag(1 if lo == 0 else min(1, body.nullable), body.first, body.last)
        if op is _C.GROUPREF:  # the text of a group: read as the group's pattern again
            group = self.groups.get(av)
            if group is None or av in self.expanding:
                pos = self.position(self.chars(lambda c: True))
                self.link({pos: 1}, {pos: 1})
                return Frag(1, {pos: 1}, {pos: 1})
            self.expanding.add(av)
            try:
                return self.build(group, flags, in_loop)
            finally:
                self.expanding.discard(av)
        # AT (anchors), ASSERT, ASSERT_NOT: match no characters here (bodies audited apart)
        return Frag.empty()

    def concat(self, a: Frag, b: Frag) -> Frag:
        self.link(a.last, b.first)
        first = _add(a.first, _scale(b.first, a.nullable))
        last = _add(b.last, _scale(a.last, b.nullable))
        return Frag(min(2, a.nullable * b.nullable), first, last)

    def link(self, last: dict[int, int], first: dict[int, int]) -> None:
        for p, m in last.items():
            for q, n in first.items():
                self.follow[p, q] = min(2, self.follow.get((p, q), 0) + m * n)

    # ---------------------------------------------------------------- ambiguity
    def exponential(self, start: Frag) -> str | None:
        """A character on which two different loops through one state read the same text,
        or None (the automaton's degree of ambiguity is polynomial)."""
        succ: dict[int, list[tuple[int, int]]] = {}
        for (p, q), n in self.follow.items():
            succ.setdefault(p, []).append((q, n))
        succ[0] = [(q, n) for q, n in start.first.items()]
        sets = self.sets

        def edges(node: tuple[int, int]) -> list[tuple[tuple[int, int], bool]]:
            p1, p2 = node
            out = []
            for q1, n1 in succ.get(p1, ()):
                for q2, _ in succ.get(p2, ()):
                    if sets[q1] & sets[q2]:
                        out.append(((q1, q2), p1 == p2 and q1 == q2 and n1 > 1))
            return out

        comp = _components((0, 0), edges)
        if comp is None:
            return "too complex to audit (split it into simpler patterns)"
        with_diagonal = {c for n, c in comp.items() if n[0] == n[1]}
        for node, c in comp.items():
            if c not in with_diagonal:
                continue
            for nxt, doubled in edges(node):
                if comp.get(nxt) == c and (doubled or nxt[0] != nxt[1] or node[0] != node[1]):
                    ch = self.example(sets[nxt[0]] & sets[nxt[1]])
                    return (f"a repeated part can match the same text in more than one "
                            f"way (nested or overlapping quantifiers): a run of {ch!r} "
                            f"that then fails is tried in exponentially many splits")
        return None

    def example(self, mask: int) -> str:
        for i, ch in enumerate(self.alphabet):
            if mask >> i & 1 and ch.isprintable() and ch != " ":
                return ch
        for i, ch in enumerate(self.alphabet):
            if mask >> i & 1:
                return ch
        return "?"


class Frag:
    """A sub-pattern's part of the automaton: ways to match nothing (0, 1 or 2+), the
    positions it starts and ends on (with the number of ways to reach each)."""

    __slots__ = ("nullable", "first", "last")

    def __init__(self, nullable: int, first: dict[int, int], last: dict[int, int]):
        self.nullable, self.first, self.last = nullable, first, last

    @classmethod
    def empty(cls) -> Frag:
        return cls(1, {}, {})

    @classmethod
    def single(cls, pos: int) -> Frag:
        return cls(0, {pos: 1}, {pos: 1})

    @classmethod
    def union(cls, alts: list[Frag]) -> Frag:
        first: dict[int, int] = {}
        last: dict[int, int] = {}
        for f in alts:
            first, last = _add(first, f.first), _add(last, f.last)
        return cls(min(2, sum(f.nullable for f in alts)), first, last)


def _add(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out = dict(a)
    for k, v in b.items():
        out[k] = min(2, out.get(k, 0) + v)
    return out


def _scale(a: dict[int, int], n: int) -> dict[int, int]:
    return {k: min(2, v * n) for k, v in a.items()} if n else {}


def _overlapping(alts: list[Frag], sets: list[int]) -> str | None:
    """Why alternatives under a repeat overlap, or None: ``re`` factors a common start out of
    all of them (``a|ab`` -> ``a(?:|b)``), so an alternative that was a prefix of another
    is left empty beside one that is not."""
    if len(alts) > 1 and any(not f.first for f in alts) and any(f.first for f in alts):
        return "one alternative under a repeat is a prefix of another (as in (a|ab)*)"
    return None


def _components(root: tuple[int, int], edges: Any) -> dict[tuple[int, int], int] | None:
    """Strongly connected components (Tarjan, iterative) of the graph reachable from root:
    node -> component number; None past MAX_PAIRS nodes."""
    index: dict[tuple[int, int], int] = {}
    low: dict[tuple[int, int], int] = {}
    comp: dict[tuple[int, int], int] = {}
    stack: list[tuple[int, int]] = []
    on_stack: set[tuple[int, int]] = set()
    work = [(root, iter([n for n, _ in edges(root)]))]
    index[root] = low[root] = 0
    stack.append(root)
    on_stack.add(root)
    counter = 1
    while work:
        node, it = work[-1]
        advanced = False
        for nxt in it:
            if nxt not in index:
                if counter >= MAX_PAIRS:
                    return None
                index[nxt] = low[nxt] = counter
                counter += 1
                stack.append(nxt)
                on_stack.add(nxt)
                work.append((nxt, iter([n for n, _ in edges(nxt)])))
                advanced = True
                break
            if nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if advanced:
            continue
        work.pop()
        if work:
            parent = work[-1][0]
            low[parent] = min(low[parent], low[node])
        if low[node] == index[node]:
            while True:
                top = stack.pop()
                on_stack.discard(top)
                comp[top] = index[node]
                if top == node:
                    break
    return comp


def _cases(ch: str, flags: int) -> tuple[str, ...]:
    if not flags & re.IGNORECASE:
        return (ch,)
    return tuple(c for c in {ch, ch.lower(), ch.upper(), ch.swapcase()} if len(c) == 1)


@lru_cache(maxsize=4096)
def _in_category(cat: Any, ch: str) -> bool:
    name = str(cat).upper()
    negate = "NOT" in name
    if "DIGIT" in name:
        hit = ch.isdecimal()
    elif "SPACE" in name:
        hit = re.match(r"\s", ch) is not None
    elif "WORD" in name:
        hit = ch.isalnum() or ch == "_"
    elif "LINEBREAK" in name:
        hit = ch == "\n"
    else:
        hit = True
    return hit != negate


def _loops(tree: Any) -> bool:
    """Does the tree hold a repeat of more than SMALL rounds, or a backreference?"""
    for op, av in tree:
        if op in _REPEATS:
            if av[1] > SMALL or _loops(av[2]):
                return True
        elif op is _C.GROUPREF:
            return True
        elif op is _C.SUBPATTERN:
            if _loops(av[-1]):
                return True
        elif op is _C.BRANCH:
            if any(_loops(alt) for alt in av[1]):
                return True
        elif op is _C.GROUPREF_EXISTS:
            if _loops(av[1]) or _loops(av[2] or []):
                return True
        elif _ATOMIC is not None and op is _ATOMIC:
            if _loops(av):
                return True
    return False


def _group_trees(tree: Any, out: dict[int, Any]) -> None:
    for op, av in tree:
        if op is _C.SUBPATTERN:
            if av[0] is not None:
                out[av[0]] = av[-1]
            _group_trees(av[-1], out)
        elif op is _C.BRANCH:
            for alt in av[1]:
                _group_trees(alt, out)
        elif op in _REPEATS:
            _group_trees(av[2], out)
        elif op in (_C.ASSERT, _C.ASSERT_NOT):
            _group_trees(av[1], out)
        elif op is _C.GROUPREF_EXISTS:
            _group_trees(av[1], out)
            _group_trees(av[2] or [], out)
        elif _ATOMIC is not None and op is _ATOMIC:
            _group_trees(av, out)


def _named_chars(tree: Any, out: set[str]) -> None:
    """Every character a pattern names (literals, range ends), to add to the alphabet."""
    for op, av in tree:
        if op in (_C.LITERAL, _C.NOT_LITERAL):
            out.add(chr(av))
        elif op is _C.RANGE:
            out.update((chr(av[0]), chr(av[1])))
        elif op is _C.IN:
            _named_chars(av, out)
        elif op is _C.SUBPATTERN:
            _named_chars(av[-1], out)
        elif op is _C.BRANCH:
            for alt in av[1]:
                _named_chars(alt, out)
        elif op in _REPEATS:
            _named_chars(av[2], out)
        elif op in (_C.ASSERT, _C.ASSERT_NOT):
            _named_chars(av[1], out)
        elif op is _C.GROUPREF_EXISTS:
            _named_chars(av[1], out)
            _named_chars(av[2] or [], out)
        elif _ATOMIC is not None and op is _ATOMIC:
            _named_chars(av, out)


def _lookarounds(tree: Any, out: list[Any]) -> None:
    for op, av in tree:
        if op in (_C.ASSERT, _C.ASSERT_NOT):
            out.append(av[1])
            _lookarounds(av[1], out)
        elif op is _C.SUBPATTERN:
            _lookarounds(av[-1], out)
        elif op is _C.BRANCH:
            for alt in av[1]:
                _lookarounds(alt, out)
        elif op in _REPEATS:
            _lookarounds(av[2], out)
        elif op is _C.GROUPREF_EXISTS:
            _lookarounds(av[1], out)
            _lookarounds(av[2] or [], out)
        elif _ATOMIC is not None and op is _ATOMIC:
            _lookarounds(av, out)


def _simple(tree: Any) -> bool:
    """True when no repeat of more than one step has anything but one character class as its
    body: then every loop is a single state's own, and no two loops can share text."""
    for op, av in tree:
        if op in _REPEATS:
            lo, hi, sub = av
            if hi > 1 and not (len(sub) == 1 and sub[0][0] in _ONE_CHAR):
                return False
            if not _simple(sub):
                return False
        elif op is _C.SUBPATTERN:
            if not _simple(av[-1]):
                return False
        elif op is _C.BRANCH:
            if not all(_simple(alt) for alt in av[1]):
                return False
        elif op in (_C.ASSERT, _C.ASSERT_NOT):
            if not _simple(av[1]):
                return False
        elif op is _C.GROUPREF_EXISTS:
            if not (_simple(av[1]) and _simple(av[2] or [])):
                return False
        elif _ATOMIC is not None and op is _ATOMIC:
            if not _simple(av):
                return False
    return True


_ONE_CHAR = (_C.LITERAL, _C.NOT_LITERAL, _C.ANY, _C.IN)


def _audit_tree(tree: Any, flags: int) -> str | None:
    named: set[str] = set()
    _named_chars(tree, named)
    extra: set[str] = set()
    for ch in named:
        extra.update(_cases(ch, re.IGNORECASE))
    alphabet = _BASE + tuple(sorted(extra - set(_BASE)))
    audit = Audit(alphabet)
    _group_trees(tree, audit.groups)
    start = audit.build(tree, flags)
    return audit.exponential(start) or audit.overlap


def problem(pattern: str, flags: int = 0) -> str | None:
    """Why ``pattern`` can backtrack catastrophically on some line, or None when it cannot.

    A pattern ``re`` cannot parse is not this function's business (None): the caller's
    compile reports it."""
    try:
        parsed = sre_parse.parse(pattern, flags)
    except (re.error, OverflowError, RecursionError, ValueError):
        return None
    return problem_in(parsed)


def problem_in(parsed: Any) -> str | None:
    """``problem`` for a tree ``sre_parse.parse`` returned (callers that parse anyway)."""
    if _depth(parsed) > MAX_DEPTH:
        return "nested too deeply to audit (flatten its groups)"
    try:
        if _simple(parsed):
            return None
        flags = parsed.state.flags
        trees = [parsed]
        _lookarounds(parsed, trees)
        for tree in trees:
            why = _audit_tree(tree, flags)
            if why:
                return why
    except RecursionError:
        return "nested too deeply to audit (flatten its groups)"
    return None


def _depth(parsed: Any) -> int:
    """How deeply sub-patterns nest in a parsed tree, counted without recursion."""
    deepest, stack = 0, [(parsed, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        items = getattr(node, "data", None)
        for item in (items if isinstance(items, list) else [node]):
            pending = [item]
            while pending:
                value = pending.pop()
                if isinstance(value, (tuple, list)):
                    pending.extend(value)
                elif value is not node and not isinstance(value, (int, str)) \
                        and hasattr(value, "data"):  # (an int's failed hasattr: an exception)
                    stack.append((value, depth + 1))
    return deepest
