"""Scenarios: loading TOML files, ``--set`` overrides, validation and hashing.

A scenario is a TOML file or the same structure as a dict (see ``docs/scenario.md``). The Rust
engine owns the schema: :func:`resolve` asks it to validate a scenario and fill in every default.

>>> scenario = {"duration": "10s", "topology": {"bottleneck": {"rate": "10Mbps"}}}
>>> apply_overrides(scenario, ["topology.bottleneck.delay=5ms", "seed=7"])["seed"]
7
"""

from __future__ import annotations

import datetime
import json
import math
import numbers
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from aqmlab import _native, args
from aqmlab.errors import InputError, ScenarioError, shown
from aqmlab.tomlscan import INTEGER_RANGE, MAX_DEPTH, check_toml, out_of_range, too_deep

Scenario = dict[str, Any]
"""A scenario as nested dicts and lists of TOML/JSON values."""

ScenarioLike = str | Path | Mapping[str, Any]
"""A path to a scenario file (TOML, a resolved scenario as JSON, or a run directory: see
:func:`read_scenario`), or a scenario dict."""



class ByName(NamedTuple):
    """A key-path step that picks the entry of an array whose ``name`` is ``name``.

    ``traffic[web]`` is the traffic group named ``web``. A group written without a ``name`` has
    the engine's default name, its kind followed by its index (``poisson0``).

    >>> ByName("web")
    ByName(name='web')
    """

    name: str


PathPart = str | int | ByName
"""One step of a key path: a table key, a list index, or a list entry by its ``name``."""


def format_path(parts: Iterable[PathPart]) -> str:
    """Spell a key path the way error messages do.

    >>> format_path(["traffic", 0, "rate"])
    'traffic[0].rate'
    >>> format_path(["traffic", ByName("web"), "users"])
    'traffic[web].users'
    >>> format_path([])
    ''
    """
    text = ""
    for part in parts:
        if isinstance(part, ByName):
            text += f"[{part.name}]"
        elif isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text


MAX_FILE_BYTES = 16 * 2**20
"""The largest scenario or sweep file read (16 MiB; a scenario is a few kilobytes)."""


def _read_text(path: str | Path, what: str, field: str | None = None) -> str:
    """Read a scenario-sized UTF-8 file (``what`` it should be, for messages).

    Missing, unreadable, oversized and non-UTF-8 files raise :class:`ScenarioError` whose path is
    ``field`` (the scenario key that names the file), the message then naming the file; without
    ``field``, the path is the file name.

    >>> _read_text("no/such.cdf", "a CDF file", "traffic[0].size.file")
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: traffic[0].size.file: no such file: no/such.cdf
    """
    name = shown(args.path("scenario", path))

    def error(message: str) -> ScenarioError:
        return ScenarioError(field, f"{message}: {name}") if field else ScenarioError(name, message)

    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise error("no such file") from None
    except IsADirectoryError:
        raise error(f"is a directory, expected {what}") from None
    except OSError as err:
        raise error(f"cannot read: {err.strerror or err}") from None
    if len(raw) > MAX_FILE_BYTES:
        limit = f"larger than {MAX_FILE_BYTES // 2**20} MiB"
        raise error(f"{limit}, expected {what}" if field else f"{limit}, not a scenario")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(f"not {what}: not UTF-8 text ({err.reason})") from None


def read_toml(path: str | Path) -> Scenario:
    """Read a TOML file as written, without validating it against the schema.

    Missing, unreadable or oversized files and TOML syntax errors raise :class:`ScenarioError`
    whose path is the file name; nesting past :data:`~aqmlab.tomlscan.MAX_DEPTH` levels and
    integers out of range raise it naming the key path.

    >>> read_toml("no/such/file.toml")
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: no/such/file.toml: no such file
    """
    text = _read_text(path, "a TOML file")
    check_toml(text)
    try:
        scenario = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ScenarioError(shown(str(path)), f"invalid TOML: {err}") from None
    return embed_cdf_files(scenario, Path(path).parent)


CDF_ANYWHERE = "AQMLAB_CDF_ANYWHERE"
"""Set to 1 to let an empirical distribution's ``file`` name a file outside the scenario's
directory (a scenario from elsewhere cannot then make aqmlab read, say, ``/etc/passwd``)."""


def _inside(path: Path, base: Path) -> bool:
    """Whether ``path``, links resolved, lies in the directory ``base`` or below it."""
    try:
        return path.resolve().is_relative_to(base.resolve())
    except (OSError, RuntimeError, ValueError):  # a link loop, a name the system refuses
        return False


def embed_cdf_files(scenario: dict[str, Any], base: Path) -> dict[str, Any]:
    """Read each empirical distribution's ``file`` once, into its ``table`` (the file's text).

    ``file`` is relative to ``base`` (the scenario file's directory, or the working directory for
    a dict) and must lie there or below (links resolved) unless :data:`CDF_ANYWHERE` is set to
    1; a distribution that has a ``table`` already is left alone, so a resolved scenario
    (whose tables are embedded) re-runs without its files. The engine checks the table. Changes
    ``scenario`` in place and returns it.

    >>> s = {"traffic": [{"size": {"dist": "empirical", "file": "none.cdf"}}]}
    >>> embed_cdf_files(s, Path("/no/such/dir"))
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: traffic[0].size.file: no such file: /no/such/dir/none.cdf
    >>> embed_cdf_files({"traffic": [{"size": {"dist": "empirical", "file": "/etc/passwd"}}]},
    ...                 Path("/tmp"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: traffic[0].size.file: expected a CDF file in the scenario's \
directory or below, got "/etc/passwd" (to read files anywhere, set AQMLAB_CDF_ANYWHERE=1)
    """
    anywhere = os.environ.get(CDF_ANYWHERE) == "1"
    stack: list[tuple[Any, list[PathPart]]] = [(scenario, [])]
    while stack:
        node, parts = stack.pop()
        items: Iterable[tuple[Any, Any]]
        if isinstance(node, dict):
            file = node.get("file")
            if node.get("dist") == "empirical" and isinstance(file, str) and "table" not in node:
                key = format_path([*parts, "file"])
                path = base / file
                if not anywhere and not _inside(path, base):
                    where = "in the scenario's directory or below"
                    anywhere_hint = f"to read files anywhere, set {CDF_ANYWHERE}=1"
                    raise ScenarioError(
                        key, f'expected a CDF file {where}, got "{shown(file)}" ({anywhere_hint})'
                    )
                node["table"] = _read_text(path, "a CDF file", key)
                continue
            items = node.items()
        elif isinstance(node, list):
            items = enumerate(node)
        else:
            continue
        if len(parts) < MAX_DEPTH:  # only tables and arrays can hold a distribution
            stack.extend((child, [*parts, key]) for key, child in items
                         if isinstance(child, dict | list))  # fmt: skip
    return scenario


SUMMARY_FILE = "summary.json"
"""The file of a run directory whose ``meta.scenario`` is the scenario as run."""


def read_json_scenario(path: str | Path) -> Scenario:
    """Read a resolved scenario from JSON: a run's ``summary.json`` or the scenario object itself.

    A summary gives its ``meta.scenario``: the scenario as run, every default resolved and its
    seed in force, so running it again reproduces the run bit for bit. Malformed JSON, or JSON
    that is neither, raises :class:`ScenarioError` naming the file.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "summary.json"
    ...     _ = path.write_text('{"meta": {"seed": 4, "scenario": {"duration": "1s", "seed": 4}}}')
    ...     read_json_scenario(path)
    {'duration': '1s', 'seed': 4}
    """
    name = shown(str(path))
    text = _read_text(path, "a JSON scenario")
    try:
        data = json.loads(text)
    except ValueError as err:
        raise ScenarioError(name, f"malformed JSON: {err}") from None
    except RecursionError:
        raise ScenarioError(name, f"nested deeper than {MAX_DEPTH} levels") from None
    if isinstance(data, dict) and isinstance(data.get("meta"), dict):
        data = data["meta"].get("scenario")
        if not isinstance(data, dict):
            raise ScenarioError(name, "a run summary without meta.scenario (a table)")
    if not isinstance(data, dict):
        raise ScenarioError(
            name, f"expected a scenario or a run summary (a JSON object), got {_kind(data)}"
        )
    return plain(data)


def read_scenario(path: str | Path) -> Scenario:
    """Read a scenario file, without validating it against the schema.

    The file is TOML, a resolved scenario as JSON (:func:`read_json_scenario`), or a run
    directory (its ``summary.json``), a packed run's included (its name in the store's
    ``runs/``: :mod:`aqmlab.store`).

    >>> read_scenario("no/such/run_dir")
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: no/such/run_dir: no such file
    """
    where = Path(args.path("scenario", path))
    try:
        is_dir = where.is_dir()
        missing = not is_dir and not where.exists()
    except OSError as err:  # a folder on the way that may not be searched (EACCES)
        raise ScenarioError(shown(str(path)), f"cannot read: {err.strerror or err}") from None
    if missing:  # a run of a store kept in a pack, named as its directory would be?
        from aqmlab.store import names_a_packed_run, packed_run  # not needed by any file

        if names_a_packed_run(where):
            try:  # any build's copy: each holds the same scenario
                _, _, run = packed_run(where, build_id=None)
            except InputError as err:
                raise ScenarioError(shown(str(path)), err.message) from None
            return plain(run["meta"]["scenario"])
    if is_dir:
        summary = where / SUMMARY_FILE
        if not summary.is_file():
            raise ScenarioError(
                shown(str(path)),
                f"is a directory without {SUMMARY_FILE}: expected a run directory, "
                "a TOML scenario or a resolved scenario (JSON)",
            )
        return read_json_scenario(summary)
    if where.suffix.lower() == ".json":
        return read_json_scenario(where)
    return read_toml(path)


def as_scenario(scenario: ScenarioLike) -> Scenario:
    """Return a plain copy of a scenario dict (see :func:`plain`), or read a scenario file.

    A file is TOML, a resolved scenario as JSON, or a run directory (:func:`read_scenario`).

    >>> as_scenario({"duration": "1s"})
    {'duration': '1s'}
    >>> as_scenario(["duration"])
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: scenario: expected a table (a dict) or a TOML file's path, got list
    """
    if isinstance(scenario, str | Path):
        return plain(read_scenario(scenario))
    if not isinstance(scenario, Mapping):
        raise ScenarioError(
            "scenario",
            f"expected a table (a dict) or a TOML file's path, got {type(scenario).__name__}",
        )
    return embed_cdf_files(plain(scenario), Path.cwd())


def _plain_value(value: Any, parts: list[PathPart]) -> Any:
    """One leaf of :func:`plain`: a JSON scalar, or a :class:`ScenarioError` naming ``parts``."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, numbers.Integral):
        number = int(value)
        low, high = INTEGER_RANGE
        if not low <= number <= high:
            raise out_of_range(format_path(parts), number)
        return number
    if isinstance(value, numbers.Real):
        real = float(value)
        if not math.isfinite(real):
            raise ScenarioError(shown(format_path(parts)), f"expected a finite number, got {real}")
        return real
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ScenarioError(
                shown(format_path(parts)), f"expected text, got {shown(repr(value))}"
            ) from None
        return value
    if isinstance(value, datetime.date | datetime.time):
        raise ScenarioError(
            shown(format_path(parts)), f"expected a quoted string, got the TOML date/time {value}"
        )
    raise ScenarioError(
        shown(format_path(parts)),
        f"expected text, a number, true or false, a table or an array, got {type(value).__name__}",
    )


def plain(scenario: Mapping[str, Any]) -> Scenario:
    """Copy a scenario as plain JSON values: dicts with text keys, lists, text, numbers, booleans.

    Tuples become lists and NumPy numbers Python ones. Refused with a :class:`ScenarioError`
    naming the key path: nesting deeper than :data:`~aqmlab.tomlscan.MAX_DEPTH` (or a table
    holding itself), integers outside :data:`~aqmlab.tomlscan.INTEGER_RANGE`, ``inf`` and ``nan``,
    TOML dates, keys that are not text, and other types. Linear in the size of the scenario.

    >>> plain({"traffic": ({"rate": "1Mbps", "users": 3},)})
    {'traffic': [{'rate': '1Mbps', 'users': 3}]}
    >>> plain({"queue": {"limit": float("nan")}})
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: queue.limit: expected a finite number, got nan
    >>> loop: dict[str, Any] = {}
    >>> loop["a"] = loop
    >>> plain(loop)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: a.a.a...: nested deeper than 32 levels
    """
    copy: Scenario = {}
    low, high = INTEGER_RANGE
    stack: list[tuple[Any, Any, list[PathPart]]] = [(scenario, copy, [])]
    while stack:
        source, target, parts = stack.pop()
        if isinstance(source, Mapping):
            items: Iterable[tuple[Any, Any]] = source.items()
        else:
            items = enumerate(source)
        for key, value in items:
            if isinstance(source, Mapping) and not isinstance(key, str):
                raise ScenarioError(
                    shown(format_path(parts)),
                    f"expected text keys, got the key {shown(repr(key))} ({type(key).__name__})",
                )
            child: Any
            kind = type(value)
            # The common scalars are taken as they are without building their key path: a
            # table of a million numbers is a million of them.
            if (kind is float and math.isfinite(value)) or kind is bool or value is None:
                child = value
            elif kind is int and low <= value <= high:
                child = value
            elif kind is str and value.isascii():
                child = value
            elif isinstance(value, Mapping | list | tuple):
                here = [*parts, key]
                if len(here) > MAX_DEPTH:
                    raise too_deep(format_path(here))
                child = {} if isinstance(value, Mapping) else []
                stack.append((value, child, here))
            else:
                child = _plain_value(value, [*parts, key])
            if isinstance(target, dict):
                target[key] = child
            else:
                target.append(child)
    return copy


def to_json(scenario: ScenarioLike) -> str:
    """Serialise a scenario (a dict, or a TOML file's path) for the engine (:func:`as_scenario`).

    >>> to_json({"duration": "1s", "seed": 3})
    '{"duration": "1s", "seed": 3}'
    """
    return json.dumps(as_scenario(scenario))


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key)


def _toml_value(value: Any) -> str:
    """Write one value inline: strings as JSON writes them (valid TOML basic strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            raise ScenarioError("to_toml", f"TOML has no value for {value}")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Mapping):
        items = ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{" + items + "}"
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


def to_toml(data: Mapping[str, Any], prefix: str = "") -> str:
    """Write a scenario (or a sweep or tune file's structure) as TOML that reads back the same.

    Values first, then tables as ``[section]`` and arrays of tables as ``[[section]]``.

    >>> text = to_toml({"duration": "1s", "topology": {"bottleneck": {"rate": "1Mbps"}},
    ...                 "traffic": [{"kind": "cbr", "rate": "1Mbps"}], "x.y": [1, 2.5]})
    >>> print(text)
    duration = "1s"
    "x.y" = [1, 2.5]
    <BLANKLINE>
    [topology.bottleneck]
    rate = "1Mbps"
    <BLANKLINE>
    [[traffic]]
    kind = "cbr"
    rate = "1Mbps"
    <BLANKLINE>
    >>> tomllib.loads(text)["traffic"][0]["rate"]
    '1Mbps'
    """

    def table_array(value: Any) -> bool:
        return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping)
                                                               for v in value)  # fmt: skip

    lines = [
        f"{_toml_key(k)} = {_toml_value(v)}"
        for k, v in data.items()
        if not isinstance(v, Mapping) and not table_array(v)
    ]
    text = "\n".join(lines) + ("\n" if lines else "")
    for key, value in data.items():
        name = f"{prefix}{_toml_key(key)}"
        if isinstance(value, Mapping):
            inner = to_toml(value, f"{name}.")
            if not value or any(not isinstance(v, Mapping) and not table_array(v)
                                for v in value.values()):  # fmt: skip
                text += f"\n[{name}]\n"
            text += inner
        elif table_array(value):
            for entry in value:
                text += f"\n[[{name}]]\n" + to_toml(entry, f"{name}.")
    return text


def resolve(scenario: ScenarioLike, *, expand: bool = False) -> Scenario:
    """Validate a scenario and return it with every default filled in.

    With ``expand``, a named topology (``[topology]``) is written out as the nodes, links and
    traffic hosts it expands to: a scenario that runs to the same tables (``docs/scenario.md``,
    "Nodes, links and routes"). Raises :class:`ScenarioError` naming the offending key path.

    >>> resolved = resolve({"duration": "10s", "topology": {"bottleneck": {"rate": "10Mbps"}}})
    >>> resolved["queue"], resolved["traffic"]
    ({'kind': 'droptail', 'limit': '50p'}, [])
    >>> [link["name"] for link in resolve(resolved, expand=True)["link"]]
    ['s0.up', 'c0.up', 'forward']
    >>> resolve({"duration": "10s"})
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: topology: required key is missing
    """
    text = to_json(scenario)
    try:
        out = _native.expand(text) if expand else _native.resolve(text)
    except ValueError as err:
        raise ScenarioError.from_native(err) from None
    resolved: Scenario = json.loads(out)
    return resolved


TCP_KINDS = ("ftp", "telnet", "web-mah", "web-pool", "web-session")
"""The traffic kinds that run over TCP, each with a ``tcp`` table."""


def group_tcp(resolved: Mapping[str, Any], group: Mapping[str, Any]) -> dict[str, Any]:
    """Return a resolved TCP traffic group's whole ``tcp`` table (a kind of :data:`TCP_KINDS`).

    A resolved scenario writes a group's ``tcp`` only as far as it differs from the scenario's
    ``[tcp]``, and leaves it out when it does not differ; a group of another profile keeps its
    whole table, ``profile`` included (``docs/scenario.md``, "The resolved scenario").

    >>> resolved = resolve({"duration": "1s", "topology": {"bottleneck": {"rate": "1Mbps"}},
    ...                     "traffic": [{"kind": "ftp", "tcp": {"mss": "536B"}}]})
    >>> resolved["traffic"][0]["tcp"]
    {'mss': '536B'}
    >>> whole = group_tcp(resolved, resolved["traffic"][0])
    >>> whole["mss"], whole["rwnd"] == resolved["tcp"]["rwnd"]
    ('536B', True)
    """
    if group["kind"] not in TCP_KINDS:
        raise ValueError(f"a {group['kind']} group has no TCP")
    own: dict[str, Any] = dict(group.get("tcp", {}))
    return own if "profile" in own else {**resolved["tcp"], **own}


def next_hops(scenario: ScenarioLike) -> dict[str, dict[str, str]]:
    """Return the engine's forwarding tables: each node's next node towards each host.

    The routes a run follows (fewest hops, then least delay, then the link listed first, unless
    a ``[[route]]`` says otherwise; docs/scenario.md, "Nodes, links and routes"), for a referee
    to build the same network. A host's entry for itself names itself.

    >>> lot = {"duration": "1s", "traffic": [{"kind": "ftp"}],
    ...        "topology": {"kind": "parking-lot", "hops": 2, "bottleneck": {"rate": "10Mbps"}}}
    >>> next_hops(lot)["r0"]
    {'c0': 'r1', 'c1': 'r1', 'c2': 'r1', 's0': 's0', 's1': 's1', 's2': 'r1'}
    """
    try:
        tables: dict[str, dict[str, str]] = json.loads(_native.next_hops(to_json(scenario)))
    except ValueError as err:
        raise ScenarioError.from_native(err) from None
    return tables


class ScenarioWarning(NamedTuple):
    """A quiet misconfiguration of a valid scenario (``docs/scenario.md``, "Warnings").

    ``code`` is stable (``ecn-one-sided``, ``pin-ignored``, ...), ``path`` the key path it is
    about. A run's warnings are ``summary["warnings"]`` (:attr:`aqmlab.Result.warnings`); they
    never fail a run, and :func:`aqmlab.run` does not raise them through :mod:`warnings` (the
    command line prints them).

    >>> print(ScenarioWarning("pin-ignored", "traffic[0].server", "server = 1 has no effect"))
    traffic[0].server: server = 1 has no effect [pin-ignored]
    """

    code: str
    path: str
    message: str

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any]) -> ScenarioWarning:
        """Read one entry of ``summary["warnings"]``."""
        return cls(str(entry["code"]), str(entry["path"]), str(entry["message"]))

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"{where}{self.message} [{self.code}]"


def scenario_warnings(scenario: ScenarioLike) -> list[ScenarioWarning]:
    """Validate a scenario and return its warnings (what a run records in ``summary.warnings``).

    Raises :class:`ScenarioError` for an invalid scenario, as :func:`resolve` does.

    >>> base = {"duration": "10s", "topology": {"bottleneck": {"rate": "10Mbps"}}}
    >>> scenario_warnings(base)
    []
    >>> [w.code for w in scenario_warnings({**base, "queue": {"kind": "bernoulli", "p": 0.1,
    ...                                                        "ecn": True}})]
    ['ecn-one-sided']
    """
    text = to_json(scenario)
    try:
        entries = json.loads(_native.warnings(text))
    except ValueError as err:
        raise ScenarioError.from_native(err) from None
    return [ScenarioWarning.from_dict(e) for e in entries]


def load_scenario(path: str | Path) -> Scenario:
    """Read a TOML scenario, check it against the schema, and return it as written.

    >>> load_scenario("no/such/file.toml")
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: no/such/file.toml: no such file
    """
    scenario = read_toml(path)
    resolve(scenario)
    return scenario


def captures(scenario: Mapping[str, Any]) -> bool:
    """Tell whether a scenario asks for packet traces (``[capture]`` with links).

    >>> captures({"capture": {"links": ["forward"]}}), captures({"duration": "1s"})
    (True, False)
    """
    capture = scenario.get("capture")
    return isinstance(capture, dict) and bool(capture.get("links"))


def with_capture(scenario: Mapping[str, Any], links: Iterable[str]) -> Scenario:
    """Copy ``scenario``, capturing ``links`` as well (``aqmlab run --capture LINK``).

    They join the links its ``[capture]`` table names (each once); the engine checks the names.

    >>> with_capture({"capture": {"links": ["forward"], "snaplen": 96}}, ["reverse", "forward"])
    {'capture': {'links': ['forward', 'reverse'], 'snaplen': 96}}
    >>> with_capture({"capture": {"links": "forward"}}, ["reverse"])
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: capture.links: expected a list of link names, got the value "fo...
    """
    copy = dict(scenario)
    links = list(links)
    if not links:
        return copy
    table = copy.get("capture", {})
    if not isinstance(table, Mapping):
        raise ScenarioError("capture", f"expected a table, got {_kind(table)}")
    present = table.get("links", [])
    if not isinstance(present, list):
        raise ScenarioError("capture.links", f"expected a list of link names, got {_kind(present)}")
    added = [link for i, link in enumerate(links) if link not in present and link not in links[:i]]
    copy["capture"] = {**table, "links": [*present, *added]}
    return copy


def scenario_hash(resolved: Mapping[str, Any]) -> str:
    """Identify a configuration: SHA-256 of the canonical JSON of a resolved scenario.

    The ``seed`` key is left out, so every seed of one configuration shares its hash (the hash
    and the seed together identify a run).

    >>> a = scenario_hash({"duration": "1s", "seed": 1})
    >>> a == scenario_hash({"seed": 2, "duration": "1s"})
    True
    >>> a == scenario_hash({"duration": "2s", "seed": 1})
    False
    >>> len(a)
    64
    >>> scenario_hash(None)
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: scenario: expected a resolved scenario (a dict), got NoneType
    """
    import hashlib  # here only: it loads OpenSSL, which validating a scenario does not need

    if not isinstance(resolved, Mapping):
        raise ScenarioError(
            "scenario", f"expected a resolved scenario (a dict), got {type(resolved).__name__}"
        )
    config = {key: value for key, value in resolved.items() if key != "seed"}
    try:
        canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:  # not JSON: resolve() it first
        raise ScenarioError("scenario", f"expected a resolved scenario: {err}") from None
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


_KEY = r"[A-Za-z0-9_-]+"
_SEGMENT = re.compile(rf"({_KEY})((?:\[[^\[\].]+\])*)")
_INDEX = re.compile(r"\[([^\[\].]+)\]")


def parse_key(key: str, *, what: str = "--set") -> list[PathPart]:
    """Split a key path such as ``traffic[web].users`` into its steps.

    ``[N]`` is an index into an array; ``[name]`` picks the array's entry with that ``name``.
    ``what`` names the option in error messages.

    >>> parse_key("traffic[0].rate")
    ['traffic', 0, 'rate']
    >>> parse_key("traffic[web].users")
    ['traffic', ByName(name='web'), 'users']
    >>> parse_key("queue..limit", what="--vary")
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: --vary: bad key path "queue..limit": expected names joined by \
"." with optional [index] or [name], like "traffic[0].rate" or "traffic[web].users"
    """
    parts: list[PathPart] = []
    for segment in key.strip().split("."):
        match = _SEGMENT.fullmatch(segment)
        if match is None:
            raise ScenarioError(
                what,
                f'bad key path "{shown(key)}": expected names joined by "." with optional [index] '
                'or [name], like "traffic[0].rate" or "traffic[web].users"',
            )
        parts.append(match.group(1))
        for selector in _INDEX.findall(match.group(2)):
            parts.append(int(selector) if selector.isdigit() else ByName(selector.strip()))
        if len(parts) > MAX_DEPTH:
            raise ScenarioError(
                what, f'bad key path "{shown(key)}": deeper than {MAX_DEPTH} levels'
            )
    return parts


def parse_override(text: str) -> tuple[list[PathPart], Any]:
    """Split ``key.path=value`` into a key path and a value.

    The value is read as a TOML value when it parses as one, else kept as a bare string.

    >>> parse_override("traffic[0].rate=2Mbps")
    (['traffic', 0, 'rate'], '2Mbps')
    >>> parse_override("traffic[web].users=3000")
    (['traffic', ByName(name='web'), 'users'], 3000)
    >>> parse_override("topology.servers=4")
    (['topology', 'servers'], 4)
    >>> parse_override('name="a b"'), parse_override("x.y=[1, 2]")
    ((['name'], 'a b'), (['x', 'y'], [1, 2]))
    >>> parse_override("seed")
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: --set: expected KEY.PATH=VALUE, got "seed"
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ScenarioError("--set", f'expected KEY.PATH=VALUE, got "{shown(text)}"')
    return parse_key(key), parse_value(raw.strip(), what=f"--set {shown(key)}")


def parse_value(raw: str, *, what: str = "--set") -> Any:
    """Read an override's value as TOML if it is one, else as a bare string.

    Values nested too deeply or with integers out of range are errors naming ``what``.

    >>> parse_value("1.5"), parse_value("true"), parse_value("10Mbps"), parse_value("{a=1}")
    (1.5, True, '10Mbps', {'a': 1})
    >>> parse_value("[" * 99 + "]" * 99, what="--set x")
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: --set x: value nested deeper than 32 levels
    """
    try:
        check_toml(f"v = {raw}")
    except ScenarioError as err:
        raise ScenarioError(what, f"value {err.message}") from None
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw
    if isinstance(value, datetime.date | datetime.time):
        return raw
    if isinstance(value, float) and not math.isfinite(value):
        return raw
    return value


def _kind(value: Any) -> str:
    """Name a value's TOML type for error messages."""
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return f"the value {json.dumps(value)}"


def entry_name(entry: Any, index: int) -> str | None:
    """Return an array entry's name: its ``name``, else the engine's default ``<kind><index>``.

    >>> entry_name({"name": "web", "kind": "web-mah"}, 0), entry_name({"kind": "cbr"}, 2)
    ('web', 'cbr2')
    >>> entry_name(7, 0) is None
    True
    """
    if not isinstance(entry, Mapping):
        return None
    if "name" in entry:
        return str(entry["name"])
    if "kind" in entry:
        return f"{entry['kind']}{index}"
    return None


def _find_by_name(node: list[Any], selector: ByName, here: str) -> int:
    """Index of the entry of ``node`` named ``selector.name``; a clear error if there is none."""
    names = [entry_name(entry, index) for index, entry in enumerate(node)]
    if selector.name in names:
        return names.index(selector.name)
    known = ", ".join(f'"{n}"' for n in names if n is not None) or "none"
    raise ScenarioError(
        shown(f"{here}[{selector.name}]"),
        f'no entry of {shown(here)} is named "{shown(selector.name)}" (names: {shown(known)})',
    )


def set_path(scenario: Scenario, parts: list[PathPart], value: Any) -> None:
    """Set ``value`` at a key path in place, creating missing tables on the way.

    >>> s = {"traffic": [{"kind": "cbr"}]}
    >>> set_path(s, ["traffic", 0, "rate"], "1Mbps"); s
    {'traffic': [{'kind': 'cbr', 'rate': '1Mbps'}]}
    >>> set_path(s, ["traffic", ByName("cbr0"), "rate"], "2Mbps"); s["traffic"][0]["rate"]
    '2Mbps'
    >>> set_path(s, ["traffic", 3, "rate"], "1Mbps")
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: traffic[3]: index out of range: traffic has 1 entry
    >>> set_path(s, ["traffic", ByName("web"), "rate"], "1Mbps")
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: traffic[web]: no entry of traffic is named "web" (names: "cbr0")
    """
    node: Any = scenario
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        here = format_path(parts[:depth])
        if isinstance(part, ByName | int):
            if not isinstance(node, list):
                raise ScenarioError(
                    here,
                    f"cannot index with {format_path([part])}: expected an array, "
                    f"got {_kind(node)}",
                )
            if isinstance(part, ByName):
                part = _find_by_name(node, part, here)
            elif part >= len(node):
                count = f"{len(node)} entr{'y' if len(node) == 1 else 'ies'}"
                raise ScenarioError(
                    format_path(parts[: depth + 1]),
                    f"index out of range: {here} has {count}",
                )
        elif not isinstance(node, dict):
            raise ScenarioError(
                here, f'cannot set key "{part}": expected a table, got {_kind(node)}'
            )
        if last:
            node[part] = value
        elif isinstance(part, str) and part not in node:
            node[part] = {} if isinstance(parts[depth + 1], str) else []
            node = node[part]
        else:
            node = node[part]


def apply_overrides(scenario: ScenarioLike, overrides: Iterable[str]) -> Scenario:
    """Return a copy of ``scenario`` with ``key.path=value`` overrides applied in order.

    The overrides are the command line's ``--set`` texts, values read as it reads them; a path
    is read as :func:`read_scenario` reads it. This gives :func:`aqmlab.sweep` and
    :func:`aqmlab.queue_law` what ``--set`` gives ``aqmlab sweep`` and ``aqmlab queue-law``
    (:func:`aqmlab.run` takes them as ``set=``).

    >>> base = {"traffic": [{"kind": "poisson", "rate": "1Mbps"}]}
    >>> apply_overrides(base, ["traffic[0].rate=2Mbps", "queue.limit=20p"])
    {'traffic': [{'kind': 'poisson', 'rate': '2Mbps'}], 'queue': {'limit': '20p'}}
    >>> base["traffic"][0]["rate"]
    '1Mbps'
    """
    result = read_scenario(scenario) if isinstance(scenario, str | Path) else plain(scenario)
    if isinstance(overrides, str) or not isinstance(overrides, Iterable):
        raise args.ArgumentError(
            "overrides", f"expected a list of KEY.PATH=VALUE strings, got {overrides!r}"
        )
    for text in overrides:
        parts, value = parse_override(args.text("overrides", text))
        set_path(result, parts, value)
    return result
