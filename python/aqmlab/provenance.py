"""Where a run came from: ``meta.provenance`` of every summary.

:func:`provenance` records what made the run besides the engine build (``meta.build``, which
already says the engine's version, its git commit when compiled, the cargo profile and the Rust
compiler): the command line of the process, the git commit of the front end's source tree (when
it is a git checkout: an editable install), the platform, the Python version and the front end's
version. A run asks git for the commit as it starts (:func:`look_up_source`) and reads the answer
when it ends, so git runs beside the simulation instead of after it; the platform is read from
``os.uname`` and ``os.confstr``, not from :mod:`platform`, whose ``platform()`` runs ``uname -p``
and reads the Python binary (together about 0.01 s of every short run's start-up).

No other package shapes a run's outputs: the engine writes the summary's numbers and the Parquet
tables itself (pandas, NumPy and pyarrow only read them), so none is looked up here, which spares
every run the import of ``importlib.metadata``. Nothing here decides whether a stored run is
reused (that is ``meta.build.id``), and nothing can fail: what cannot be found is ``None``.
"""

from __future__ import annotations

import functools
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aqmlab import __version__

if TYPE_CHECKING:
    import subprocess

GIT_TIMEOUT_S = 5.0
"""How long to wait for ``git`` before recording the commit as unknown."""


def _start_git(directory: Path, *arguments: str) -> subprocess.Popen[str] | None:
    """Start ``git -C directory ARGUMENTS``, or return ``None`` if git cannot be started."""
    import subprocess  # here only: an installed copy, in no checkout, never asks git

    try:
        return subprocess.Popen(
            ["git", "-C", str(directory), *arguments],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
    except OSError:
        return None


def _answer(started: subprocess.Popen[str] | None) -> str | None:
    """Return a started git's output, or ``None`` if it failed, said no or took too long."""
    if started is None:
        return None
    import subprocess

    try:
        out, _ = started.communicate(timeout=GIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        started.kill()
        started.communicate()
        return None
    return out.strip() if started.returncode == 0 else None


def look_up_source() -> subprocess.Popen[str] | None:
    """Start the git question :func:`source_commit` asks, once per process, and return it.

    ``git rev-parse HEAD HEAD:./__init__.py`` in the package's folder: the checkout's commit, and
    whether that commit holds the package's ``__init__.py`` (git says no otherwise). It runs
    beside whatever the process does until :func:`source_commit` reads it. Not asked when no
    folder above the package holds a ``.git``: an installed copy, in no checkout. A process
    forked after the question was asked asks its own: the answer is the parent's to read.
    """
    return _look_up_source_in(os.getpid())


@functools.cache
def _look_up_source_in(process: int) -> subprocess.Popen[str] | None:
    """:func:`look_up_source` for the process ``process`` (one question each)."""
    package = Path(__file__).resolve().parent
    if not any((folder / ".git").exists() for folder in (package, *package.parents)):
        return None
    return _start_git(package, "rev-parse", "HEAD", "HEAD:./__init__.py")


@functools.cache
def source_commit() -> str | None:
    """Return the git commit of the checkout ``aqmlab`` is imported from, else ``None``.

    The package's own ``__init__.py`` must be in that commit: an installed copy that merely lies
    inside some git work tree (a virtual environment in a checkout) has no commit.

    >>> commit = source_commit()
    >>> commit is None or len(commit) == 40
    True
    """
    answer = _answer(look_up_source())
    return answer.split()[0] if answer else None


def source_dirty() -> bool | None:
    """Return whether the checkout's front end (the ``aqmlab`` package) has uncommitted changes.

    ``None`` when :func:`source_commit` is ``None`` (not a git checkout).

    >>> source_dirty() in (True, False, None)
    True
    """
    package = Path(__file__).resolve().parent
    if source_commit() is None:
        return None
    status = _answer(_start_git(package, "status", "--porcelain", "--", "."))
    return None if status is None else bool(status)


def command_line() -> str:
    """Return the command line of this process, its program named without its directory.

    >>> isinstance(command_line(), str)
    True
    """
    argv = list(sys.argv) or [""]
    argv[0] = Path(argv[0]).name
    return shlex.join(argv)


def platform_name() -> str:
    """Name the system: kernel, its release, the machine and, when it is glibc, the C library.

    The same words as :func:`platform.platform` on Linux with glibc
    (``Linux-6.1.0-x86_64-with-glibc2.36``); elsewhere the first three.

    >>> platform_name().count("-") >= 2
    True
    """
    system = os.uname()
    name = f"{system.sysname}-{system.release}-{system.machine}"
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.36"
    except (ValueError, OSError):
        libc = None
    return f"{name}-with-{libc.replace(' ', '')}" if libc else name


def provenance() -> dict[str, Any]:
    """Return what ``meta.provenance`` records (module docs).

    >>> sorted(provenance())
    ['command', 'packages', 'platform', 'python', 'source_commit']
    """
    return {
        "command": command_line(),
        "source_commit": source_commit(),
        "platform": platform_name(),
        "python": sys.version.split()[0],
        "packages": {"aqmlab": __version__},
    }
