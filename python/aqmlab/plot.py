r"""Publication figures: curves with bands over seeds, drawn alike for every study and every user.

Figures are data first: a :class:`Panel` holds :class:`Curve`\\ s (a label, x, y and an optional
band ``lo``–``hi``); :func:`mean_curves` and :func:`cdf_curves` build curves from tidy frames
(one row per run, or per row of a table, with a ``seed`` column), the mean over seeds with its
pointwise Student-t interval (:func:`aqmlab.stats.mean_ci`); :func:`draw_panels` draws panels into
one figure and writes it in every format asked for. :func:`plot_runs` (``aqmlab plot``) does all
of it for a run directory or a run store.

The look, chosen once here:

- **formats** vector PDF and SVG (text kept as text, no time stamps, so the same data give the
  same bytes) and PNG at 300 dpi (:data:`FORMATS`, :data:`PNG_DPI`);
- **series** told apart by colour *and* by line style and marker (:func:`series_style`): the
  colour-blind-safe palette of Okabe & Ito (2008, "Color Universal Design") with its grey, nine
  colours, with nine dash patterns and nine markers, so nine series differ in all three and a
  figure printed in grey still reads; dense curves carry a marker every ~10% of their length;
- **legends** inside their axes, their labels wrapped until they fit (:func:`draw_panels`);
  a panel with ``legend="outside"`` (curves named by two sweep axes) has its legend right of
  its axes, in as many columns as its height needs, and the figure widens to hold it;
- **bands** where a curve has several seeds: a shaded band for a dense curve (``kind="line"``:
  CDFs, time series), error bars for measured points (``"points"``, ``"markers"``); with one
  seed the interval is NaN and nothing is drawn — never a zero-width band;
- **reference** lines (theory, the paper's numbers) in black, thinner, out of the series' cycle;
- **titles** of reproductions' figures name the paper's figure:
  ``"Fig. 4 (Christiansen et al. 2000): …"`` (:func:`figure_title`);
- axis labels say their unit, in parentheses: ``"response time (ms)"``.

matplotlib is imported only when a figure is drawn (``import aqmlab`` stays light), on the
non-interactive Agg backend, and every setting is applied in a ``rc_context`` so a user's own
matplotlib settings are left alone.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from aqmlab.errors import InputError
from aqmlab.stats import ecdf, mean_ci

if TYPE_CHECKING:
    from aqmlab.result import Result

FORMATS = ("pdf", "svg", "png")
"""Every format :func:`draw_panels` can write (vector PDF and SVG, raster PNG)."""

PNG_DPI = 300
"""Resolution of PNG output (dots per inch)."""

OKABE_ITO = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#F0E442",  # yellow (faint on white)
    "#999999",  # grey
)
"""The Okabe–Ito palette, in the order series take it: the eight colours of Okabe & Ito (2008)
and the grey that R's ``palette.colors("Okabe-Ito")`` adds as a ninth."""

LINESTYLES: tuple[Any, ...] = (
    "-",
    (0, (5, 2)),
    (0, (1, 1.5)),
    (0, (6, 2, 1, 2)),
    (0, (3, 1, 1, 1, 1, 1)),
    (0, (9, 3)),
    (0, (2, 3)),
    (0, (6, 2, 1, 2, 1, 2)),
    (0, (10, 2, 2, 2)),
)
"""Dash patterns (matplotlib's on/off lengths in points): solid, dashed, dotted, dash-dot, …."""

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<")
"""Markers, one per series (nine before they repeat)."""

REFERENCE_LINESTYLES: tuple[Any, ...] = ((0, (4, 2)), (0, (1, 1.5)), (0, (6, 2, 1, 2)), "-")
"""Dash patterns of reference lines (black), in turn."""

PANEL_INCHES = (3.4, 2.8)
"""Width and height of one panel (a journal column is about 3.4 inches wide)."""

KINDS = ("line", "points", "markers")
"""How a curve is drawn: see :class:`Curve`."""


@dataclass(frozen=True)
class Curve:
    """One series of a panel, with an optional band (``lo``, ``hi``) around it.

    ``kind`` says how it is drawn: ``"line"`` a dense curve (a CDF, a time series) with its band
    shaded; ``"points"`` measured points joined by lines, ``"markers"`` points alone, both with
    error bars. ``reference=True`` draws it in black as a reference (a fit, a theory line, the
    paper's numbers), out of the series' colours.

    >>> Curve("a", np.array([0.0, 1.0]), np.array([1.0, 2.0]), kind="points").kind
    'points'
    """

    label: str
    x: np.ndarray
    y: np.ndarray
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None
    kind: str = "line"
    reference: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"curve kind: expected one of {KINDS}, got {self.kind!r}")

    def has_band(self) -> bool:
        """Return True if the curve has a band with at least one finite point."""
        return (
            self.lo is not None
            and self.hi is not None
            and bool(np.isfinite(np.asarray(self.lo, dtype=float)).any())
        )


LEGENDS = ("inside", "outside")
"""Where a panel's legend goes: see :class:`Panel`."""


@dataclass(frozen=True)
class Panel:
    """One set of axes: curves, axis labels (with units) and limits; ``xscale`` may be ``log``.

    ``legend`` is ``"inside"`` (the axes' emptiest corner, labels wrapped until it fits) or
    ``"outside"`` (right of the axes); ``legend_title`` heads it (e.g. the axes the labels'
    values belong to).
    """

    title: str
    curves: tuple[Curve, ...]
    xlabel: str = ""
    ylabel: str = ""
    xlim: tuple[float, float] | None = None
    ylim: tuple[float, float] | None = None
    xscale: str = "linear"
    legend: str = "inside"
    legend_title: str = ""

    def __post_init__(self) -> None:
        if self.legend not in LEGENDS:
            raise ValueError(f"panel legend: expected one of {LEGENDS}, got {self.legend!r}")


def series_style(index: int) -> dict[str, Any]:
    """Colour, dash pattern and marker of the ``index``-th series (matplotlib keywords).

    The first nine differ in all three; after that the colours and markers repeat with another
    dash pattern (the dashes step by two), so 81 series are still distinct as triples.

    >>> series_style(0)
    {'color': '#0072B2', 'linestyle': '-', 'marker': 'o'}
    >>> len({str(sorted(series_style(i).items())) for i in range(81)})
    81
    """
    cycle = len(OKABE_ITO)
    round_ = index // cycle
    return {
        "color": OKABE_ITO[index % cycle],
        "linestyle": LINESTYLES[(index + 2 * round_) % len(LINESTYLES)],
        "marker": MARKERS[index % len(MARKERS)],
    }


def reference_style(index: int) -> dict[str, Any]:
    """Style of the ``index``-th reference curve of a panel: black, its own dashes, x markers.

    A reference line is drawn thinner and without markers; reference points take the x.

    >>> reference_style(1)["color"], reference_style(1)["marker"]
    ('#000000', 'x')
    """
    return {
        "color": "#000000",
        "linestyle": REFERENCE_LINESTYLES[index % len(REFERENCE_LINESTYLES)],
        "marker": "x",
    }


def figure_title(title: str, paper_figure: str = "", citation: str = "") -> str:
    """Return a figure's title; a reproduction's names the paper's figure first.

    >>> figure_title("FIFO queue sizes", "Fig. 7", "Christiansen et al. 2000")
    'Fig. 7 (Christiansen et al. 2000): FIFO queue sizes'
    >>> figure_title("queue length")
    'queue length'
    """
    if not paper_figure:
        return title
    return f"{paper_figure} ({citation}): {title}" if citation else f"{paper_figure}: {title}"


# --- curves from frames --------------------------------------------------------------------------


def _key(key: Any) -> tuple[str, ...]:
    return tuple(str(k) for k in (key if isinstance(key, tuple) else (key,)))


def mean_curves(
    frame: pd.DataFrame,
    x: str,
    y: str,
    *,
    by: Sequence[str] = (),
    x_scale: float = 1.0,
    y_scale: float = 1.0,
    kind: str = "points",
    clip: tuple[float, float] | None = None,
) -> dict[tuple[str, ...], Curve]:
    """One curve of ``y`` against ``x`` per group of ``by``: the mean over seeds and its t band.

    ``frame`` has one row per seed at each x (a run at a sweep point, a seed's CDF at a grid
    point, a seed's queue in an interval); at each x of each group the curve is the mean of ``y``
    and its band the pointwise Student-t interval at 95% (:func:`aqmlab.stats.mean_ci`; NaN with
    one seed), clipped to ``clip`` if given (a share stays in [0, 1]). ``x`` must be numeric (a
    label column is converted with ``float``). ``x_scale`` and ``y_scale`` convert units
    (s → ms, share → %). Keyed by the group's values as text and labelled with them, joined by
    ", " (relabel with ``dataclasses.replace``); points sorted by x.

    >>> f = pd.DataFrame({"s": ["dt"] * 4, "n": ["1", "1", "2", "2"], "g": [1.0, 3.0, 4.0, 4.0]})
    >>> curve = mean_curves(f, "n", "g", by=["s"])[("dt",)]
    >>> curve.label, curve.x.tolist(), curve.y.tolist()
    ('dt', [1.0, 2.0], [2.0, 4.0])
    >>> round(float(curve.hi[0]), 3)  # 2 + t₀.₉₇₅,₁ · √2/√2 = 2 + 12.706
    14.706
    """
    numbers = frame.assign(**{x: frame[x].astype(float)})
    stats = mean_ci(numbers, y, by=[*by, x])
    curves = {}
    groups = stats.groupby(list(by), observed=True, sort=True) if by else [((), stats)]
    for key, group in groups:
        key = _key(key)
        group = group.sort_values(x)
        lo, hi = group[f"{y}_lo"], group[f"{y}_hi"]
        if clip is not None:
            lo, hi = lo.clip(*clip), hi.clip(*clip)
        curves[key] = Curve(
            ", ".join(key),
            group[x].to_numpy(dtype=float) * x_scale,
            group[f"{y}_mean"].to_numpy(dtype=float) * y_scale,
            lo.to_numpy(dtype=float) * y_scale,
            hi.to_numpy(dtype=float) * y_scale,
            kind,
        )
    return curves


def run_cdf(
    value: str, grid: Sequence[float] | np.ndarray
) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """Return a reducer of one run's (or seed's) rows to its ECDF of ``value`` on ``grid``.

    Columns ``t`` (the grid) and ``cdf`` (:func:`aqmlab.stats.ecdf`: the share of finite values
    ≤ t). For :func:`aqmlab.collect`'s ``reduce`` (one run in memory at a time) and
    :func:`cdf_curves`; :func:`cdf_band_curves` turns such ECDFs into curves.

    >>> run_cdf("t", [0.25, 0.5])(pd.DataFrame({"t": [0.1, 0.3]})).values.tolist()
    [[0.25, 0.5], [0.5, 1.0]]
    """
    points = np.asarray(grid, dtype=float)
    if points.ndim != 1:
        raise ValueError(f"run_cdf: expected a one-dimensional grid, got shape {points.shape}")

    def reduce(rows: pd.DataFrame) -> pd.DataFrame:
        values = rows[value].to_numpy(dtype=float, na_value=np.nan)
        return pd.DataFrame({"t": points, "cdf": ecdf(values, points)})

    return reduce


def cdf_band_curves(
    cdfs: pd.DataFrame, *, by: Sequence[str] = (), x_scale: float = 1.0, y_scale: float = 1.0
) -> dict[tuple[str, ...], Curve]:
    """One CDF curve per group of ``by`` from per-seed ECDFs (rows ``by…, t, cdf``, a set a seed).

    The mean over seeds at each ``t`` and its t band clipped to [0, 1] (:func:`mean_curves`); a
    seed whose ECDF is NaN (no finite value) is left out.
    """
    return mean_curves(cdfs, "t", "cdf", by=by, x_scale=x_scale, y_scale=y_scale, kind="line",
                       clip=(0.0, 1.0))  # fmt: skip


def cdf_curves(
    frame: pd.DataFrame,
    value: str,
    *,
    grid: Sequence[float] | np.ndarray,
    by: Sequence[str] = (),
    seed: str = "seed",
    x_scale: float = 1.0,
    y_scale: float = 1.0,
) -> dict[tuple[str, ...], Curve]:
    """One empirical CDF of ``value`` per group of ``by``: the mean over seeds, with its t band.

    Each seed's ECDF on ``grid`` (:func:`run_cdf`; NaN and infinite values left out), then at
    each grid point the mean over seeds and its Student-t interval (:func:`cdf_band_curves`).

    Two seeds, whose shares ≤ 0.25 are 1/2 and 0: the mean is 0.25 and the band
    0.25 ∓ 12.706·0.3536/√2, clipped to [0, 1]:

    >>> f = pd.DataFrame({"q": ["30"] * 4, "seed": [1, 1, 2, 2], "t": [0.1, 0.3, 0.3, 0.4]})
    >>> curve = cdf_curves(f, "t", grid=[0.25, 0.5], by=["q"], y_scale=100)[("30",)]
    >>> curve.label, curve.y.tolist(), curve.lo.tolist(), curve.hi.tolist()
    ('30', [25.0, 100.0], [0.0, 100.0], [100.0, 100.0])
    """
    reduce = run_cdf(value, grid)
    keys = [*by, seed]
    pieces = [
        reduce(rows).assign(**dict(zip(keys, key if isinstance(key, tuple) else (key,),
                                       strict=True)))
        for key, rows in frame.groupby(keys, observed=True, sort=True)
    ]  # fmt: skip
    if not pieces:
        return {}
    cdfs = pd.concat(pieces, ignore_index=True)
    for name in by:  # keep a categorical key's order (e.g. loads in the order of the study)
        if isinstance(frame[name].dtype, pd.CategoricalDtype):
            cdfs[name] = pd.Categorical(cdfs[name], dtype=frame[name].dtype)
    return cdf_band_curves(cdfs, by=by, x_scale=x_scale, y_scale=y_scale)


# --- drawing -------------------------------------------------------------------------------------


def _pyplot() -> Any:
    """Matplotlib's pyplot on the non-interactive Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


RC = {
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.labelsize": 8,
    "legend.fontsize": 7,
    "legend.title_fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "lines.linewidth": 1.3,
    "lines.markersize": 4,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "legend.frameon": False,
    "pdf.fonttype": 42,  # TrueType in the PDF: text stays text, editable in a journal's tools
    "svg.fonttype": "none",  # text as text, not paths
    "svg.hashsalt": "aqmlab",  # the same ids in every SVG: the same data give the same bytes
}
"""matplotlib settings of every figure (applied in an ``rc_context``)."""


def _draw_curve(ax: Any, curve: Curve, style: Mapping[str, Any], order: int) -> None:
    """Draw one curve and its band or error bars on ``ax``."""
    x, y = np.asarray(curve.x, dtype=float), np.asarray(curve.y, dtype=float)
    band = curve.has_band()
    if curve.kind == "line":
        extra: dict[str, Any] = {}
        if x.size > 25:  # a marker on every tenth of the points, staggered between series
            step = x.size // 10
            extra["markevery"] = ((order % len(MARKERS)) * step // len(MARKERS), step)
        if curve.reference:  # a reference line is told apart by its dashes alone
            extra = {"linewidth": 0.9, "marker": ""}
        ax.plot(x, y, label=curve.label, **{**style, **extra})
        if band:
            ax.fill_between(x, np.asarray(curve.lo, dtype=float),
                            np.asarray(curve.hi, dtype=float), color=style["color"],
                            alpha=0.18, linewidth=0)  # fmt: skip
        return
    line = {"linestyle": "none"} if curve.kind == "markers" else {}
    yerr = None
    if band:
        lo, hi = np.asarray(curve.lo, dtype=float), np.asarray(curve.hi, dtype=float)
        yerr = np.nan_to_num(np.vstack([y - lo, hi - y]), nan=0.0)
    ax.errorbar(x, y, yerr=yerr, label=curve.label, capsize=2, elinewidth=0.8,
                **{**style, **line})  # fmt: skip


LEGEND_NARROWEST = 12
"""The narrowest (in characters) legend labels are wrapped to before the legend goes outside."""


def _legend(ax: Any, panel: Panel, *, outside: bool, wrap: int = 0, ncol: int = 1) -> Any:
    """Draw ``panel``'s legend on ``ax``: its labels wrapped at ``wrap`` characters (0: not)."""
    handles, labels = ax.get_legend_handles_labels()
    if wrap:
        labels = [textwrap.fill(label, wrap) for label in labels]
    title = panel.legend_title or None
    if outside:
        return ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 1.0),
                         ncol=ncol, title=title, alignment="left")  # fmt: skip
    return ax.legend(handles, labels, loc="best", title=title)


def _within(inner: Any, outer: Any) -> bool:
    """Return True if the box ``inner`` lies in ``outer`` (display units, half a pixel's slack)."""
    return bool(inner.x0 >= outer.x0 - 0.5 and inner.x1 <= outer.x1 + 0.5
                and inner.y0 >= outer.y0 - 0.5 and inner.y1 <= outer.y1 + 0.5)  # fmt: skip


def _place_legends(fig: Any, legends: Sequence[tuple[Any, Panel]], ncols: int) -> None:
    """Give each axes its panel's legend, each fitting where it goes; lay the figure out again.

    An inside legend whose box crosses its axes' frame has its labels wrapped, a quarter
    narrower each time down to :data:`LEGEND_NARROWEST` characters; one that still does not fit
    goes outside. An outside legend sits right of its axes, in as many columns as keep it no
    taller than the axes, and the figure widens by the widest such legend in every column, so
    the axes keep their size.
    """
    renderer = fig.canvas.get_renderer()
    outside = []
    for ax, panel in legends:
        if panel.legend == "outside":
            outside.append((ax, panel))
            continue
        legend = _legend(ax, panel, outside=False)
        wrap = max(len(text.get_text()) for text in legend.get_texts())
        while not _within(legend.get_window_extent(renderer), ax.get_window_extent(renderer)):
            if wrap <= LEGEND_NARROWEST:
                legend.remove()
                outside.append((ax, panel))
                break
            wrap = max(LEGEND_NARROWEST, wrap * 3 // 4)
            legend = _legend(ax, panel, outside=False, wrap=wrap)
    if not outside:
        return
    widest = 0.0
    for ax, panel in outside:
        legend = _legend(ax, panel, outside=True)
        entries = len(legend.get_texts())
        height = legend.get_window_extent(renderer).height
        room = ax.get_window_extent(renderer).height
        if height > room:
            rows = max(1, math.floor(entries * room / height))
            legend = _legend(ax, panel, outside=True, ncol=math.ceil(entries / rows))
        widest = max(widest, legend.get_window_extent(renderer).width / fig.dpi)
    width, height = fig.get_size_inches()
    fig.set_size_inches(width + ncols * widest, height)
    fig.tight_layout()


def draw_panels(
    panels: Sequence[Panel],
    title: str,
    path: str | Path,
    *,
    formats: Sequence[str] = FORMATS,
    sharey: bool = True,
    columns: int = 3,
) -> list[Path]:
    """Draw panels (up to ``columns`` a row, rows filled evenly) into a figure; write each format.

    ``path`` names the files: its suffix, if any, is replaced by each format's (``figs/q`` →
    ``figs/q.pdf``, ``figs/q.svg``, ``figs/q.png``). Panels share the y axis unless
    ``sharey=False``. Each panel's series take :func:`series_style` in turn, its reference
    curves :func:`reference_style`; its legend goes where :attr:`Panel.legend` says, and fits
    (:func:`_place_legends`). Returns the files written.

    >>> import tempfile
    >>> x = np.linspace(0, 1, 5)
    >>> panel = Panel("p", (Curve("a", x, x, x - 0.1, x + 0.1),), "x (s)", "y (packets)")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.suffix for p in draw_panels([panel], "t", Path(tmp) / "f", formats=["png", "svg"])]
    ['.png', '.svg']
    """
    formats = check_formats(formats)
    if not panels:
        raise ValueError("draw_panels: expected at least one panel")
    plt = _pyplot()
    base = Path(path)
    base = base.with_suffix("") if base.suffix.lower().lstrip(".") in FORMATS else base
    nrows = math.ceil(len(panels) / max(1, columns))
    ncols = math.ceil(len(panels) / nrows)  # rows as even as can be: 4 panels are 2 × 2
    heading = textwrap.fill(title, width=int(14 * PANEL_INCHES[0] * ncols))  # ~14 chars/inch
    lines = heading.count("\n") + 1
    size = (PANEL_INCHES[0] * ncols, PANEL_INCHES[1] * nrows + 0.2 + 0.17 * lines)
    written = []
    with plt.rc_context(RC):
        fig, axes = plt.subplots(nrows, ncols, figsize=size, sharey=sharey, squeeze=False)
        flat = list(axes.ravel())
        for index, (ax, panel) in enumerate(zip(flat, panels, strict=False)):
            series = references = 0
            for curve in panel.curves:
                if curve.reference:
                    _draw_curve(ax, curve, reference_style(references), references)
                    references += 1
                else:
                    _draw_curve(ax, curve, series_style(series), series)
                    series += 1
            ax.set_title(panel.title)
            ax.set_xlabel(panel.xlabel)
            if not sharey or index % ncols == 0:
                ax.set_ylabel(panel.ylabel)
            if panel.xscale != "linear":
                ax.set_xscale(panel.xscale)
            if panel.xlim is not None:
                ax.set_xlim(*panel.xlim)
            if panel.ylim is not None:
                ax.set_ylim(*panel.ylim)
        for ax in flat[len(panels) :]:
            ax.set_visible(False)
        fig.suptitle(heading, fontsize=10)
        fig.tight_layout()
        _place_legends(fig, [(ax, p) for ax, p in zip(flat, panels, strict=False) if p.curves],
                       ncols)  # fmt: skip
        base.parent.mkdir(parents=True, exist_ok=True)
        for fmt in formats:
            target = base.with_name(f"{base.name}.{fmt}")
            metadata = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}.get(fmt)
            fig.savefig(target, dpi=PNG_DPI, format=fmt, metadata=metadata)
            written.append(target)
        plt.close(fig)
    return written


def check_formats(formats: Sequence[str] | str) -> list[str]:
    """Read formats (``"pdf,png"`` or a list) into a list; :class:`InputError` for an unknown one.

    >>> check_formats("pdf, png")
    ['pdf', 'png']
    >>> check_formats(["gif"])
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: --format: unknown format "gif" (formats: pdf, svg, png)
    """
    items = formats.split(",") if isinstance(formats, str) else list(formats)
    chosen = list(dict.fromkeys(f.strip().lower().lstrip(".") for f in items if f.strip()))
    if not chosen:
        raise InputError("--format", f"expected one or more of {', '.join(FORMATS)}")
    for fmt in chosen:
        if fmt not in FORMATS:
            raise InputError("--format", f'unknown format "{fmt}" (formats: {", ".join(FORMATS)})')
    return chosen


# --- aqmlab plot: figures of a run or a run store ------------------------------------------------


@dataclass(frozen=True)
class PlotKind:
    """A figure ``aqmlab plot`` draws: from which table, which columns, and how.

    ``curves(frame, by)`` turns the table's rows (with ``seed`` and the axis columns) into one
    curve per group of ``by``; ``reduce`` (if set) shrinks each run's rows as they are read. A
    time series instead has ``points``: each run's rows as ``t_s``, the value ``y`` and its weight
    ``w`` in a bin's mean (``binned`` says what that mean is, for ``--bin``); ``interval`` is the
    scenario key of its table's interval (empty when its rows are events, not intervals: those
    are binned even without ``--bin``, in :func:`bin_width` bins).
    """

    name: str
    table: str
    columns: tuple[str, ...]
    what: str
    xlabel: str
    ylabel: str
    curves: Callable[[pd.DataFrame, Sequence[str]], dict[tuple[str, ...], Curve]]
    empty: str
    reduce: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    xscale: str = "linear"
    ylim: tuple[float, float] | None = None
    points: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    binned: str = ""
    interval: str = ""


CDF_POINTS = 400
"""Grid points of a response-time CDF (log-spaced from the smallest to the largest time)."""

TIME_BINS = 200
"""About how many bins a cwnd time series has (over the span of the traced ACKs)."""


def _forward(rows: pd.DataFrame) -> pd.DataFrame:
    return rows[rows["direction"].astype(str) == "forward"]


def _response_cdfs(frame: pd.DataFrame, by: Sequence[str]) -> dict[tuple[str, ...], Curve]:
    values = frame["response_s"].to_numpy(dtype=float)
    finite = values[np.isfinite(values) & (values > 0)]
    if finite.size == 0:
        return {}
    low, high = float(finite.min()), float(finite.max())
    grid = np.geomspace(low, max(high, low * 1.01), CDF_POINTS)
    return cdf_curves(frame, "response_s", grid=grid, by=by, x_scale=1e3, y_scale=100)


def _points(t: Any, y: Any, w: Any = 1.0) -> pd.DataFrame:
    t = np.asarray(t, dtype=float)
    weights = np.array(np.broadcast_to(np.asarray(w, dtype=float), t.shape))
    return pd.DataFrame({"t_s": t, "y": np.asarray(y, dtype=float), "w": weights})


def _column(name: str, scale: float = 1.0) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """Points of one forward column per interval, each interval weighing alike."""

    def points(rows: pd.DataFrame) -> pd.DataFrame:
        rows = _forward(rows)
        return _points(rows["t_s"], rows[name].to_numpy(dtype=float) * scale)

    return points


def _weighted(name: str, weight: str) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """Points of the forward ``name`` per interval, weighted by the interval's ``weight``."""

    def points(rows: pd.DataFrame) -> pd.DataFrame:
        rows = _forward(rows)
        return _points(rows["t_s"], rows[name], rows[weight])

    return points


def _loss(rows: pd.DataFrame) -> pd.DataFrame:
    """Return each interval's share of arrivals dropped (NaN without any), weighed by them."""
    rows = _forward(rows)
    arrivals = rows["arrivals_pkts"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(arrivals > 0, rows["drops_pkts"].to_numpy(dtype=float) / arrivals, np.nan)
    return _points(rows["t_s"], share, arrivals)


def _cwnd(rows: pd.DataFrame) -> pd.DataFrame:
    """Return every traced ACK's cwnd (KB), each weighing alike."""
    return _points(rows["t_s"], rows["cwnd_bytes"].to_numpy(dtype=float) / 1e3)


def bin_width(span: float, bins: int = TIME_BINS) -> float:
    """Return a round bin width (1, 2 or 5 × 10ᵏ s) for about ``bins`` bins over ``span`` s.

    Round, so runs of the same length (whose last ACKs differ by a little) share their bins.

    >>> bin_width(29.97), bin_width(30.02), bin_width(600.0)
    (0.2, 0.2, 5.0)
    """
    raw = max(span, 1e-9) / bins
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= raw * 0.999)


def bin_points(points: pd.DataFrame, width: float) -> pd.DataFrame:
    """Average points (``t_s``, ``y``, weight ``w``) into bins of ``width`` seconds.

    The bins are ``[k·width, (k+1)·width)`` from time 0 (so runs share them), each the weighted
    mean Σwy / Σw of its points with a finite ``y`` and ``w`` > 0 (NaN if none), at its middle.
    Interval tables' ``t_s`` are the starts of their intervals, so an interval falls in the bin
    its start is in.

    >>> p = pd.DataFrame({"t_s": [0.0, 0.1, 0.2, 0.3], "y": [1.0, 3.0, 5.0, float("nan")],
    ...                   "w": [1.0, 3.0, 0.0, 1.0]})
    >>> bin_points(p, 0.2).values.tolist()
    [[0.1, 2.5], [0.30000000000000004, nan]]
    """
    t = points["t_s"].to_numpy(dtype=float)
    y = points["y"].to_numpy(dtype=float)
    w = points["w"].to_numpy(dtype=float)
    valid = np.isfinite(y) & (w > 0)
    # A start k·width computed as a sum of intervals may land a hair below the bin's edge.
    k = np.floor(t / width + 1e-9)
    sums = pd.DataFrame({"k": k, "wy": np.where(valid, w * np.where(valid, y, 0.0), 0.0),
                         "w": np.where(valid, w, 0.0)}).groupby("k", sort=True).sum()  # fmt: skip
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(sums["w"] > 0, sums["wy"] / sums["w"], np.nan)
    return pd.DataFrame({"t_s": (sums.index.to_numpy(dtype=float) + 0.5) * width, "y": mean})


def interval_of(points: pd.DataFrame) -> float | None:
    """Return the interval of a run's interval table: the shortest step between its starts.

    None with fewer than two starts (one interval says nothing of its length).

    >>> interval_of(pd.DataFrame({"t_s": [5.0, 5.1, 5.2, 5.2]}))
    0.09999999999999964
    """
    starts = np.unique(points["t_s"].to_numpy(dtype=float))
    return float(np.diff(starts).min()) if starts.size > 1 else None


def _series_reduce(
    kind: PlotKind, bin_s: float | None, bin_text: str
) -> Callable[[pd.DataFrame], pd.DataFrame] | None:
    """Return the reducer of one run's rows for ``kind``: its points, binned if asked."""
    points = kind.points
    if points is None:
        return kind.reduce

    def reduce(rows: pd.DataFrame) -> pd.DataFrame:
        series = points(rows)
        width = bin_s
        if width is None:
            if kind.interval:
                return series[["t_s", "y"]]
            t = series["t_s"].to_numpy(dtype=float)
            width = bin_width(float(t.max())) if t.size else 1.0
        elif kind.interval:
            interval = interval_of(series)
            if interval is not None and width < interval * (1 - 1e-9):
                raise InputError("--bin", f"{bin_text} is shorter than the {kind.table} table's "
                                          f"interval ({interval:.6g} s, {kind.interval}): "
                                          "expected a bin of one interval or more")  # fmt: skip
        return bin_points(series, width)

    return reduce


def bin_seconds(value: str | float) -> float:
    """Read ``--bin`` (a duration like ``"1s"`` or ``"100ms"``, or seconds) into seconds.

    Durations are read as a scenario's are (the engine's parser).

    >>> bin_seconds("1s"), bin_seconds("250ms"), bin_seconds(0.5)
    (1.0, 0.25, 0.5)
    >>> bin_seconds("1")
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: --bin: expected a duration like "1s" or "100ms", got "1" (no unit; \
units: ns, us, ms, s, min, h)
    """
    from aqmlab import _native

    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str):
        try:
            seconds = _native.quantity("time", value) * 1e-9
        except ValueError as err:
            detail = str(err.args[-1]) if err.args else ""
            why = detail[detail.rfind("(") :] if detail.endswith(")") else ""
            raise InputError("--bin", f'expected a duration like "1s" or "100ms", got '
                                      f'"{value}"{" " + why if why else ""}') from None  # fmt: skip
    else:
        raise InputError("--bin", f"expected a duration like \"1s\", got {type(value).__name__}")
    if not math.isfinite(seconds) or seconds <= 0:
        raise InputError("--bin", f'expected a duration above 0, got "{value}"')
    return seconds


def _over_time(
    scale: float = 1.0, top: float = math.inf
) -> Callable[[pd.DataFrame, Sequence[str]], dict[tuple[str, ...], Curve]]:
    """Curves of ``y`` over time; the band clipped to [0, ``top``], where the quantity lives."""

    def curves(frame: pd.DataFrame, by: Sequence[str]) -> dict[tuple[str, ...], Curve]:
        return mean_curves(frame, "t_s", "y", by=by, y_scale=scale, kind="line", clip=(0.0, top))

    return curves


PLOT_KINDS: dict[str, PlotKind] = {
    kind.name: kind
    for kind in (
        PlotKind("cdf", "requests", ("response_s",), "response times of web requests",
                 "response time (ms)", "cumulative % of requests", _response_cdfs,
                 "no completed web request (a web-mah traffic group makes them)",
                 xscale="log", ylim=(0, 100)),
        PlotKind("queue", "queue", ("t_s", "direction", "mean_pkts"),
                 "bottleneck queue",
                 "time (s)", "queue length (packets)", _over_time(), "no queue rows",
                 points=_column("mean_pkts"), binned="the mean of its intervals' queue lengths",
                 interval="measure.queue_interval"),
        PlotKind("throughput", "link", ("t_s", "direction", "throughput_bps"),
                 "bottleneck throughput", "time (s)",
                 "throughput (Mbit/s)", _over_time(1e-6), "no link rows",
                 points=_column("throughput_bps"), binned="the mean of its intervals' rates",
                 interval="measure.link_interval"),
        PlotKind("loss", "queue", ("t_s", "direction", "arrivals_pkts", "drops_pkts"),
                 "bottleneck drops",
                 "time (s)", "dropped (% of arrivals)", _over_time(100.0, 1.0),
                 "no queue rows", points=_loss,
                 binned="its drops over its arrivals", interval="measure.queue_interval"),
        PlotKind("delay", "queue", ("t_s", "direction", "departures_pkts", "mean_sojourn_s"),
                 "bottleneck queueing delay", "time (s)", "queueing delay (ms)", _over_time(1e3),
                 "no queue rows", points=_weighted("mean_sojourn_s", "departures_pkts"),
                 binned="the mean sojourn of the packets that left in it",
                 interval="measure.queue_interval"),
        PlotKind("cwnd", "tcp_trace", ("t_s", "cwnd_bytes"),
                 "congestion window of traced TCP senders", "time (s)", "cwnd (KB)",
                 _over_time(),
                 "no traced ACK: set trace = true on an ftp traffic group",
                 points=_cwnd, binned="the mean cwnd of its ACKs"),
    )
}  # fmt: skip
"""The figures ``aqmlab plot --kind`` draws, by name."""


def _run_frame(
    run_dir: Path, kind: PlotKind, reduce: Callable[[pd.DataFrame], pd.DataFrame] | None
) -> tuple[pd.DataFrame, list[str]]:
    """Return one run directory's table (its columns and the seed), reduced like a store's."""
    from aqmlab.reading import load

    result: Result = load(run_dir)
    if kind.table not in result.tables:
        raise InputError(kind.table, f"no such table in {run_dir} "
                                     f"(tables: {', '.join(sorted(result.tables))})")  # fmt: skip
    rows = result.tables[kind.table][list(kind.columns)]
    if reduce is not None:
        rows = reduce(rows)
    seed = result.summary.get("meta", {}).get("seed", 0)
    return rows.assign(seed=seed), []


def _store_frame(
    store: Path, kind: PlotKind, sweep: str | None,
    reduce: Callable[[pd.DataFrame], pd.DataFrame] | None,
) -> tuple[pd.DataFrame, list[str]]:
    """Return a run store's table for ``kind`` (through :func:`aqmlab.collect`) and its axes."""
    from aqmlab.reading import RUN_COLUMNS, collect

    frame = collect(store, kind.table, sweep=sweep, columns=list(kind.columns), labels=True,
                    missing="warn", reduce=reduce)  # fmt: skip
    axes = list(frame.columns[: list(frame.columns).index(RUN_COLUMNS[0])])
    return frame, axes


def _groups(frame: pd.DataFrame, axes: Sequence[str], by: Sequence[str] | None) -> list[str]:
    """Return the axes to draw one curve per value of: ``by``, or every axis that varies."""
    varying = [a for a in axes if frame[a].astype(str).nunique() > 1]
    if by is None:
        return varying
    for axis in by:
        if axis not in axes:
            listed = ", ".join(axes) if axes else "none: a single run"
            raise InputError("--by", f'no sweep axis "{axis}" (axes: {listed})')
    pooled = [a for a in varying if a not in by]
    if pooled:
        raise InputError("--by", f"the axes {', '.join(pooled)} vary too: a curve would pool "
                                 f"different configurations (add them: --by "
                                 f"{','.join([*by, *pooled])})")  # fmt: skip
    return list(by)


def _label(
    groups: Sequence[str], key: tuple[str, ...], n: int | None, name: str
) -> str:
    """Label a curve by its axes' values (``a = v``; its values alone with two axes or more)."""
    if len(groups) > 1:
        text = ", ".join(key)
    else:
        text = ", ".join(f"{a} = {v}" for a, v in zip(groups, key, strict=True)) or name
    return text if n is None else f"{text} ({n} seed{'s' if n > 1 else ''})"


def plot_runs(
    directory: str | Path,
    kind: str,
    out: str | Path,
    *,
    by: Sequence[str] | None = None,
    formats: Sequence[str] | str = FORMATS,
    title: str | None = None,
    sweep: str | None = None,
    bin: str | float | None = None,
) -> list[Path]:
    """Draw a :data:`PLOT_KINDS` figure of a run directory or a run store; return the files.

    One curve per value of the ``by`` axes (default: every axis of the store that varies; a
    single run is one curve), each the mean over seeds with its pointwise 95% t band when a
    value has several seeds. With two axes or more, a curve is labelled by its values alone,
    the legend (right of the axes) titled by the axes' names. ``sweep`` picks one sweep of a
    store that holds several (a reproduction's ``store/``). ``bin`` (a duration, ``"1s"``, or
    seconds) averages each run's time series into bins of that width before the mean over
    seeds (:func:`bin_points`; what a bin's mean is: :attr:`PlotKind.binned`); it may not be
    shorter than the table's interval. Tables are read through :func:`aqmlab.collect` (or
    :func:`aqmlab.load` for one run). Bad input raises :class:`InputError`: an unknown
    kind, an axis the store does not have, axes left out of ``by`` that vary, a table without
    the rows the figure needs, a bin that is not a duration or is shorter than the interval, or
    a bin for a kind that is not a time series.

    >>> import tempfile, aqmlab
    >>> base = {"duration": "4s", "topology": {"bottleneck": {"rate": "1Mbps"}},
    ...         "traffic": [{"kind": "cbr", "rate": "2Mbps"}]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     run = aqmlab.run(base, seed=1).save(Path(tmp) / "run")
    ...     [p.name for p in plot_runs(run, "delay", Path(tmp) / "q", formats="png", bin="1s")]
    ['q.png']
    """
    from aqmlab.reading import is_store
    from aqmlab.store import names_a_packed_run

    if kind not in PLOT_KINDS:
        raise InputError("--kind", f'unknown kind "{kind}" (kinds: {", ".join(PLOT_KINDS)})')
    spec = PLOT_KINDS[kind]
    bin_s = None
    if bin is not None:
        bin_s = bin_seconds(bin)
        if spec.points is None:
            series = ", ".join(k.name for k in PLOT_KINDS.values() if k.points is not None)
            raise InputError("--bin", f"the {kind} kind is not a time series (--bin bins "
                                      f"{series})")  # fmt: skip
    bin_text = bin if isinstance(bin, str) else "" if bin_s is None else f"{bin_s:g}s"
    reduce = _series_reduce(spec, bin_s, bin_text)
    chosen = check_formats(formats)
    source = Path(directory)
    if is_store(source):
        frame, axes = _store_frame(source, spec, sweep, reduce)
    elif (source / "summary.json").is_file() or names_a_packed_run(source):
        if sweep is not None:
            raise InputError("--sweep", f"{source} is a single run, not a run store")
        frame, axes = _run_frame(source, spec, reduce)
    else:
        raise InputError(str(source), "not a run directory (aqmlab run --out) or a run store "
                                      "(aqmlab sweep --out)")  # fmt: skip
    groups = _groups(frame, axes, by)
    frame = frame.assign(**{a: frame[a].astype(str) for a in groups})
    curves = spec.curves(frame, groups) if len(frame) else {}
    if not curves:
        raise InputError(spec.table, f"{spec.empty} in {source}")
    if groups:
        per_curve = frame.groupby(groups, observed=True)["seed"].nunique()
        seeds = {key: int(per_curve.loc[key if len(key) > 1 else key[0]]) for key in curves}
    else:
        seeds = {key: int(frame["seed"].nunique()) for key in curves}
    same = len(set(seeds.values())) == 1
    legend_title = ""
    if len(groups) > 1:  # short labels (the values), the axes named once in the legend's title
        n = next(iter(seeds.values()))
        legend_title = ", ".join(groups) + (f" ({n} seed{'s' if n > 1 else ''} each)"
                                            if same else "")  # fmt: skip
    labelled = [replace(curve, label=_label(groups, key, None if len(groups) > 1 and same
                                            else seeds[key], source.name))
                for key, curve in curves.items()]  # fmt: skip
    band = "mean over seeds, 95% t band" if any(c.has_band() for c in labelled) else ""
    if bin_s is not None:
        band = ", ".join(filter(None, [f"{bin_text} bins", band]))
    panel = Panel(band, tuple(labelled), spec.xlabel, spec.ylabel, ylim=spec.ylim,
                  xscale=spec.xscale, legend="outside" if len(groups) > 1 else "inside",
                  legend_title=legend_title)  # fmt: skip
    heading = title if title is not None else f"{source.name}: {spec.what}"
    return draw_panels([panel], heading, out, formats=chosen)


__all__ = [
    "FORMATS",
    "LEGENDS",
    "OKABE_ITO",
    "PLOT_KINDS",
    "PNG_DPI",
    "Curve",
    "Panel",
    "PlotKind",
    "bin_points",
    "bin_seconds",
    "bin_width",
    "cdf_band_curves",
    "cdf_curves",
    "check_formats",
    "draw_panels",
    "figure_title",
    "interval_of",
    "mean_curves",
    "plot_runs",
    "reference_style",
    "run_cdf",
    "series_style",
]
