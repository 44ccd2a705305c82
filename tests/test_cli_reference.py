"""docs/cli.md is every command's own ``--help``, so the reference cannot go stale: this test
fails when a command's help changes and the page does not. ``AQMLAB_WRITE_CLI_REFERENCE=1
pytest tests/test_cli_reference.py`` writes the page again from the commands."""

from __future__ import annotations

import os

from aqmlab.cli import app
from conftest import ROOT
from typer.testing import CliRunner

PAGE = ROOT / "docs" / "cli.md"
WIDTH = 100
"""The terminal width the help is laid out for (Rich wraps to it)."""


def render() -> str:
    """The page: the group's help, then each command's, in the order they are registered."""
    runner = CliRunner()
    lines = [
        "# Command-line reference",
        "",
        "Every command's `--help`, as the command prints it at a terminal width of 100. Generated",
        "by `tests/test_cli_reference.py`, which fails when a command's help and this page differ",
        "(`AQMLAB_WRITE_CLI_REFERENCE=1 pytest tests/test_cli_reference.py` writes it again). How to",
        "use the commands together is in the [user guide](guide.md).",
    ]
    env = {"COLUMNS": str(WIDTH), "TERMINAL_WIDTH": str(WIDTH), "NO_COLOR": "1"}
    for name in [None, *(c.name for c in app.registered_commands)]:
        argv = ["--help"] if name is None else [name, "--help"]
        result = runner.invoke(app, argv, env=env, terminal_width=WIDTH)
        assert result.exit_code == 0, result.output
        help_text = "\n".join(line.rstrip() for line in result.output.strip("\n").splitlines())
        lines += ["", f"## `aqmlab{'' if name is None else ' ' + name}`", "", "```text",
                  help_text.strip("\n"), "```"]  # fmt: skip
    return "\n".join(lines) + "\n"


def test_the_cli_reference_is_the_commands_own_help() -> None:
    page = render()
    if os.environ.get("AQMLAB_WRITE_CLI_REFERENCE") == "1":
        PAGE.write_text(page, encoding="utf-8")
    assert PAGE.read_text(encoding="utf-8") == page, (
        "docs/cli.md differs from the commands' help: run "
        "AQMLAB_WRITE_CLI_REFERENCE=1 pytest tests/test_cli_reference.py"
    )
