"""Run directories you can trust, and the run store that holds one per (scenario, seed).

A **run directory** holds what one run produced — ``summary.json`` and one Parquet file per table
(see :meth:`aqmlab.Result.files`) — and a ``manifest.json`` written last, listing every file with
its size and SHA-256, the run's scenario hash, seed and the engine build that made it. A run
directory counts as *finished* only if its manifest verifies: every listed file is there with its
size and digest, and nothing else claims to be part of it. A directory is always written under a
temporary sibling name (``.partial-…``) and renamed into place when complete, so a killed writer
leaves no half-written run under the real name.

A **pack** holds several finished runs of one scenario (one resolved-scenario hash) in one
directory: ``summaries.jsonl`` (each run's summary, a line of compact JSON each, in the order of
the manifest's ``seeds``) and one Parquet file per table holding every run's rows, each row's run
in its first column ``run_index`` (its position in ``seeds``). Its manifest (format
``aqmlab-pack/1``) lists ``seeds`` instead of one ``seed``. A sweep writes the short runs one of
its workers makes in a row as a pack: one set of files for them all instead of a directory each
(docs/performance.md, "Packs"). A packed run reads back as the run it is: :func:`aqmlab.load`
finds it by its run directory's name, and :func:`aqmlab.collect` gives its rows as a run
directory's.

A **run store** is a directory with a marker file (``aqmlab-store.json``) holding:

- ``runs/<hash16>-seed<seed>/``: one run directory per resolved-scenario hash and seed, and
  ``runs/<hash16>-seeds<lowest>-<highest>-<digest8>/``: packs of runs of one hash;
- ``sweeps/<name>.json``: the sweeps run into it (axes, points, seeds: see :mod:`aqmlab.sweeps`),
  which is how :func:`aqmlab.collect` knows each run's axis values.

A stored run is reused only if its manifest verifies *and* it was made by the same engine build
(``meta.build.id``: the engine's version, sources and build profile); otherwise it is run again
and the reason counted. Where a run is stored more than once (a run directory and a pack, or two
packs, left by sweeps of other builds), the best copy counts: finished by this build, then
failed, made by another build, damaged. A run that failed is stored with its error
(``error.json``, manifest status ``failed``) and retried by the next sweep.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     store = Store.open(Path(tmp) / "s", create=True)
...     digest = "ab" * 32
...     path = store.write(digest, 3, {"summary.json": b"{}"}, build_id="b1")
...     state = store.check(digest, 3, build_id="b1")
...     path.name, state.status, store.check(digest, 3, build_id="b2").status
('abababababababab-seed3', 'finished', 'other-build')
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from aqmlab.errors import StoreError, shown

MANIFEST = "manifest.json"
"""The file a run directory's manifest is in; written last."""
MARKER = "aqmlab-store.json"
"""The file that makes a directory a run store."""
RUN_FORMAT = "aqmlab-run/1"
PACK_FORMAT = "aqmlab-pack/1"
STORE_FORMAT = "aqmlab-store/1"
PACK_SUMMARIES = "summaries.jsonl"
"""A pack's summaries: one line of compact JSON per run, in the order of its seeds."""
RUN_INDEX = "run_index"
"""The first column of a pack's tables: each row's run, its position in the pack's seeds."""
RUN_NAME = re.compile(r"([0-9a-f]{16})-seed(0|[1-9][0-9]*)")
"""A run directory's name in a store: the scenario hash's first 16 digits and the seed."""
PACK_NAME = re.compile(r"([0-9a-f]{16})-seeds(0|[1-9][0-9]*)-(0|[1-9][0-9]*)-[0-9a-f]{8}")
"""A pack's name in a store: the scenario hash's first 16 digits, its lowest and highest seed,
and a digest of its seeds (:meth:`Store.pack_dir`)."""
LOCK = ".lock"
"""The store's lock file (:meth:`Store.lock`)."""
PARTIAL_PREFIX = ".partial-"
TRASH_PREFIX = ".trash-"


def sha256_file(path: Path) -> str:
    """Return the SHA-256 of a file's bytes, in hex, read in 1 MiB blocks.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     _ = f.write(b"abc"); f.flush()
    ...     sha256_file(Path(f.name))[:16]
    'ba7816bf8f01cfea'
    """
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


class RunState(NamedTuple):
    """What a run directory holds: ``status`` and, unless finished, why not.

    ``status`` is ``missing`` (no directory), ``finished`` (the manifest verifies and the build
    matches), ``failed`` (a stored failure; ``reason`` is its error), ``damaged`` (the manifest is
    missing or does not verify; ``reason`` says what), or ``other-build`` (whole, but made by
    another engine build).
    """

    status: str
    reason: str = ""
    manifest: Mapping[str, Any] | None = None
    pack: Path | None = None
    """The pack holding the run, if it is in one."""
    position: int = -1
    """The run's place in its pack's ``seeds`` (its rows' ``run_index``)."""

    @property
    def reusable(self) -> bool:
        """True when the stored run can stand for a new one."""
        return self.status == "finished"


RANK = {"missing": 0, "damaged": 1, "other-build": 2, "failed": 3, "finished": 4}
"""Which of two copies of a run counts: the higher."""


def read_json(path: Path, what: str) -> dict[str, Any]:
    """Read a JSON object from a file of a store (``what`` it is).

    A file that is missing, unreadable, not JSON or not an object is a :class:`StoreError`
    naming it.

    >>> read_json(Path("no/such/summary.json"), "run summary")
    Traceback (most recent call last):
    ...
    aqmlab.errors.StoreError: no/such/summary.json: missing (expected a run summary)
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreError(str(path), f"missing (expected a {what})") from None
    except OSError as err:
        raise StoreError(str(path), f"cannot read: {err.strerror or err}") from None
    except ValueError as err:  # not UTF-8, not JSON
        raise StoreError(str(path), f"not a valid {what}: {shown(err)}") from None
    if not isinstance(data, dict):
        raise StoreError(str(path), f"not a valid {what}: expected a JSON object")
    return data


def read_manifest(directory: Path) -> dict[str, Any]:
    """Read and verify a run directory's or a pack's manifest; :class:`StoreError` if wrong.

    >>> read_manifest(Path("no/such/run"))
    Traceback (most recent call last):
    ...
    aqmlab.errors.StoreError: no/such/run: no manifest.json: not a finished run directory
    """
    path = directory / MANIFEST
    try:
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreError(str(directory), f"no {MANIFEST}: not a finished run directory") from None
    except (OSError, ValueError) as err:
        raise StoreError(str(directory), f"unreadable {MANIFEST}: {err}") from None
    if not isinstance(manifest, dict) or manifest.get("format") not in (RUN_FORMAT, PACK_FORMAT):
        raise StoreError(
            str(directory), f"{MANIFEST} is not an {RUN_FORMAT} or {PACK_FORMAT} manifest"
        )
    if manifest["format"] == PACK_FORMAT:
        seeds = manifest.get("seeds")
        if (not isinstance(seeds, list) or not seeds or len(set(seeds)) != len(seeds)
                or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0
                           for x in seeds)):  # fmt: skip
            raise StoreError(str(directory), f"{MANIFEST} lists no valid seeds of a pack")
    files = manifest.get("files")
    if not isinstance(files, list):
        raise StoreError(str(directory), f"{MANIFEST} lists no files")
    listed = [entry.get("name") for entry in files if isinstance(entry, dict)]
    if manifest["format"] == PACK_FORMAT and PACK_SUMMARIES not in listed:
        raise StoreError(str(directory), f"{MANIFEST} of a pack does not list {PACK_SUMMARIES}")
    for entry in files:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or "/" in name or name in ("", ".", "..", MANIFEST):
            raise StoreError(str(directory), f"{MANIFEST} names a bad file: {entry!r}")
        file = directory / name
        try:
            size = file.stat().st_size
        except OSError:
            raise StoreError(str(directory), f"{name} is missing") from None
        if size != entry.get("size"):
            raise StoreError(
                str(directory), f"{name} has {size} bytes, the manifest says {entry.get('size')}"
            )
        if sha256_file(file) != entry.get("sha256"):
            raise StoreError(str(directory), f"{name} does not match its SHA-256 in the manifest")
    return manifest


def check_run(
    directory: Path, *, digest: str | None, seed: int | None, build_id: str | None
) -> RunState:
    """Tell whether ``directory`` holds a finished run of (``digest``, ``seed``) by this build.

    ``digest``, ``seed`` and ``build_id`` ``None`` accept any. A pack is not a run directory
    (it is ``damaged`` here): :meth:`Store.check` finds runs in packs.
    """
    if not directory.exists():
        return RunState("missing")
    try:
        manifest = read_manifest(directory)
    except StoreError as err:
        return RunState("damaged", err.message)
    if manifest["format"] != RUN_FORMAT:
        return RunState("damaged", "it is a pack of runs, not a run directory", manifest)
    if seed is not None and manifest.get("seed") != seed:
        return RunState("damaged", "its manifest names another seed", manifest)
    return _state(manifest, digest, build_id)


def check_pack(
    directory: Path, manifest: Mapping[str, Any], *, digest: str | None, seed: int,
    build_id: str | None,
) -> RunState:  # fmt: skip
    """Tell whether a pack (its verified ``manifest``) holds a finished run of ``seed``.

    Its scenario must be ``digest``, its build ``build_id`` (``None`` accepts any); the state is
    ``missing`` if the pack does not list ``seed``.
    """
    if manifest.get("format") != PACK_FORMAT:
        return RunState("damaged", "it is a run directory, not a pack", manifest, directory)
    if seed not in manifest["seeds"]:
        return RunState("missing")
    state = _state(manifest, digest, build_id)
    return state._replace(pack=directory, position=manifest["seeds"].index(seed))


def _state(manifest: Mapping[str, Any], digest: str | None, build_id: str | None) -> RunState:
    """Return the state a verified manifest gives its run (its seed checked by the caller)."""
    if digest is not None and manifest.get("scenario_hash") != digest:
        return RunState("damaged", "its manifest names another scenario", manifest)
    if manifest.get("status") == "failed" and manifest.get("format") == RUN_FORMAT:
        return RunState("failed", str(manifest.get("error", "")), manifest)
    if manifest.get("status") != "finished":
        return RunState("damaged", f"unknown status {manifest.get('status')!r}", manifest)
    if build_id is not None and manifest.get("build_id") != build_id:
        return RunState("other-build", f"made by build {manifest.get('build_id')}", manifest)
    return RunState("finished", "", manifest)


def is_run_directory(directory: Path) -> bool:
    """Return True if ``directory`` looks like a run directory (finished or not).

    >>> is_run_directory(Path("no/such/dir"))
    False
    """
    return (directory / MANIFEST).is_file() or (directory / "summary.json").is_file()


def is_pack(directory: Path) -> bool:
    """Return True if ``directory``'s manifest says it is a pack of runs (verified or not).

    >>> is_pack(Path("no/such/dir"))
    False
    """
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("format") == PACK_FORMAT


def check_output_dir(directory: Path, *, replace: bool) -> bool:
    """Check that a single run may be written to ``directory``; return whether it replaces one.

    Missing or empty: fine. A run directory: only with ``replace`` (``--force``). A file, or a
    directory holding anything else: never.

    >>> check_output_dir(Path("no/such/run"), replace=False)
    False
    """
    if not directory.exists():
        return False
    if not directory.is_dir():
        raise StoreError(str(directory), "is a file, expected a run directory to write")
    if not any(directory.iterdir()):
        return True
    if (directory / MARKER).is_file():
        raise StoreError(str(directory), "is a run store, not a run directory")
    if not is_run_directory(directory) or is_pack(directory):
        raise StoreError(
            str(directory),
            "is a directory that is not a run directory; refusing to replace it",
        )
    if not replace:
        raise StoreError(str(directory), "holds a run already (use --force to replace it)")
    return True


def write_run_directory(
    directory: Path,
    files: Mapping[str, bytes],
    *,
    scenario_hash: str,
    seed: int,
    build_id: str,
    status: str = "finished",
    error: str | None = None,
    replace: bool = False,
) -> Path:
    """Write a run directory atomically: files into a temporary sibling, manifest last, rename.

    An existing ``directory`` is replaced only with ``replace=True`` (:class:`StoreError`
    otherwise); it is moved aside first and removed after the rename, so at every moment the
    name holds either the old run or the new one, whole.
    """
    identity = {"format": RUN_FORMAT, "status": status, "scenario_hash": scenario_hash,
                "seed": seed, "build_id": build_id}  # fmt: skip
    after = {} if error is None else {"error": error}
    return _write_directory(directory, files, identity, after, replace=replace)


def write_pack_directory(
    directory: Path,
    files: Mapping[str, bytes],
    *,
    scenario_hash: str,
    seeds: list[int],
    build_id: str,
) -> Path:
    """Write a pack of finished runs atomically, replacing a pack of the same name.

    As :func:`write_run_directory` writes a run directory.
    """
    identity = {"format": PACK_FORMAT, "status": "finished", "scenario_hash": scenario_hash,
                "seeds": seeds, "build_id": build_id}  # fmt: skip
    return _write_directory(directory, files, identity, {}, replace=True)


def _write_directory(
    directory: Path,
    files: Mapping[str, bytes],
    identity: dict[str, Any],
    after: dict[str, Any],
    *,
    replace: bool,
) -> Path:
    """Write ``files`` and a manifest (``identity``, the files, ``after``) as ``directory``."""
    parent = directory.parent
    parent.mkdir(parents=True, exist_ok=True)
    if directory.exists() and not replace:
        raise StoreError(str(directory), "already exists (use --force to replace it)")
    partial = parent / f"{PARTIAL_PREFIX}{directory.name}-{os.getpid()}-{os.urandom(4).hex()}"
    partial.mkdir()
    try:
        entries = []
        for name, data in files.items():
            write_new(partial / name, data)
            entries.append(
                {"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            )
        manifest: dict[str, Any] = {**identity, "files": entries, **after}
        write_new(partial / MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode("utf-8"))
        trash = None
        if directory.exists():
            trash = parent / f"{TRASH_PREFIX}{directory.name}-{os.urandom(4).hex()}"
            directory.rename(trash)
        partial.rename(directory)
    except BaseException:
        remove_tree(partial)
        raise
    if trash is not None:
        remove_tree(trash)
    return directory


SWEEP_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
"""A sweep's name: its index's file name in the store (``sweeps/<name>.json``)."""


def sweep_name(name: str, where: str = "name") -> str:
    """Check a sweep's name as the store uses it, a file name, whoever gives it.

    >>> sweep_name("load-1.5")
    'load-1.5'
    >>> sweep_name("../../x", "--sweep")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    aqmlab.errors.StoreError: --sweep: expected a sweep name ..., got "../../x"
    """
    if not isinstance(name, str) or not SWEEP_NAME.fullmatch(name):
        rule = 'of 1 to 100 letters, digits and "._-", not starting with "._-"'
        raise StoreError(where, f'expected a sweep name {rule}, got "{shown(name)}"')
    return name


def write_new(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file at ``path``, never through a link, never over a file.

    The file is created exclusively and without following a symbolic link (``O_EXCL``,
    ``O_NOFOLLOW``): a name planted in a store, a link to a file elsewhere included, is an
    error, not a file truncated. Every file the store writes is written so.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     (Path(tmp) / "target").write_text("keep")
    ...     (Path(tmp) / "planted").symlink_to(Path(tmp) / "target")
    ...     try:
    ...         write_new(Path(tmp) / "planted", b"x")
    ...     except StoreError as err:
    ...         print(err.message)
    ...     print((Path(tmp) / "target").read_text())
    4
    exists already (or is a link); a store's files are written new, never through a link
    keep
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        descriptor = os.open(path, flags, 0o644)
    except FileExistsError:
        raise StoreError(
            str(path), "exists already (or is a link); a store's files are written new, never "
            "through a link"
        ) from None
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


def remove_tree(directory: Path) -> None:
    """Remove a directory and all it holds, as far as it can be removed.

    :mod:`shutil` is imported here, not with the module: a run that writes a new run directory
    never removes one, and need not load it.
    """
    import shutil

    shutil.rmtree(directory, ignore_errors=True)


def _no_links(*paths: Path) -> None:
    """Refuse a store part (``runs``, ``sweeps``, the lock) that is a symbolic link."""
    for path in paths:
        if path.is_symlink():
            raise StoreError(
                str(path), "is a symbolic link; a run store's parts are never written through links"
            )


def remove_leftovers(directory: Path) -> list[str]:
    """Remove the ``.partial-*`` and ``.trash-*`` directories a killed writer left behind.

    Returns their names.
    """
    removed = []
    if directory.is_dir():
        for child in directory.iterdir():
            if child.name.startswith((PARTIAL_PREFIX, TRASH_PREFIX)) and child.is_dir():
                remove_tree(child)
                removed.append(child.name)
    return sorted(removed)


READABLE = ("finished", "other-build")
"""The states of a stored run that readers read: whole, of this engine build or another."""


def names_a_packed_run(directory: Path) -> bool:
    """Tell whether ``directory`` names a run of a store that has no directory of its own.

    That is ``<store>/runs/<hash16>-seed<n>``, missing: the run may be in a pack
    (:func:`packed_run` finds it).

    >>> names_a_packed_run(Path("no/such/store/runs/0123456789abcdef-seed3"))
    False
    """
    where = directory.absolute()
    named = RUN_NAME.fullmatch(where.name) is not None and where.parent.name == "runs"
    return named and (where.parent.parent / MARKER).is_file() and not where.exists()


def packed_run(
    directory: Path, *, build_id: str | None
) -> tuple[Store, RunState, dict[str, Any]]:
    """Find the packed run that ``directory`` names (:func:`names_a_packed_run`).

    Returns its store, its state (the copy made by ``build_id`` if there is one; with ``None``,
    the first whole copy of any build) and its summary. A run the store does not hold, or holds
    only damaged or failed, is a :class:`StoreError` naming ``directory``.
    """
    where = directory.absolute()
    store = Store.open(where.parent.parent)
    digest, seed, state = store.find(where.name, build_id=build_id)
    if state.pack is None:
        why = "no such run in the store" if state.status == "missing" else state.reason
        raise StoreError(str(directory), why or state.status)
    if state.status not in READABLE:
        raise StoreError(str(directory), f"{state.status} ({state.reason}), in {state.pack.name}")
    return store, state, store.summary(digest, seed, state)


class Store:
    """A run store on disk (see the module's docstring). Open it with :meth:`open`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.runs = root / "runs"
        self.sweeps = root / "sweeps"
        self._packs: dict[str, list[tuple[int, int, Path]]] | None = None
        self._manifests: dict[Path, dict[str, Any] | StoreError] = {}
        self._summaries: dict[Path, list[bytes]] = {}

    @classmethod
    def open(cls, root: str | Path, *, create: bool = False) -> Store:
        """Open the store at ``root``; with ``create``, make it if ``root`` is missing or empty.

        A path that is a file, or a non-empty directory without the store's marker, is a
        :class:`StoreError` (nothing there is touched).

        >>> Store.open("no/such/store")
        Traceback (most recent call last):
        ...
        aqmlab.errors.StoreError: no/such/store: not a run store (no such directory)
        """
        path = Path(root)
        marker = path / MARKER
        if marker.is_file():
            store = cls(path)
            _no_links(store.runs, store.sweeps, path / LOCK)
            for part in (store.runs, store.sweeps):
                if part.exists() and not part.is_dir():
                    raise StoreError(str(part), "is a file, expected a directory of the run store")
            return store
        if path.exists() and not path.is_dir():
            raise StoreError(str(root), "is a file, expected a run store directory")
        if not create:
            why = f"no {MARKER}" if path.is_dir() else "no such directory"
            raise StoreError(str(root), f"not a run store ({why})")
        if path.is_dir() and any(path.iterdir()):
            raise StoreError(
                str(root),
                f"is a directory that is not a run store (no {MARKER}) and not empty; "
                "choose a new or empty directory",
            )
        path.mkdir(parents=True, exist_ok=True)
        write_new(marker, (json.dumps({"format": STORE_FORMAT}) + "\n").encode("utf-8"))
        return cls(path)

    def run_dir(self, scenario_hash: str, seed: int) -> Path:
        """Return the directory of the run of ``scenario_hash`` with ``seed``.

        >>> Store(Path("s")).run_dir("0123456789abcdef" * 4, 2).as_posix()
        's/runs/0123456789abcdef-seed2'
        """
        return self.runs / f"{scenario_hash[:16]}-seed{seed}"

    def pack_dir(self, scenario_hash: str, seeds: list[int]) -> Path:
        """Return the directory of the pack of ``scenario_hash``'s runs with ``seeds``, in order.

        Its name ends with the first 8 digits of the SHA-256 of the seeds' list: two packs share
        a name only if they hold the same runs in the same order, and a pack is written only of
        runs that were not reusable, so the one it replaces is one that no longer counts.

        >>> Store(Path("s")).pack_dir("0123456789abcdef" * 4, [4, 2, 9]).as_posix()
        's/runs/0123456789abcdef-seeds2-9-ff78be8b'
        """
        tag = hashlib.sha256(json.dumps(list(seeds)).encode("ascii")).hexdigest()[:8]
        return self.runs / f"{scenario_hash[:16]}-seeds{min(seeds)}-{max(seeds)}-{tag}"

    def check(self, scenario_hash: str, seed: int, *, build_id: str | None) -> RunState:
        """Return the state of the stored run of (``scenario_hash``, ``seed``) for this build.

        The run directory and every pack that may hold the run are looked at; the best copy
        counts (:data:`RANK`): one of this build first, then one of another (``other-build``,
        whole: readers may read it). ``build_id`` ``None`` accepts a run of any build, the first
        whole copy found.
        """
        return self._best_copy(scenario_hash[:16], seed, scenario_hash, build_id)

    def find(self, name: str, *, build_id: str | None) -> tuple[str, int, RunState]:
        """Find the run a run directory's name (``<hash16>-seed<seed>``) names.

        Returns its scenario hash, its seed and the state of its best copy (:meth:`check`): a
        copy made by ``build_id`` if there is one (else ``other-build``, whole and readable;
        ``None``: any build's), ``missing`` if the store holds no such run. A name of another
        form is a :class:`StoreError`.
        """
        match = RUN_NAME.fullmatch(name)
        if match is None:
            raise StoreError(str(self.runs / name), "not the name of a run (<hash16>-seed<seed>)")
        short, seed = match[1], int(match[2])
        best = self._best_copy(short, seed, None, build_id)
        return str((best.manifest or {}).get("scenario_hash", short)), seed, best

    def _best_copy(
        self, short: str, seed: int, digest: str | None, build_id: str | None
    ) -> RunState:
        """Return the best copy (:data:`RANK`) of the run of the hash beginning ``short``."""
        best = check_run(
            self.runs / f"{short}-seed{seed}", digest=digest, seed=seed, build_id=build_id
        )
        for pack in self._packs_holding(short, seed):
            if best.reusable:
                break
            state = self._pack_state(pack, digest, seed, build_id)
            if RANK[state.status] > RANK[best.status]:
                best = state
        return best

    def summary(self, scenario_hash: str, seed: int, state: RunState) -> dict[str, Any]:
        """Read the summary of a stored run, from its directory or its pack (``state``).

        A pack's summaries are read once per store object; a line that is not a summary is a
        :class:`StoreError` naming the pack.
        """
        if state.pack is None:
            return read_json(self.run_dir(scenario_hash, seed) / "summary.json", "run summary")
        lines = self._summaries.get(state.pack)
        if lines is None:
            path = state.pack / PACK_SUMMARIES
            try:
                lines = path.read_bytes().splitlines()
            except OSError as err:
                raise StoreError(str(path), f"cannot read: {err.strerror or err}") from None
            self._summaries[state.pack] = lines
        where = f"{state.pack / PACK_SUMMARIES}, line {state.position + 1}"
        try:
            summary = json.loads(lines[state.position])
        except (IndexError, ValueError):
            raise StoreError(where, "not a valid run summary") from None
        if not isinstance(summary, dict) or not isinstance(summary.get("meta"), dict):
            raise StoreError(where, "not a valid run summary")
        if summary["meta"].get("seed") != seed:
            raise StoreError(where, f"not the summary of the run of seed {seed}")
        return summary

    def refresh(self) -> None:
        """Forget what was read of the store's packs (after other processes wrote it)."""
        self._packs = None
        self._manifests.clear()
        self._summaries.clear()

    def _packs_holding(self, short: str, seed: int) -> list[Path]:
        """Return the packs of the hash beginning ``short`` whose names' range holds ``seed``."""
        if self._packs is None:
            self._packs = {}
            try:
                names = os.listdir(self.runs)
            except OSError:
                names = []
            for name in sorted(names):
                match = PACK_NAME.fullmatch(name)
                if match is not None:
                    entry = (int(match[2]), int(match[3]), self.runs / name)
                    self._packs.setdefault(match[1], []).append(entry)
        return [path for low, high, path in self._packs.get(short, ()) if low <= seed <= high]

    def _pack_state(
        self, pack: Path, digest: str | None, seed: int, build_id: str | None
    ) -> RunState:
        """Return the state of the run of ``seed`` in ``pack``, its manifest verified once."""
        manifest = self._manifests.get(pack)
        if manifest is None:
            try:
                manifest = read_manifest(pack)
            except StoreError as err:
                manifest = err
            self._manifests[pack] = manifest
        if isinstance(manifest, StoreError):
            return RunState("damaged", manifest.message, None, pack)
        return check_pack(pack, manifest, digest=digest, seed=seed, build_id=build_id)

    def write(
        self,
        scenario_hash: str,
        seed: int,
        files: Mapping[str, bytes],
        *,
        build_id: str,
        status: str = "finished",
        error: str | None = None,
    ) -> Path:
        """Store a run's files (or a failure), replacing whatever was stored for it."""
        return write_run_directory(
            self.run_dir(scenario_hash, seed),
            files,
            scenario_hash=scenario_hash,
            seed=seed,
            build_id=build_id,
            status=status,
            error=error,
            replace=True,
        )

    def discard(self, scenario_hash: str, seed: int) -> None:
        """Remove the run directory of (``scenario_hash``, ``seed``), if there is one.

        A run made again into a pack leaves its older directory (a failure, another build's run)
        behind otherwise. It is renamed aside first, so a reader never finds it half removed.
        """
        directory = self.run_dir(scenario_hash, seed)
        if directory.is_dir() and not directory.is_symlink():
            trash = self.runs / f"{TRASH_PREFIX}{directory.name}-{os.urandom(4).hex()}"
            directory.rename(trash)
            remove_tree(trash)

    def write_pack(
        self, scenario_hash: str, seeds: list[int], files: Mapping[str, bytes], *, build_id: str
    ) -> Path:
        """Store finished runs of one scenario as a pack (the module's docstring)."""
        return write_pack_directory(
            self.pack_dir(scenario_hash, seeds),
            files,
            scenario_hash=scenario_hash,
            seeds=list(seeds),
            build_id=build_id,
        )

    def remove_leftovers(self) -> list[str]:
        """Remove partial directories left by killed writers; return their names."""
        return remove_leftovers(self.runs)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the store's lock: one sweep writes a store at a time.

        A second sweep on the same store fails at once with a :class:`StoreError` instead of
        waiting or interleaving.
        """
        path = self.root / LOCK
        try:  # opened, or made, without following a link and without truncating
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as err:
            why = "is a symbolic link" if path.is_symlink() else (err.strerror or str(err))
            raise StoreError(str(path), f"cannot be opened as the store's lock ({why})") from None
        with os.fdopen(descriptor, "rb") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreError(
                    str(self.root), "another sweep is writing this store; wait for it to end"
                ) from None
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def sweep_index(self, name: str) -> Path:
        """Return the file of the index of the sweep ``name`` (checked: :func:`sweep_name`)."""
        return self.sweeps / f"{sweep_name(name)}.json"

    def save_sweep(self, name: str, index: Mapping[str, Any]) -> Path:
        """Write a sweep's index (``sweeps/<name>.json``) atomically."""
        self.sweeps.mkdir(exist_ok=True)
        path = self.sweep_index(name)
        temporary = path.with_name(f".{path.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
        write_new(temporary, (json.dumps(index, indent=2) + "\n").encode("utf-8"))
        temporary.replace(path)
        return path

    def sweep_names(self) -> list[str]:
        """Names of the sweeps run into this store, sorted."""
        if not self.sweeps.is_dir():
            return []
        return sorted(p.stem for p in self.sweeps.glob("*.json"))

    def load_sweep(self, name: str) -> dict[str, Any]:
        """Read a sweep's index; :class:`StoreError` naming the known sweeps if there is none."""
        path = self.sweep_index(name)
        if not path.exists():
            known = ", ".join(self.sweep_names()) or "none"
            raise StoreError(str(self.root), f'no sweep "{shown(name)}" (sweeps: {known})')
        return read_json(path, "sweep index")
