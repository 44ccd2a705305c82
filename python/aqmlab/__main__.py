"""``python -m aqmlab``: the command line (see :mod:`aqmlab.cli`)."""

from aqmlab.cli import main

main()
