"""The ``aqmlab`` script and ``python -m aqmlab``: the command line (see :mod:`aqmlab.cli`).

An ``aqmlab run`` whose arguments :func:`aqmlab.run_command.plain_arguments` reads goes straight
to :func:`aqmlab.run_command.run_and_save`, the function the Typer command calls too: a single run
then pays neither Typer's nor Rich's start-up. When it has returned, its run directory is written
and closed and its output printed, so the process ends at once (``os._exit`` after flushing
stdout and stderr) instead of tearing the interpreter down module by module, which took about 7
ms of a 0.09 s run (docs/performance.md). Every other command line goes to Typer. :func:`main`
is the script's: called from another program it ends that program's process.
"""

import os
import sys


def main() -> None:
    """Run the command line ``sys.argv`` names, and exit with its status."""
    from aqmlab.run_command import plain_arguments, run_and_save

    arguments = plain_arguments(sys.argv[1:])
    if arguments is not None:
        status = run_and_save(**arguments)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    from aqmlab.cli import main as typer_main

    typer_main()


if __name__ == "__main__":
    main()
