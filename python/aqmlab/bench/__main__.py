"""Run one reference and print its :class:`BenchRow` as JSON: ``python -m aqmlab.bench NAME``.

The child process of :func:`aqmlab.bench.measure`; ``--smoke`` after the name cuts the run short.
"""

from __future__ import annotations

import json
import sys

from aqmlab.bench import bench_one, load_reference, references, shortened


def main(argv: list[str]) -> None:
    """Run reference ``argv[0]`` (cut short if ``--smoke`` follows) and print its row.

    >>> main(["udp-poisson-95", "--smoke"])
    {"name": "udp-poisson-95", "simulated_s": 0.2, "events": ...}
    """
    name, smoke = argv[0], "--smoke" in argv[1:]
    row = bench_one(name, shortened(load_reference(references()[name]), smoke))
    sys.stdout.write(json.dumps(row.to_json()) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
