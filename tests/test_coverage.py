"""docs/coverage.md stays honest: every seed paragraph has a row; every "decided" row names functions and
tests that exist; every rule reference the terrain chart uses appears in the document."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from asl_terrain.chart import default_chart

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "coverage.md"
SEEDS = ROOT.parent / "shared" / "seeds"

#: the numbered paragraphs of the four seed texts (B3; P2, P4, P5)
PARAGRAPHS = (
    "B3.1 B3.2 B3.3 B3.4 B3.41 B3.42 B3.43 B3.5 "
    "P2.1 P2.2 P2.3 P2.31 P2.4 P2.41 P2.42 P2.5 P2.51 P2.52 P2.53 P2.54 "
    "P4.1 P4.11 P4.12 P4.13 P4.2 P4.21 P4.22 P4.23 P4.24 P4.3 "
    "P5.1 P5.11 P5.12 P5.121 P5.122 P5.123 P5.124 P5.125 P5.126 P5.13 P5.131 P5.132 P5.14 P5.141 P5.1411 "
    "P5.142 P5.15 P5.2 P5.21 P5.3"
).split()
STATUSES = {"decided", "informational", "not computable"}


def rows() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and re.fullmatch(r"[BP]\d+(\.\d+)+", cells[0]):
            out[cells[0]] = {"subject": cells[1], "status": cells[2], "where": cells[3], "tests": cells[4]}
    return out


def test_the_list_matches_the_seed_texts() -> None:
    if not SEEDS.is_dir():
        pytest.skip(f"seed texts not found at {SEEDS} (../shared/seeds is absent)")
    found: set[str] = set()
    for f in SEEDS.glob("*.txt"):
        text = f.read_text()
        chapter = "B" if text.lstrip().startswith("3. ROADS") else "P"
        for m in re.finditer(r"^(\d+(?:\.\d+)+)\s", text, re.M):
            found.add(chapter + m.group(1))
    assert found == set(PARAGRAPHS)


def test_every_paragraph_has_a_row_with_a_status() -> None:
    table = rows()
    missing = [p for p in PARAGRAPHS if p not in table]
    assert not missing, f"docs/coverage.md lacks rows for {missing}"
    for p in PARAGRAPHS:
        assert table[p]["status"] in STATUSES, f"{p}: status {table[p]['status']!r}"
        if table[p]["status"] != "decided":
            assert len(table[p]["where"]) > 10 or len(table[p]["subject"]) > 10, f"{p}: give the reason"


def _names(cell: str) -> list[str]:
    return [x.strip(" `") for x in re.split(r"[,;]|<br>", cell) if x.strip(" `")]


def test_decided_rows_name_functions_that_exist() -> None:
    for p, row in rows().items():
        if row["status"] != "decided":
            continue
        names = _names(row["where"])
        assert names, f"{p}: a decided row must name the function(s) deciding it"
        for name in names:
            module, _, attrs = name.partition(".")
            obj = importlib.import_module(f"asl_terrain.{module}")
            for part in attrs.split("."):
                assert hasattr(obj, part), f"{p}: {name} does not exist"
                obj = getattr(obj, part)


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def test_decided_rows_name_tests_that_exist() -> None:
    cache: dict[Path, set[str]] = {}
    for p, row in rows().items():
        if row["status"] != "decided":
            continue
        tests = _names(row["tests"])
        assert tests, f"{p}: a decided row must name its tests"
        for t in tests:
            file, _, name = t.partition("::")
            path = ROOT / "tests" / file
            assert path.is_file(), f"{p}: test file {file} does not exist"
            names = cache.setdefault(path, _test_names(path))
            assert name in names, f"{p}: test {t} does not exist"


def test_every_rule_the_chart_cites_is_in_the_document() -> None:
    text = DOC.read_text()
    cited = {rule for _, _, rule, _ in default_chart().all_values()}
    missing = sorted(r for r in cited if r not in text)
    assert not missing, f"rules cited by the terrain chart but absent from docs/coverage.md: {missing}"
