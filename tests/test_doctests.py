"""The examples in the package's docstrings run and say what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import aqmlab
import pytest

MODULES = sorted(
    {"aqmlab"}
    | {info.name for info in pkgutil.walk_packages(aqmlab.__path__, "aqmlab.")}
    - {"aqmlab.__main__", "aqmlab._native"}
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
    if name != "aqmlab.errors" or tried:
        assert tried > 0, f"{name} has no examples"
