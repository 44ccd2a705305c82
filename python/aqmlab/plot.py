r"""Figures: panels of curves with optional bands, drawn with matplotlib (headless, PNG).

Studies describe figures as data (:class:`aqmlab.study.model.Panel` of
:class:`aqmlab.study.model.Curve`\\ s); :func:`draw_panels` is the one place that draws them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from aqmlab.study.model import Panel


def pyplot() -> Any:
    """Matplotlib's pyplot on the non-interactive Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw_panels(
    panels: Sequence[Panel], title: str, path: Path, *, dpi: int = 120, sharey: bool = True
) -> Path:
    """Draw panels side by side (sharing the y axis unless ``sharey=False``) into a PNG at ``path``.

    Each curve is a line; its band (``lo``–``hi``, e.g. a confidence interval over seeds) is
    shaded in the line's colour.

    >>> import tempfile
    >>> from aqmlab.study.model import Curve, Panel
    >>> x = np.linspace(0, 1, 5)
    >>> panel = Panel("p", (Curve("a", x, x, x - 0.1, x + 0.1),), "x", "y")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     draw_panels([panel], "t", Path(tmp) / "f.png").stat().st_size > 0
    True
    """
    plt = pyplot()
    fig, axes = plt.subplots(
        1, len(panels), figsize=(4.4 * len(panels), 3.9), sharey=sharey, squeeze=False
    )
    for ax, panel in zip(axes[0], panels, strict=True):
        for curve in panel.curves:
            (line,) = ax.plot(curve.x, curve.y, curve.style, label=curve.label)
            if curve.lo is not None and curve.hi is not None and np.isfinite(curve.lo).any():
                ax.fill_between(
                    curve.x, curve.lo, curve.hi, color=line.get_color(), alpha=0.2, linewidth=0
                )
        ax.set_title(panel.title, fontsize=10)
        ax.set_xlabel(panel.xlabel)
        if panel.xlim is not None:
            ax.set_xlim(*panel.xlim)
        if panel.ylim is not None:
            ax.set_ylim(*panel.ylim)
        ax.grid(alpha=0.3)
        if panel.curves:
            ax.legend(fontsize=7, loc="best")
    if sharey:
        axes[0][0].set_ylabel(panels[0].ylabel if panels else "")
    else:
        for ax, panel in zip(axes[0], panels, strict=True):
            ax.set_ylabel(panel.ylabel)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path
