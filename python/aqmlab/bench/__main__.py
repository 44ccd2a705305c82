"""Run one reference and print its :class:`BenchRow` as JSON: ``python -m aqmlab.bench NAME``.

The child process of :func:`aqmlab.bench.measure`; ``--smoke`` after the name cuts the run short.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from aqmlab.bench import bench_one, load_reference, references, shortened


def peak_rss_bytes() -> int | None:
    """Return this process's peak resident memory (``VmHWM``; None where there is no ``/proc``).

    Not ``ru_maxrss``: Linux carries the parent's peak over into a child at ``exec``.

    >>> peak_rss_bytes() > 0
    True
    """
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(kib) * 1024


def main(argv: list[str]) -> None:
    """Run reference ``argv[0]`` (cut short if ``--smoke`` follows) and print its row.

    >>> main(["udp-poisson-95", "--smoke"])
    {"name": "udp-poisson-95", "simulated_s": 0.2, "events": ...}
    """
    name, smoke = argv[0], "--smoke" in argv[1:]
    row = bench_one(name, shortened(load_reference(references()[name]), smoke))
    row = replace(row, peak_rss_bytes=peak_rss_bytes())
    sys.stdout.write(json.dumps(row.to_json()) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
