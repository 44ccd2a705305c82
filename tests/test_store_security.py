"""A run store cannot be turned against the files around it: nothing in it is written through a
symbolic link, and a name given on the command line or read from a file is checked as the
writer checks it before it becomes part of a path."""

from __future__ import annotations

from pathlib import Path

import pytest
from aqmlab.errors import StoreError
from aqmlab.store import LOCK, Store, write_new
from conftest import BASE_TOML, invoke


@pytest.fixture
def store_with_a_sweep(tmp_path: Path) -> Path:
    (tmp_path / "s.toml").write_text(BASE_TOML.replace('duration = "3s"', 'duration = "1s"'))
    code, _, err = invoke(tmp_path, "sweep", "s.toml", "--seeds", "1", "-j", "1", "--out", "st")
    assert code == 0, err
    return tmp_path


def test_a_planted_lock_link_is_refused_and_its_target_kept(store_with_a_sweep: Path) -> None:
    here = store_with_a_sweep
    victim = here / "victim.txt"
    victim.write_text("precious\n")
    (here / "st" / LOCK).unlink()
    (here / "st" / LOCK).symlink_to(victim)
    code, _, err = invoke(here, "sweep", "s.toml", "--seeds", "1-2", "-j", "1", "--out", "st")
    assert code == 2 and "symbolic link" in err, err
    assert victim.read_text() == "precious\n"


@pytest.mark.parametrize("part", ["runs", "sweeps"])
def test_a_store_part_that_is_a_link_is_refused(tmp_path: Path, part: str) -> None:
    store = Store.open(tmp_path / "st", create=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (store.root / part).symlink_to(elsewhere)
    with pytest.raises(StoreError, match="symbolic link"):
        Store.open(store.root)
    assert not any(elsewhere.iterdir())


def test_the_store_writes_new_files_only(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_text("keep")
    (tmp_path / "planted").symlink_to(target)
    for name in ("planted", "target"):
        with pytest.raises(StoreError, match="written new"):
            write_new(tmp_path / name, b"overwritten")
    assert target.read_text() == "keep"


def test_collect_reads_no_sweep_outside_the_store(store_with_a_sweep: Path) -> None:
    here = store_with_a_sweep
    (here / "x.json").write_text("{}")
    for name in ("../../x", "../x", "/etc/passwd", ".hidden", ""):
        code, _, err = invoke(here, "collect", "st", "--sweep", name)
        assert code == 2 and err.startswith("error: --sweep: expected a sweep name"), (name, err)


def test_an_empty_sweep_name_is_refused_not_replaced(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(BASE_TOML)
    code, _, err = invoke(tmp_path, "sweep", "s.toml", "--name", "", "--out", "st")
    assert code == 2 and 'expected a sweep name' in err and 'got ""' in err, err
