"""Live runs as a sweep's executor: each job run on the kernel's TCP, stored as a run directory.

:class:`LiveExecutor` takes the jobs of :func:`aqmlab.executor.execute` (a sweep's, or a study
experiment's, :attr:`aqmlab.study.Experiment.executor`) and runs them **one at a time** with
:func:`aqmlab.live.run_live`: two live runs at once would share the CPU and spoil each other's
timing. Each run is written into the store in aqmlab's layout (:meth:`aqmlab.Result.files`), so
that :func:`aqmlab.collect` and a study's judges read it as they read a simulated run.

A stored live run is reused only when made by the same kernel and the same engine
(:func:`live_build_id`). A job that fails is stored as a failed run with its error in one line:
live mode unavailable (not root: :class:`~aqmlab.live.lab.LiveUnavailable`), a scenario live
mode refuses (an :class:`~aqmlab.errors.InputError` naming the key), or anything else the run
raised; the jobs after it go on. Ctrl-C stops the run under way within 20 ms (its namespaces
and processes removed) and stops the batch; the runs finished before it stay stored.
"""

from __future__ import annotations

import platform
from collections.abc import Callable, Sequence
from typing import Any

from aqmlab.errors import InputError

__all__ = ["LiveExecutor", "live_build_id"]


def live_build_id(engine: str | None = None) -> str:
    """Return what a stored live run is reused for: live mode, the kernel and the engine build.

    ``engine`` is aqmlab's engine build id (default: this process's).

    >>> live_build_id("0123abcd").startswith("live kernel ")
    True
    >>> live_build_id("0123abcd").endswith(" engine 0123abcd")
    True
    """
    if engine is None:
        from aqmlab.executor import current_build_id

        engine = current_build_id()
    return f"live kernel {platform.release()} engine {engine}"


def one_line(err: BaseException) -> str:
    r"""Return an error as one line: its message's first line (the type's name if it has none).

    >>> one_line(ValueError("bad\nmore"))
    'bad'
    >>> one_line(KeyError())
    'KeyError'
    """
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


class LiveExecutor:
    """Runs jobs live, one at a time, writing each run (or its failure) into the store."""

    def __init__(self, run: Callable[..., Any] | None = None) -> None:
        self.build_id = live_build_id()
        """What a stored live run is reused for (:func:`live_build_id`), in place of the engine's
        build id: the manifest's ``build_id`` and the summary's ``meta.build.id`` of its runs
        (``meta.build.engine_id`` keeps the engine's)."""
        self._run = run
        """What runs one job (default :func:`aqmlab.live.run_live`): for tests."""

    def run(
        self,
        todo: Sequence[Any],
        store: Any,
        build_id: str,
        done: Callable[[int, str, dict[str, Any] | None, str | None], None],
        progress: Callable[[dict[int, float]], None],
    ) -> None:
        """Run ``todo`` in order; call ``done(i, status, summary, error)`` as each ends."""
        if self._run is None:
            from aqmlab.live import run_live

            self._run = run_live
        fractions = dict.fromkeys(range(len(todo)), 0.0)
        try:
            for i, job in enumerate(todo):
                status, summary, error = self._one(job, store, build_id)
                fractions[i] = 1.0
                done(i, status, summary, error)
                progress(fractions)
        except BaseException:
            # Ctrl-C (run_live has already taken down its namespaces and processes): leave no
            # half-written run directory behind. The finished runs stay.
            store.remove_leftovers()
            raise

    def _one(self, job: Any, store: Any, build_id: str) -> tuple[str, dict[str, Any] | None,
                                                                str | None]:  # fmt: skip
        assert self._run is not None
        try:
            result = self._run(job.scenario, seed=job.seed)
        except (KeyboardInterrupt, SystemExit):
            raise
        except InputError as err:  # not root (LiveUnavailable), a refused scenario
            error = one_line(err)
        except Exception as err:  # anything else: this run fails, the others go on
            from aqmlab.executor import describe_error

            error = describe_error(err)
        else:
            summary = result.summary
            build = summary.setdefault("meta", {}).setdefault("build", {})
            build["engine_id"] = build.get("id")
            build["id"] = build_id
            store.write(job.scenario_hash, job.seed, result.files(), build_id=build_id)
            return "ran", summary, None
        files = {"error.txt": (error + "\n").encode("utf-8")}
        store.write(job.scenario_hash, job.seed, files, build_id=build_id, status="failed",
                    error=error)  # fmt: skip
        return "failed", None, error
