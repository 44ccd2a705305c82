"""``summary.json`` is laid out by the engine's binding from Python's compact JSON: the bytes must
be exactly those of ``json.dumps(summary, indent=2)``, whatever the summary holds."""

from __future__ import annotations

import json
from typing import Any

from aqmlab import _native
from hypothesis import given, settings
from hypothesis import strategies as st

SCALARS = (st.none() | st.booleans() | st.integers() | st.text()
           | st.floats(allow_nan=True, allow_infinity=True))  # fmt: skip
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(value=JSON)
def test_the_same_bytes_as_pythons_indent(value: Any) -> None:
    compact = json.dumps(value, separators=(",", ":"))
    assert _native.indent_json(compact) == json.dumps(value, indent=2)


def test_strings_that_look_like_structure_are_copied() -> None:
    value = {"a, b": ["{", "}", "[", "]", ":", ",", '\\"', "\u00e9\u2028"], "": {}}
    assert _native.indent_json(json.dumps(value, separators=(",", ":"))) == json.dumps(
        value, indent=2
    )
