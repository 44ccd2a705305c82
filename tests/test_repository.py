"""The repository explains itself: what the code cites is inside it, and comments carry no history.

- No file under ``crates/``, ``python/``, ``tests/``, ``docs/`` or ``README.md`` cites the project's
  reference documents kept outside the repository (its models notes, its design plan, or the
  directory beside the checkout that holds them): a clone could not follow such a citation. The
  facts the code relies on are in ``docs/models/``.
- No comment or docstring of the code (``crates/``, ``python/``, ``tests/``) names an issue or pull
  request by number: that history belongs in commit messages and ``docs/performance.md``.
- Every ``docs/….md`` path a comment or docstring names exists, and every section number cited
  in a ``docs/models/`` page (``docs/models/ns2.md §2.3``) is a heading of that page; relative
  links between the guides resolve.

The patterns are built from parts, so this file does not cite what it forbids.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TREES = ("crates", "python", "tests", "docs")
TEXT_SUFFIXES = {".rs", ".py", ".pyi", ".toml", ".md", ".txt", ".sh", ".json", ".csv", ".cdf"}
SKIPPED_DIRS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "target"}
SOURCE_SUFFIXES = {".rs", ".py", ".pyi", ".toml"}

OUTSIDE = re.compile(
    r"(?<![\w/.-])" + "models" + r"\.md\b"  # the reference notes on models
    r"|\b" + "DESIGN" + r"\.md\b"  # the design plan
    r"|\.\./" + "shared" + r"\b"  # the directory beside the checkout
    r"|/work/" + "shared" + r"\b"
)
ISSUE = re.compile(
    r"\b(?i:issues?|pull requests?)\s*(?:no\.?\s*)?#?\d+"
    r"|\bPRs?\s*#?\d+"
    r"|(?<![\w&#/])#\d{1,5}\b(?![\w.])"
)
DOCS_PATH = re.compile(r"\bdocs/[\w./-]*?\.md\b")
SECTION = re.compile(r"(\bmodels/|(?<![\w/.-]))([\w.-]+\.md)\)?`?,? §(\d+(?:\.\d+)*)")


def files(trees: tuple[str, ...], suffixes: set[str]) -> Iterator[Path]:
    """Yield the text files under ``trees`` (and README.md) with one of ``suffixes``."""
    for tree in trees:
        for path in sorted((ROOT / tree).rglob("*")):
            parts = set(path.relative_to(ROOT).parts)
            if parts & SKIPPED_DIRS or any(p.endswith(".egg-info") for p in parts):
                continue
            if path.is_file() and not path.is_symlink() and path.suffix in suffixes:
                yield path
    if ".md" in suffixes:
        yield ROOT / "README.md"


def rust_comments(text: str) -> Iterator[tuple[int, str]]:
    """Yield (line number, text) of each ``//`` comment: whole-line ones and those after code."""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith("//"):
            yield number, stripped.lstrip("/!")
        elif m := re.search(r"[;,{}()\]]\s+//(.*)$", line):
            yield number, m[1]


def python_comments(text: str) -> Iterator[tuple[int, str]]:
    """Yield (line number, text) of each comment and each docstring of a Python file."""
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    yield body[0].lineno, body[0].value.value


def toml_comments(text: str) -> Iterator[tuple[int, str]]:
    """Yield (line number, text) of each whole-line ``#`` comment of a TOML file."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            yield number, line.lstrip()[1:]


def comments(path: Path) -> Iterator[tuple[int, str]]:
    """The comments and docstrings of a source file, by its kind."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".rs":
        yield from rust_comments(text)
    elif path.suffix in {".py", ".pyi"}:
        yield from python_comments(text)
    elif path.suffix == ".toml":
        yield from toml_comments(text)


def where(path: Path, line: int, text: str) -> str:
    """One line of a failure message."""
    return f"{path.relative_to(ROOT)}:{line}: {text.strip()[:120]}"


def headings(page: Path) -> set[str]:
    """The section numbers of a page's headings: ``## 2. RED`` gives "2", ``### 2.3 …`` "2.3"."""
    found = re.findall(r"^#+\s+(\d+(?:\.\d+)*)\.?\s", page.read_text(encoding="utf-8"), re.M)
    return set(found)


# --- the detectors bite, and spare legitimate text -------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "(reference `" + "models" + ".md` §2.3)",
        "see " + "DESIGN" + ".md, engine principles",
        "papers in `../" + "shared" + "/papers/`",
        "copies of /work/" + "shared" + "/reference/x.csv",
    ],
)
def test_an_outside_citation_is_found(text: str) -> None:
    assert OUTSIDE.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "docs/models/ns2.md §2.3",
        "[models/web.md](models/web.md) §2.1",
        "docs/models/README.md",
        "findings.md and the shared memory of the host",
        "a buffer shared by the flows",
    ],
)
def test_legitimate_text_is_no_outside_citation(text: str) -> None:
    assert not OUTSIDE.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "(the queue before issue 15)",
        "Issue 14, engine half",
        "fixed in #23",
        "see PR 7",
        "as pull request #120 did",
        "issues 3 and 4",
    ],
)
def test_an_issue_number_is_found(text: str) -> None:
    assert ISSUE.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "RFC 3168 §5",
        "RFC 6582 step 5",
        "#[derive(Debug)]",
        "colour #ff0000",
        "traffic[3]",
        "the issue of fairness",
        "a # b",
        "C#1 note",
        "item 7",
        "tcp.cc v1.122",
        "pr 0.5 of a drop",
    ],
)
def test_legitimate_text_names_no_issue(text: str) -> None:
    assert not ISSUE.search(text)


def test_comments_are_read_from_each_kind_of_source() -> None:
    rust = 'let a = "http://x"; // see issue 9\n/// doc issue 8\nlet b = 1;\n'
    assert [n for n, _ in rust_comments(rust)] == [1, 2]
    python = '"""Module issue 1."""\n\n\ndef f() -> None:\n    """Doc."""\n    x = 1  # note\n'
    assert [t for _, t in python_comments(python)] == ["# note", "Module issue 1.", "Doc."]
    assert list(toml_comments('# top\nkey = "#5"\n')) == [(1, " top")]


def test_section_citations_are_read() -> None:
    text = (
        "(docs/models/ns2.md §2.3, [models/web.md](models/web.md) §2.1,"
        " `docs/models/linux.md` §1)"
    )
    found = [(page, section) for _, page, section in SECTION.findall(text)]
    assert found == [("ns2.md", "2.3"), ("web.md", "2.1"), ("linux.md", "1")]
    assert SECTION.findall("(ns2.md §2.4)") == [("", "ns2.md", "2.4")]


# --- the repository ---------------------------------------------------------------------------


def every_line() -> Iterator[tuple[Path, int, str]]:
    """Yield (file, line number, line) of every text file of the trees and README.md."""
    for path in files(TREES, TEXT_SUFFIXES):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            yield path, number, line


def every_comment() -> Iterator[tuple[Path, int, str]]:
    """Yield (file, line number, text) of every comment and docstring of the code."""
    for path in files(("crates", "python", "tests"), SOURCE_SUFFIXES):
        for number, text in comments(path):
            yield path, number, text


def test_nothing_cites_documents_outside_the_repository() -> None:
    found = [where(path, n, line) for path, n, line in every_line() if OUTSIDE.search(line)]
    assert not found, "cite docs/models/ or docs/architecture.md instead:\n" + "\n".join(found)


def test_no_comment_names_an_issue_number() -> None:
    found = [where(path, n, text) for path, n, text in every_comment() if ISSUE.search(text)]
    assert not found, "say what the code does; history goes in commits:\n" + "\n".join(found)


def test_docs_paths_in_comments_exist() -> None:
    found = [
        where(path, n, m)
        for path, n, text in every_comment()
        for m in DOCS_PATH.findall(text)
        if not (ROOT / m).is_file()
    ]
    assert not found, "no such file:\n" + "\n".join(found)


def test_cited_model_sections_exist() -> None:
    pages = {page.name: headings(page) for page in (ROOT / "docs" / "models").glob("*.md")}
    found = [
        where(path, n, f"{page} §{section}")
        for path, n, line in every_line()
        for prefix, page, section in SECTION.findall(line)
        if (prefix or page in pages) and section not in pages.get(page, set())
    ]
    assert not found, "no such section in docs/models/:\n" + "\n".join(found)


def test_links_between_the_guides_resolve() -> None:
    guides = [*(ROOT / "docs").glob("*.md"), *(ROOT / "docs" / "models").glob("*.md")]
    found = [
        f"{page.relative_to(ROOT)}: {target}"
        for page in [*guides, ROOT / "README.md"]
        for target in re.findall(r"\]\(([^)#\s:]+\.md)(?:#[^)]*)?\)", page.read_text("utf-8"))
        if not (page.parent / target).is_file()
    ]
    assert not found, "broken links:\n" + "\n".join(found)
