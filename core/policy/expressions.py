"""What a CEL condition reads, found from its text before it ever runs.

The CEL package checks the syntax; this module answers the questions it does not:
which top-level names the expression reads (an unknown one is a load-time error,
reported at its position), which names a comprehension binds (``x`` in
``args.to.exists(x, ...)`` is not a field), and which keys of ``args`` and
``calls`` it selects (``args.to``, ``calls["send_email"]``), so that a call
converts only those values for the evaluator instead of the whole arguments.

It tokenizes the expression (strings, bytes, raw strings, comments and numbers are
skipped as units) and looks at each identifier's neighbours. When in doubt it says
"the whole value": a bare ``args`` (``"to" in args``, ``args.size()``) reads every key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TOKEN = re.compile(
    r"""
    (?P<space>\s+|//[^\n]*)
  | (?P<string>[rRbB]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))
  | (?P<number>\d[\w.]*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>\S)
    """,
    re.VERBOSE | re.DOTALL,
)

MACROS = frozenset({"all", "exists", "exists_one", "existsOne", "map", "filter", "transformList",
                    "transformMap", "transformMapEntry", "sortBy"})
"""Methods whose first argument(s) name a variable bound inside the call."""
KEYWORDS = frozenset({"true", "false", "null", "in"})


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    offset: int


@dataclass
class References:
    """What one expression reads."""

    names: dict[str, int] = field(default_factory=dict)
    """Each top-level name read, with the 0-based offset of its first use."""
    bound: set[str] = field(default_factory=set)
    """Names a comprehension binds (not fields)."""
    keys: dict[str, set[str] | None] = field(default_factory=dict)
    """For ``args`` and ``calls``: the keys selected, or None when the whole map is read."""


def tokens(text: str) -> list[Token]:
    found: list[Token] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "punct"
        if kind != "space":
            found.append(Token(kind, match.group(), match.start()))
    return found


def unquoted(literal: str) -> str | None:
    """The value of a plain string literal (``"a"`` or ``'a'``), None for anything fancier."""
    body = literal.lstrip("rR")
    if len(body) >= 2 and body[0] == body[-1] and body[0] in "'\"" and "\\" not in body and not body.startswith(("'''", '"""')):
        return body[1:-1]
    return None


def references(text: str, mapped: tuple[str, ...] = ("args", "calls")) -> References:
    """The top-level names `text` reads and, for each of `mapped`, the keys it selects."""
    found = References()
    toks = tokens(text)
    for index, token in enumerate(toks):
        if token.kind != "ident" or token.text in KEYWORDS:
            continue
        before = toks[index - 1].text if index else ""
        after = toks[index + 1].text if index + 1 < len(toks) else ""
        if before == "." or after == "(":  # a member or a function/method name
            if before == "." and token.text in MACROS and after == "(":
                found.bound.update(_bound_names(toks, index + 2))
            continue
        found.names.setdefault(token.text, token.offset)
        if token.text in mapped:
            _select(found, token.text, _selected_key(toks, index))
    for name in found.bound:
        found.names.pop(name, None)
    return found


def _bound_names(toks: list[Token], start: int) -> list[str]:
    """``x`` of ``.exists(x, ...)``, ``k, v`` of ``.all(k, v, ...)``."""
    names: list[str] = []
    index = start
    while index + 1 < len(toks) and toks[index].kind == "ident" and toks[index + 1].text == ",":
        names.append(toks[index].text)
        index += 2
        if len(names) == 2:
            break
    return names


def _selected_key(toks: list[Token], index: int) -> str | None:
    """``args.to`` / ``args["to"]`` -> "to"; None when the whole value is used."""
    rest = toks[index + 1 : index + 4]
    if len(rest) >= 2 and rest[0].text == "." and rest[1].kind == "ident":
        if len(rest) >= 3 and rest[2].text == "(":
            return None  # args.size(): a method of the map itself
        return rest[1].text
    if len(rest) >= 3 and rest[0].text == "[" and rest[1].kind == "string" and rest[2].text == "]":
        return unquoted(rest[1].text)
    return None


def _select(found: References, name: str, key: str | None) -> None:
    if key is None:
        found.keys[name] = None
    elif name not in found.keys:
        found.keys[name] = {key}
    elif found.keys[name] is not None:
        found.keys[name].add(key)  # type: ignore[union-attr]
