r"""The exceptions users see for bad input: :class:`ScenarioError` and :class:`StoreError`.

Both are :class:`InputError`\ s: each names where the problem is (a key path, a file, an option)
and what was expected; the command line prints them as one line and exits with status 2.
"""

from __future__ import annotations

import re
from typing import Any

MAX_SHOWN = 200
"""The most characters of one piece of user text (a value, a key) that a message quotes."""

MAX_MESSAGE = 2000
"""The most characters of one error message: past that it is cut, saying how much was left out."""

_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
"""Characters a terminal would act on or that cannot be printed: controls (ESC too), line and
paragraph separators, bidirectional overrides, lone surrogates."""


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def escape(text: str) -> str:
    r"""Make text safe to print on one line: control characters (ESC, newlines) as escapes.

    >>> escape("a\x1b[31mred\nline\u202e")
    'a\\x1b[31mred\\nline\\u202e'
    """
    return _UNSAFE.sub(_escape_char, text)


def shown(text: object, limit: int = MAX_SHOWN) -> str:
    """Quote user-supplied text for a message: escaped, and cut if longer than ``limit``.

    >>> shown("x" * 300, limit=5)
    'xxxxx… (295 more characters)'
    """
    return escape(_cut(str(text), limit))


class InputError(ValueError):
    """Bad input: ``path`` says where (a key path, a file, an option), ``message`` what is wrong.

    >>> str(InputError("--seeds", 'expected a range like "1-5", got "5-1"'))
    '--seeds: expected a range like "1-5", got "5-1"'
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(path, message)
        self.path = path
        self.message = message

    def __str__(self) -> str:
        r"""Show path and message as one line, escaped, cut at :data:`MAX_MESSAGE` characters.

        >>> print(InputError("name\n", "got \x1b[2J"))
        name\n: got \x1b[2J
        """
        text = f"{self.path}: {self.message}" if self.path else self.message
        return escape(_cut(text, MAX_MESSAGE))


class StoreError(InputError):
    """A directory is not what it was given as: not a run store, not a run directory.

    >>> str(StoreError("runs/x", "not a run store (no aqmlab-store.json)"))
    'runs/x: not a run store (no aqmlab-store.json)'
    """


class ScenarioError(InputError):
    """A scenario (or an override, or the file holding it) is invalid.

    ``path`` names where: a key path such as ``"queue.limit"`` or ``"traffic[2].rate"``,
    a file name, or ``""`` for the scenario as a whole.

    >>> err = ScenarioError("queue.limit", 'expected a queue limit like "50p", got "fifty"')
    >>> str(err)
    'queue.limit: expected a queue limit like "50p", got "fifty"'
    >>> str(ScenarioError("", "expected a table"))
    'expected a table'
    >>> isinstance(err, ValueError), err.path
    (True, 'queue.limit')
    """

    @classmethod
    def from_native(cls, err: ValueError) -> ScenarioError:
        """Convert the engine's ``ValueError(path, message)`` into a :class:`ScenarioError`.

        >>> ScenarioError.from_native(ValueError("duration", "required")).path
        'duration'
        >>> str(ScenarioError.from_native(ValueError("something odd")))
        'something odd'
        """
        if len(err.args) == 2 and all(isinstance(a, str) for a in err.args):
            return cls(err.args[0], err.args[1])
        return cls("", str(err))


class SelfCheckError(RuntimeError):
    """A run whose engine self-checks failed: its counter identities do not hold.

    That is an engine bug, not bad input, and the run's numbers are not to be trusted.
    ``result`` is the run as it came out (nothing computed is lost: the command line and the
    sweeps write it, marked failed); the message says which identities failed
    (:meth:`aqmlab.Result.self_check_failure`).

    >>> str(SelfCheckError(None, "engine self-check failed: x > 1"))
    'engine self-check failed: x > 1'
    """

    def __init__(self, result: Any, message: str) -> None:
        super().__init__(message)
        self.result = result
