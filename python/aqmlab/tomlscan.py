r"""A linear-time look at TOML text before :mod:`tomllib` parses it.

:mod:`tomllib` recurses once per nested inline array or table (about 400 of them exhaust
Python's stack), takes time quadratic in the length of a dotted key (``a.a.a…`` of 40,000 parts
takes minutes) and refuses integers of more than 4,300 digits with a message that names no key.
:func:`check_toml` finds all three first, in one pass over the tokens, and raises a
:class:`~aqmlab.errors.ScenarioError` naming the key path and the limit. Invalid TOML is left for
:mod:`tomllib` to report.

>>> check_toml("a = [[1]]\n[b]\nc.d = 1")
>>> check_toml("[b]\nc = " + "[" * 40 + "]" * 40)
Traceback (most recent call last):
...
aqmlab.errors.ScenarioError: b.c: nested deeper than 32 levels
"""

from __future__ import annotations

import re

from aqmlab.errors import ScenarioError, shown

MAX_DEPTH = 32
"""The deepest a scenario may nest tables and arrays (the schema itself needs fewer than 10)."""

INTEGER_RANGE = (-(2**63), 2**64 - 1)
"""The integers a scenario may hold: what the engine reads (signed or unsigned 64-bit)."""

_TOKEN = re.compile(
    r'''(?P<string>"""(?:\\[\s\S]|[^\\])*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|'[^'\n]*')'''
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<newline>\n)"
    r"|(?P<space>[ \t\r]+)"
    r"|(?P<bare>[A-Za-z0-9_+\-:]+)"
    r"|(?P<punct>.)",
    re.DOTALL,
)
_INTEGER = re.compile(r"[+-]?[0-9][0-9_]*")


def too_deep(path: str) -> ScenarioError:
    """Return the error for nesting past :data:`MAX_DEPTH` at ``path``."""
    return ScenarioError(shown(path), f"nested deeper than {MAX_DEPTH} levels")


def out_of_range(path: str, value: int | str) -> ScenarioError:
    """Return the error for an integer outside :data:`INTEGER_RANGE` (``value``: it, or its digits).

    The key's own range is the engine's to say; this integer is beyond every key's.

    >>> print(out_of_range("traffic[1].flows", "9" * 30))
    traffic[1].flows: expected a number within this key's range, got a 30-digit integer (past \
any integer a scenario may hold)
    """
    digits = len(str(value).lstrip("+-").replace("_", ""))
    return ScenarioError(
        shown(path), f"expected a number within this key's range, got a {digits}-digit integer "
        "(past any integer a scenario may hold)",
    )


def _key_text(part: str) -> str:
    """Return a key as written, without its quotes."""
    return part[1:-1] if part[:1] in "\"'" else part


def _indexed(header: list[str], arrays: dict[tuple[str, ...], int]) -> list[str]:
    """Return a header's key path as messages name it, arrays of tables with their index.

    >>> _indexed(["traffic", "tcp"], {("traffic",): 1})
    ['traffic[1]', 'tcp']
    """
    return [f"{part}[{arrays[tuple(header[: i + 1])]}]" if tuple(header[: i + 1]) in arrays
            else part for i, part in enumerate(header)]  # fmt: skip


def check_toml(text: str) -> None:
    """Refuse TOML nested deeper than :data:`MAX_DEPTH` or with integers out of range.

    Nesting counts table headers, dotted keys and inline arrays and tables together, as the
    parsed document would.
    """
    table: list[str] = []  # the last [header]
    stack: list[tuple[str, int]] = []  # open inline brackets: kind and key-path length outside
    key: list[str] = []  # the current key path: table + dotted key (+ inline table keys)
    parts: list[str] = []  # the dotted key being read
    header: list[str] | None = None  # the parts of a [header] being read
    array_header = False  # whether that header is an [[array of tables]]
    arrays: dict[tuple[str, ...], int] = {}  # each array of tables: its last element's index
    expecting_key = True
    line_start = True
    for match in _TOKEN.finditer(text):
        kind, token = match.lastgroup, match.group()
        if kind in ("space", "comment"):
            continue
        if kind == "newline":
            if not stack:
                key, parts, expecting_key, header = table[:], [], True, None
            line_start = True
            continue
        at_line_start, line_start = line_start, False
        if header is not None:
            if token == "]":
                if len(header) > MAX_DEPTH:
                    raise too_deep(".".join(header[: MAX_DEPTH + 1]))
                if array_header:
                    arrays[tuple(header)] = arrays.get(tuple(header), -1) + 1
                table, key, header = _indexed(header, arrays), _indexed(header, arrays), None
            elif token == "[" and not header:
                array_header = True
            elif kind in ("string", "bare"):
                header.append(_key_text(token))
            continue
        if at_line_start and not stack and token == "[":
            header, array_header = [], False
            continue
        if expecting_key:
            if kind in ("string", "bare"):
                parts.append(_key_text(token))
                if len(key) + len(parts) > MAX_DEPTH:
                    raise too_deep(".".join([*key, *parts]))
            elif token == "=":
                key, parts, expecting_key = [*key, *parts], [], False
            elif token == "}" and stack:  # an empty inline table
                key = key[: stack.pop()[1]]
                expecting_key = False
            continue
        if token in "[{":
            stack.append((token, len(key)))
            if len(key) + len(stack) > MAX_DEPTH:
                raise too_deep(".".join(key))
            expecting_key = token == "{"
        elif token in "]}" and stack:
            key = key[: stack.pop()[1]]
        elif token == "," and stack and stack[-1][0] == "{":
            key, expecting_key = key[: stack[-1][1]], True
        elif kind == "bare" and _INTEGER.fullmatch(token) and len(token) > 20:
            digits = token.replace("_", "")
            low, high = INTEGER_RANGE
            if not low <= int(digits[:30]) <= high:
                raise out_of_range(".".join(key), token)
