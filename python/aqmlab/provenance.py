"""Where a run came from: ``meta.provenance`` of every summary.

:func:`provenance` records what made the run besides the engine build (``meta.build``, which
already says the engine's version, its git commit when compiled, the cargo profile and the Rust
compiler): the command line of the process, the git commit of the front end's source tree (when
it is a git checkout: an editable install), the platform, the Python version and the front end's
version. No other package shapes a run's outputs: the engine writes the summary's numbers and the
Parquet tables itself (pandas, NumPy and pyarrow only read them), so none is looked up here, which
spares every run the import of ``importlib.metadata``. Nothing here decides whether a stored run is
reused (that is ``meta.build.id``), and nothing can fail: what cannot be found is ``None``.
"""

from __future__ import annotations

import functools
import platform
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from aqmlab import __version__

GIT_TIMEOUT_S = 5.0
"""How long to wait for ``git`` before recording the commit as unknown."""


def _git(directory: Path, *arguments: str) -> str | None:
    """``git -C directory ARGUMENTS``' output, or ``None`` if git is missing or says no."""
    try:
        done = subprocess.run(
            ["git", "-C", str(directory), *arguments],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@functools.cache
def source_commit() -> str | None:
    """Return the git commit of the checkout ``aqmlab`` is imported from, else ``None``.

    The package's own ``__init__.py`` must be tracked by that checkout: an installed copy that
    merely lies inside some git work tree (a virtual environment in a checkout) has no commit.

    >>> commit = source_commit()
    >>> commit is None or len(commit) == 40
    True
    """
    package = Path(__file__).resolve().parent
    if _git(package, "ls-files", "--error-unmatch", "__init__.py") is None:
        return None
    return _git(package, "rev-parse", "HEAD")


def source_dirty() -> bool | None:
    """Return whether the checkout's front end (the ``aqmlab`` package) has uncommitted changes.

    ``None`` when :func:`source_commit` is ``None`` (not a git checkout).

    >>> source_dirty() in (True, False, None)
    True
    """
    package = Path(__file__).resolve().parent
    if source_commit() is None:
        return None
    status = _git(package, "status", "--porcelain", "--", ".")
    return None if status is None else bool(status)


def command_line() -> str:
    """Return the command line of this process, its program named without its directory.

    >>> isinstance(command_line(), str)
    True
    """
    argv = list(sys.argv) or [""]
    argv[0] = Path(argv[0]).name
    return shlex.join(argv)


def provenance() -> dict[str, Any]:
    """Return what ``meta.provenance`` records (module docs).

    >>> sorted(provenance())
    ['command', 'packages', 'platform', 'python', 'source_commit']
    """
    return {
        "command": command_line(),
        "source_commit": source_commit(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "packages": {"aqmlab": __version__},
    }
