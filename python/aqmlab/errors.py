r"""The exceptions users see for bad input: :class:`ScenarioError` and :class:`StoreError`.

Both are :class:`InputError`\ s: each names where the problem is (a key path, a file, an option)
and what was expected; the command line prints them as one line and exits with status 2.
"""

from __future__ import annotations


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
        return f"{self.path}: {self.message}" if self.path else self.message


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
