"""aqmlab.plot: bands against hand-computed t intervals, styles, files, and ``aqmlab plot``."""

from __future__ import annotations

import math
import struct
import xml.etree.ElementTree as ElementTree
import zlib
from pathlib import Path
from typing import Any

import aqmlab
import numpy as np
import pandas as pd
import pytest
from aqmlab.plot import (
    FORMATS,
    OKABE_ITO,
    PANEL_INCHES,
    PLOT_KINDS,
    Curve,
    Panel,
    cdf_curves,
    draw_panels,
    mean_curves,
    series_style,
)
from aqmlab.stats import ecdf, t_quantile
from conftest import base, invoke
from matplotlib.lines import Line2D

T_975 = {1: 12.7062, 2: 4.3027}
"""Student's t, 0.975 quantile, by degrees of freedom (printed tables)."""


# --- bands ---------------------------------------------------------------------------------------


def test_cdf_band_by_hand() -> None:
    frame = pd.DataFrame(
        {
            "g": ["b"] * 6 + ["a"] * 2,
            "seed": [1, 1, 1, 2, 2, 2, 1, 2],
            "x": [0.1, 0.2, 0.9, 0.3, 0.4, 0.5, 0.1, 0.1],
        }
    )
    curves = cdf_curves(frame, "x", grid=[0.25, 1.0], by=["g"])
    assert list(curves) == [("a",), ("b",)], "groups in sorted order"
    b = curves["b",]
    # At 0.25 seed 1 has 2 of 3 values ≤ 0.25, seed 2 none: mean 1/3, sd √2/3, t on 1 df.
    assert b.y.tolist() == pytest.approx([1 / 3, 1.0])
    half = T_975[1] * (math.sqrt(2) / 3) / math.sqrt(2)
    assert b.hi[0] == pytest.approx(min(1.0, 1 / 3 + half), abs=1e-4)
    assert b.lo[0] == 0.0, "clipped at 0"
    assert (b.lo[1], b.hi[1]) == (1.0, 1.0), "seeds agree: zero width"
    a = curves["a",]
    assert a.y.tolist() == [1.0, 1.0] and a.lo.tolist() == [1.0, 1.0]

    one = cdf_curves(frame[frame["seed"] == 1], "x", grid=[0.25], by=["g"])["b",]
    assert one.y[0] == pytest.approx(2 / 3)
    assert math.isnan(one.lo[0]) and math.isnan(one.hi[0]), "one seed: no band"
    assert not one.has_band()

    # A seed with no finite value has no CDF: it is left out, not counted as zeros.
    holes = pd.DataFrame({"seed": [1, 1, 2, 3], "x": [0.1, 0.9, math.nan, 0.2]})
    curve = cdf_curves(holes, "x", grid=[0.5])[()]
    assert curve.y[0] == pytest.approx(0.75)
    assert curve.hi[0] == pytest.approx(min(1.0, 0.75 + T_975[1] * math.sqrt(0.125) /
                                            math.sqrt(2)), abs=1e-4)  # fmt: skip
    assert cdf_curves(frame.iloc[:0], "x", grid=[0.5], by=["g"]) == {}


def test_cdf_curves_match_a_plain_loop() -> None:
    rng = np.random.default_rng(3)
    rows = 100_000
    frame = pd.DataFrame(
        {
            "load": pd.Categorical(rng.choice([80, 98, 110], rows), categories=[110, 98, 80]),
            "seed": rng.integers(1, 8, rows),
            "response_s": rng.exponential(1.0, rows),
        }
    )
    frame.loc[rng.random(rows) < 0.01, "response_s"] = np.nan  # requests that never completed
    grid = np.linspace(0.0, 4.0, 41)
    curves = cdf_curves(frame, "response_s", grid=grid, by=["load"], x_scale=1e3, y_scale=100)
    assert list(curves) == [("110",), ("98",), ("80",)], "category order"
    for load, group in frame.groupby("load", observed=True):
        per_seed = np.array([ecdf(g["response_s"], grid) for _, g in group.groupby("seed")])
        mine = curves[str(load),]
        assert np.allclose(mine.x, grid * 1e3)
        assert np.allclose(mine.y, 100 * per_seed.mean(axis=0))
        half = t_quantile(0.975, 6) * per_seed.std(axis=0, ddof=1) / math.sqrt(7)
        assert np.allclose(mine.hi, 100 * np.clip(per_seed.mean(axis=0) + half, 0, 1))


def test_time_series_band_is_the_pointwise_t_interval() -> None:
    # Three seeds' queues at two times: at t = 0 the values 2, 4, 9 (mean 5, sd √13).
    frame = pd.DataFrame({"seed": [1, 2, 3, 1, 2, 3], "t_s": [0, 0, 0, 1, 1, 1],
                          "q": [2.0, 4.0, 9.0, 1.0, 1.0, 1.0]})  # fmt: skip
    curve = mean_curves(frame, "t_s", "q", kind="line")[()]
    half = T_975[2] * math.sqrt(13) / math.sqrt(3)
    assert curve.y.tolist() == [5.0, 1.0]
    assert curve.lo[0] == pytest.approx(5 - half, abs=1e-3)
    assert curve.hi[0] == pytest.approx(5 + half, abs=1e-3)
    assert (curve.lo[1], curve.hi[1]) == (1.0, 1.0)
    clipped = mean_curves(frame, "t_s", "q", kind="line", clip=(0.0, math.inf))[()]
    assert clipped.lo[0] == 0.0 and clipped.hi[0] == pytest.approx(5 + half, abs=1e-3)


# --- styles --------------------------------------------------------------------------------------


def test_nine_series_differ_in_colour_dashes_and_marker() -> None:
    styles = [series_style(i) for i in range(9)]
    for key in ("color", "linestyle", "marker"):
        assert len({str(s[key]) for s in styles}) == 9, key
    assert {s["color"] for s in styles} == set(OKABE_ITO)
    triples = {(s["color"], str(s["linestyle"]), s["marker"]) for s in map(series_style, range(81))}
    assert len(triples) == 81


def dashes(line: Line2D) -> str:
    """Return a drawn line's dash pattern (``get_linestyle`` calls every pattern "--")."""
    return str(line._unscaled_dash_pattern)  # type: ignore[attr-defined]


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures drawn while a test runs (kept as pyplot closes them, on a canvas again)."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    shown: list[Any] = []
    original = plt.close

    def keep(fig: Any) -> None:
        shown.append(fig)
        original(fig)
        FigureCanvasAgg(fig)  # closing left it none: measure extents on this one

    monkeypatch.setattr(plt, "close", keep)
    return shown


def test_drawn_lines_take_the_series_styles(tmp_path: Path, drawn: list[Any]) -> None:
    x = np.linspace(0.0, 1.0, 50)
    curves = tuple(Curve(f"s{i}", x, x + i) for i in range(10))
    draw_panels([Panel("p", curves, "x (s)", "y (packets)")], "t", tmp_path / "f",
                formats=["png"])  # fmt: skip
    (fig,) = drawn
    lines = fig.axes[0].get_lines()
    looks = {(ln.get_color(), dashes(ln), ln.get_marker()) for ln in lines}
    assert len(lines) == 10 and len(looks) == 10
    for part in (Line2D.get_color, dashes, Line2D.get_marker):
        assert len({part(ln) for ln in lines[:9]}) == 9, part


def _inside(inner: Any, outer: Any) -> bool:
    return (inner.x0 >= outer.x0 - 1 and inner.x1 <= outer.x1 + 1
            and inner.y0 >= outer.y0 - 1 and inner.y1 <= outer.y1 + 1)  # fmt: skip


def test_a_legend_too_wide_for_its_axes_is_wrapped_inside(tmp_path: Path,
                                                          drawn: list[Any]) -> None:
    x = np.linspace(0.0, 2000.0, 100)
    labels = ["highest utilization: RED (30,90) w_q 1/512 max_p 0.05", "lowest drop rate",
              "a much longer label than an axes of a journal column could ever hold in one line"]
    curves = tuple(Curve(label, x, 100 * (1 - np.exp(-x / (200 * (i + 1)))))
                   for i, label in enumerate(labels))  # fmt: skip
    draw_panels([Panel("p", curves, "time (ms)", "%", (0, 2000), (0, 100))] * 2, "t",
                tmp_path / "f", formats=["png"])  # fmt: skip
    (fig,) = drawn
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend()
        texts = [t.get_text() for t in legend.get_texts()]
        assert [t.replace("\n", " ") for t in texts] == labels, "every curve, words kept"
        assert "\n" in texts[2] and "\n" not in texts[1]
        assert _inside(legend.get_window_extent(renderer), ax.get_window_extent(renderer))


# --- files ---------------------------------------------------------------------------------------


def _png_dpi(path: Path) -> float:
    """Return the resolution a PNG's pHYs chunk states, in dots per inch."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position = 8
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length : position + 12 + length])
        assert zlib.crc32(kind + body) == crc, kind
        if kind == b"pHYs":
            x, y, unit = struct.unpack(">IIB", body)
            assert unit == 1 and x == y, "pixels per metre, square"
            return x * 0.0254
        position += 12 + length
    raise AssertionError("no pHYs chunk")


def _panels() -> list[Panel]:
    x = np.linspace(0.001, 2.0, 60)
    lines = tuple(Curve(f"series {i}", x, x * (i + 1), x * (i + 1) - 0.1, x * (i + 1) + 0.1)
                  for i in range(3))  # fmt: skip
    points = (Curve("measured", np.array([1.0, 2.0]), np.array([1.0, 2.0]),
                    np.array([0.5, np.nan]), np.array([1.5, np.nan]), kind="points"),
              Curve("scatter", np.array([1.5]), np.array([1.0]), kind="markers"),
              Curve("y = x", x, x, reference=True))  # fmt: skip
    return [Panel("lines", lines, "time (s)", "queue (packets)", xscale="log"),
            Panel("points", points, "load (%)", "delay (ms)", ylim=(0, 5)),
            Panel("empty", (), "x", "y"), Panel("fourth", lines[:1], "x", "y")]  # fmt: skip


def test_every_format_is_written_and_valid(tmp_path: Path) -> None:
    title = "Fig. 7 (Christiansen et al. 2000): FIFO queue sizes"
    written = draw_panels(_panels(), title, tmp_path / "fig.png", sharey=False)
    assert [p.name for p in written] == [f"fig.{f}" for f in FORMATS], "suffix replaced"
    pdf, svg, png = written
    assert pdf.read_bytes().startswith(b"%PDF-") and b"%%EOF" in pdf.read_bytes()[-32:]
    root = ElementTree.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert title in "".join(root.itertext()), "text kept as text"
    assert _png_dpi(png) == pytest.approx(300, abs=0.01)


def test_the_same_figure_gives_the_same_bytes(tmp_path: Path) -> None:
    first = draw_panels(_panels()[:2], "t", tmp_path / "a", formats=["pdf", "svg"])
    second = draw_panels(_panels()[:2], "t", tmp_path / "b", formats=["pdf", "svg"])
    for one, two in zip(first, second, strict=True):
        assert one.read_bytes() == two.read_bytes(), one.suffix


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="curve kind"):
        Curve("a", np.zeros(1), np.zeros(1), kind="bars")
    with pytest.raises(aqmlab.InputError, match='unknown format "jpg"'):
        draw_panels(_panels(), "t", "x", formats=["jpg"])
    with pytest.raises(ValueError, match="at least one panel"):
        draw_panels([], "t", "x")


# --- aqmlab plot ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tiny runs (one of them with web users and traced FTP flows) and sweeps (one axis with two
    seeds; two axes)."""
    root = tmp_path_factory.mktemp("plot")
    aqmlab.run(base(), seed=1).save(root / "run")
    mixed = base() | {"duration": "20s", "warmup": "2s"}
    mixed["traffic"] = [{"name": "ftp", "kind": "ftp", "flows": 2, "trace": True},
                        {"name": "web", "kind": "web-mah", "users": 40, "think_max": "5s"}]
    aqmlab.run(mixed, seed=1).save(root / "mixed")
    aqmlab.sweep(base(), vary={"queue.limit": ["10p", "40p"]}, seeds=[1, 2], out=root / "sweep",
                 jobs=1, progress=False)  # fmt: skip
    aqmlab.sweep(base(), vary={"queue.limit": ["10p", "40p"], "traffic[web].flows": [2, 4]},
                 seeds=[1], out=root / "two_axes", jobs=1, progress=False)  # fmt: skip
    return root


def test_plot_a_run(runs: Path, tmp_path: Path) -> None:
    code, out, err = invoke(tmp_path, "plot", str(runs / "run"), "--kind", "queue")
    assert code == 0, err
    assert out.split() == [f"run-queue.{f}" for f in FORMATS]
    for fmt in FORMATS:
        assert (tmp_path / f"run-queue.{fmt}").stat().st_size > 1000
    code, out, err = invoke(tmp_path, "plot", str(runs / "run"), "-k", "throughput",
                            "--out", "t.svg", "--title", "my run")  # fmt: skip
    assert code == 0 and out.split() == ["t.svg"], err
    text = "".join(ElementTree.parse(tmp_path / "t.svg").getroot().itertext())
    assert "my run" in text and "throughput (Mbit/s)" in text
    assert "run (1 seed)" in text, "one curve, named by the directory"


def test_plot_response_times_and_windows(runs: Path, tmp_path: Path) -> None:
    for kind, label in (("cdf", "response time (ms)"), ("cwnd", "cwnd (KB)")):
        code, out, err = invoke(tmp_path, "plot", str(runs / "mixed"), "-k", kind, "-f", "svg")
        assert code == 0 and out.split() == [f"mixed-{kind}.svg"], err
        text = "".join(ElementTree.parse(tmp_path / f"mixed-{kind}.svg").getroot().itertext())
        assert label in text and "mixed (1 seed)" in text


def test_plot_a_two_seed_sweep_by_axis(runs: Path, tmp_path: Path) -> None:
    code, out, err = invoke(tmp_path, "plot", str(runs / "sweep"), "--kind", "loss", "--by",
                            "queue.limit", "--format", "svg,png", "-o", "figs/loss")  # fmt: skip
    assert code == 0, err
    assert out.split() == ["figs/loss.svg", "figs/loss.png"]
    text = "".join(ElementTree.parse(tmp_path / "figs" / "loss.svg").getroot().itertext())
    for label in ("queue.limit = 10p (2 seeds)", "queue.limit = 40p (2 seeds)",
                  "mean over seeds, 95% t band", "dropped (% of arrivals)"):  # fmt: skip
        assert label in text, label
    assert _png_dpi(tmp_path / "figs" / "loss.png") == pytest.approx(300, abs=0.01)
    # Without --by: every axis that varies (here the same one).
    code, _, err = invoke(tmp_path, "plot", str(runs / "sweep"), "-k", "queue", "-o", "q.pdf")
    assert code == 0 and (tmp_path / "q.pdf").read_bytes().startswith(b"%PDF-"), err


@pytest.mark.parametrize(
    ("where", "args", "message"),
    [
        ("run", ["--kind", "nope"], 'error: --kind: unknown kind "nope" (kinds: cdf, queue'),
        ("run", ["--kind", "cdf"], "error: requests: no completed web request"),
        ("run", ["--kind", "cwnd"], "error: tcp_trace: no traced ACK: set trace = true"),
        ("run", ["--kind", "queue", "--by", "queue.limit"],
         'error: --by: no sweep axis "queue.limit" (axes: none: a single run)'),
        ("sweep", ["--kind", "queue", "--by", "seed"],
         'error: --by: no sweep axis "seed" (axes: queue.limit)'),
        ("two_axes", ["--kind", "queue", "--by", "queue.limit"],
         "error: --by: the axes traffic[web].flows vary too"),
        ("run", ["--kind", "queue", "--format", "gif"], 'error: --format: unknown format "gif"'),
        ("run", ["--kind", "queue", "--out", "f.jpg"], "error: --out: expected a name ending in"),
        ("nowhere", ["--kind", "queue"], "not a run directory (aqmlab run --out) or a run store"),
        ("run", ["--kind", "queue", "--sweep", "x"], "error: --sweep: "),
        ("sweep", ["--kind", "queue", "--sweep", "nope"], "error: "),
        ("run", [], "error: Missing option '--kind'"),
        ("run", ["--kind", "delay", "--bin", "10ms"],
         "error: --bin: 10ms is shorter than the queue table's interval (0.1 s, "
         "measure.queue_interval)"),
        ("run", ["--kind", "throughput", "--bin", "500ms"],
         "error: --bin: 500ms is shorter than the link table's interval (1 s, "
         "measure.link_interval)"),
        ("run", ["--kind", "queue", "--bin", "1"], 'error: --bin: expected a duration like "1s"'),
        ("run", ["--kind", "queue", "--bin", "0s"], "error: --bin: expected a duration above 0"),
        ("mixed", ["--kind", "cdf", "--bin", "1s"], "error: --bin: the cdf kind is not a time"),
    ],
)
def test_plot_bad_input(
    runs: Path, tmp_path: Path, where: str, args: list[str], message: str
) -> None:
    code, _, err = invoke(tmp_path, "plot", str(runs / where), *args)
    assert code == 2
    assert message in err, err
    assert "Traceback" not in err and not list(tmp_path.glob("*.*")), "nothing written"


def _forward_queue(run: Path) -> pd.DataFrame:
    queue = aqmlab.load(run).tables["queue"]
    return queue[queue["direction"].astype(str) == "forward"]


def test_delay_is_the_queue_tables_sojourn_over_time(
    runs: Path, tmp_path: Path, drawn: list[Any]
) -> None:
    aqmlab.plot.plot_runs(runs / "mixed", "delay", tmp_path / "d", formats="png")
    (line,) = drawn[0].axes[0].get_lines()
    rows = _forward_queue(runs / "mixed")
    np.testing.assert_array_equal(line.get_xdata(), rows["t_s"])
    np.testing.assert_allclose(line.get_ydata(), rows["mean_sojourn_s"] * 1e3, rtol=1e-12)
    assert drawn[0].axes[0].get_ylabel() == "queueing delay (ms)"
    assert np.nanmax(line.get_ydata()) > 1.0, "a queue that builds up"


@pytest.mark.parametrize(
    ("kind", "bin_", "width", "mean"),
    [
        ("delay", "1s", 1.0,
         lambda g: (g["mean_sojourn_s"] * g["departures_pkts"]).sum()
         / g["departures_pkts"].sum() * 1e3),
        ("loss", "2s", 2.0, lambda g: g["drops_pkts"].sum() / g["arrivals_pkts"].sum() * 100),
        ("queue", "500ms", 0.5, lambda g: g["mean_pkts"].mean()),
    ],
)
def test_bins_average_each_kind_by_hand(
    runs: Path, tmp_path: Path, drawn: list[Any], kind: str, bin_: str, width: float,
    mean: Any,
) -> None:
    aqmlab.plot.plot_runs(runs / "mixed", kind, tmp_path / "b", formats="png", bin=bin_)
    (line,) = drawn[0].axes[0].get_lines()
    rows = _forward_queue(runs / "mixed")
    groups = rows.groupby(np.floor(rows["t_s"] / width + 1e-9))
    expected = groups.apply(mean)
    np.testing.assert_allclose(line.get_xdata(), (expected.index + 0.5) * width)
    np.testing.assert_allclose(line.get_ydata(), expected.to_numpy(float), rtol=1e-9)
    assert len(line.get_xdata()) < len(rows) / 4, "fewer points than intervals"
    assert drawn[0].axes[0].get_title() == f"{bin_} bins"


def test_cwnd_bins_follow_bin(runs: Path, tmp_path: Path, drawn: list[Any]) -> None:
    for bin_ in (None, "2s"):
        aqmlab.plot.plot_runs(runs / "mixed", "cwnd", tmp_path / "c", formats="png", bin=bin_)
    default, wide = (fig.axes[0].get_lines()[0].get_xdata() for fig in drawn)
    assert len(default) > 50 and np.allclose(np.diff(wide), 2.0)


def test_two_axes_legend_fits_beside_the_axes(
    runs: Path, tmp_path: Path, drawn: list[Any]
) -> None:
    aqmlab.plot.plot_runs(runs / "two_axes", "queue", tmp_path / "two", formats="png")
    (fig,) = drawn
    (ax,) = fig.axes
    legend = ax.get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert sorted(texts) == ["10p, 2", "10p, 4", "40p, 2", "40p, 4"], "values alone"
    assert legend.get_title().get_text() == "queue.limit, traffic[web].flows (1 seed each)"
    renderer = fig.canvas.get_renderer()
    box, frame = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
    assert _inside(box, fig.bbox), "within the figure"
    assert box.x0 >= frame.x1, "beside the axes, hiding no curve"
    assert frame.width / fig.dpi > 0.6 * PANEL_INCHES[0], "the axes keep their width"
    looks = {(ln.get_color(), dashes(ln), ln.get_marker()) for ln in ax.get_lines()}
    assert len(looks) == 4


def test_plot_refuses_a_damaged_run(runs: Path, tmp_path: Path) -> None:
    import shutil

    damaged = tmp_path / "damaged"
    shutil.copytree(runs / "run", damaged)
    (damaged / "queue.parquet").write_bytes(b"not parquet")
    code, _, err = invoke(tmp_path, "plot", str(damaged), "--kind", "queue")
    assert code == 2 and err.startswith("error: ") and "Traceback" not in err, err


def test_the_command_lists_every_kind() -> None:
    from aqmlab.cli import PLOT_KINDS_HELP

    assert PLOT_KINDS_HELP == ", ".join(PLOT_KINDS)
