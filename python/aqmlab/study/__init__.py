"""The study layer: a paper's reproduction as data plus a few judges, run and reported alike.

See :mod:`aqmlab.study.model` for the parts (:class:`Study`, :class:`Experiment`,
:class:`Finding` with the :class:`Criterion` that judges it and its :class:`Revision`,
:class:`Verdict`, :class:`TableSpec`, :class:`FigureSpec`),
:func:`reproduce` for running one, and :mod:`aqmlab.study.report` for the one report builder.

>>> from aqmlab.papers import get
>>> study = get("christiansen2000")
>>> [e.name for e in study.experiments][:4]
['calibration', 'burst', 'unconstrained', 'fifo']
>>> study.finding("C6").needs, study.finding("C6").also
(('fifo',), ('knee_fifo', 'tailed_fifo'))
>>> study.needed(["C6"])
('calibration', 'fifo', 'knee_fifo', 'tailed_calibration', 'tailed_fifo')
"""

from aqmlab.plot import Curve, Panel
from aqmlab.study.model import (
    Column,
    Criterion,
    Data,
    Experiment,
    FigureSpec,
    Finding,
    Reason,
    Revision,
    Scale,
    Section,
    Study,
    TableSpec,
    Verdict,
    listed_findings,
    seedwise,
    seedwise_judge,
)
from aqmlab.study.run import Reproduction, reproduce

__all__ = [
    "Column",
    "Reason",
    "Criterion",
    "Curve",
    "Data",
    "Experiment",
    "FigureSpec",
    "Finding",
    "Panel",
    "Reproduction",
    "Revision",
    "Scale",
    "Section",
    "Study",
    "TableSpec",
    "Verdict",
    "listed_findings",
    "reproduce",
    "seedwise",
    "seedwise_judge",
]
