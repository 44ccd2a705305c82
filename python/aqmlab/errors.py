"""The one exception users see for bad input: :class:`ScenarioError`."""

from __future__ import annotations


class ScenarioError(ValueError):
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

    def __init__(self, path: str, message: str) -> None:
        super().__init__(path, message)
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

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
