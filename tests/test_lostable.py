"""LOS tables (issue 13): every ordered pair's ruling, in columns, equal to los() pair by pair."""

from __future__ import annotations

import io
import json
from pathlib import Path

import clirun
import numpy as np
import pytest

from asl_terrain.los import los, los_verdicts
from asl_terrain.lostable import FORMAT, los_table, npz_bytes, table_locations
from asl_terrain.model import Location, Map

MAP_TOML = """
format = "asl-terrain/1"
name = "table"
prefix = ""
columns = ["A", "F"]
rows = [1, 5]

[[hex]]
at = ["C3"]
terrain = "woods"

[[hex]]
at = ["D2", "D3"]
level = 1

[[hex]]
at = ["B4"]
terrain = "building"
building_type = "multi-level"
upper_levels = 1

[[hex]]
at = ["E4", "E5"]
terrain = "brush"

[[hex]]
at = ["A2"]
terrain = "orchard"

[[hexside]]
at = ["B2-C2"]
wall = true

[[counter]]
type = "smoke"
at = "F1"
strength = 2
"""


@pytest.fixture
def map_file(tmp_path: Path) -> Path:
    p = tmp_path / "table.toml"
    p.write_text(MAP_TOML, encoding="utf-8")
    return p


def test_every_pair_is_what_los_rules(map_file: Path) -> None:
    m = Map.load(map_file)
    t = los_table(m)
    locs = table_locations(m)
    n = len(locs)
    assert len(t) == n * n and t.meta["format"] == FORMAT and t.meta["pairs"] == n * n
    assert list(t.locations) == [m.name_of(loc) for loc in locs]
    cols = t.columns
    for k in range(n * n):
        i, j = int(cols["from"][k]), int(cols["to"][k])
        assert (i, j) == divmod(k, n)
        r = los(m, locs[i], locs[j], borderline=False)
        assert (bool(cols["clear"][k]), int(cols["hindrance_drm"][k]), bool(cols["blind"][k]),
                int(cols["range"][k])) == (r.clear, r.hindrance_drm, r.blind, r.range)
    assert 0 < int(cols["clear"].sum()) < n * n   # the woods, the hill and the wall block some, not all


def test_building_levels_are_added_where_a_hex_has_them(map_file: Path) -> None:
    m = Map.load(map_file)
    ground = table_locations(m)
    with_1 = table_locations(m, (0, 1))
    assert len(with_1) == len(ground) + 1 and Location(m.parse_hex("B4"), 1) in with_1
    assert table_locations(m, (1,)) == [Location(m.parse_hex("B4"), 1)]


def test_los_verdicts_are_the_plain_values_of_los(map_file: Path) -> None:
    m = Map.load(map_file)
    locs = table_locations(m, (0, 1))
    pairs = [(a, b) for a in locs[::3] for b in locs[::2]]
    for (a, b), v in zip(pairs, los_verdicts(m, pairs)):
        r = los(m, a, b, borderline=False)
        assert v == (r.clear, r.hindrance_drm, r.blind, r.range)


def test_cli_writes_an_npz_that_numpy_reads_and_jobs_give_the_same_table(map_file: Path, tmp_path: Path) -> None:
    out1, out2 = tmp_path / "one.npz", tmp_path / "two.npz"
    r = clirun.run("los-table", str(map_file), "-o", str(out1), "--jobs", "1")
    assert r.returncode == 0, r.stderr
    assert "pairs of 30 Locations" in r.stdout
    r = clirun.run("los-table", str(map_file), "-o", str(out2), "--jobs", "2", "--levels", "0")
    assert r.returncode == 0, r.stderr
    a, b = np.load(out1), np.load(out2)
    assert set(a.files) == {"locations", "meta", "from", "to", "clear", "hindrance_drm", "blind", "range"}
    for k in a.files:
        assert np.array_equal(a[k], b[k]) or k == "meta"
    meta = json.loads(str(a["meta"]))
    assert meta["locations"] == 30 and meta["columns"][:2] == ["from", "to"]
    assert a["clear"].dtype == np.bool_ and a["range"].dtype == np.int16 and a["from"].dtype == np.int32
    assert bytes(npz_bytes(los_table(Map.load(map_file))))[:2] == b"PK"   # a zip archive, as np.savez writes


def test_cli_refuses_a_bad_output_or_levels_with_one_line(map_file: Path, tmp_path: Path) -> None:
    r = clirun.run("los-table", str(map_file), "-o", str(tmp_path / "t.csv"))
    assert r.returncode == 2 and "expected a table file ending in .npz" in r.stderr
    r = clirun.run("los-table", str(map_file), "-o", str(tmp_path / "t.npz"), "--levels", "x")
    assert r.returncode == 2 and "--levels x" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    (tmp_path / "t.npz").write_bytes(b"old")
    r = clirun.run("los-table", str(map_file), "-o", str(tmp_path / "t.npz"))
    assert r.returncode == 2 and "--force" in r.stderr
    assert (tmp_path / "t.npz").read_bytes() == b"old"


def test_no_progress_bar_when_stderr_is_not_a_terminal(map_file: Path, tmp_path: Path) -> None:
    r = clirun.run("los-table", str(map_file), "-o", str(tmp_path / "t.npz"))
    assert r.returncode == 0 and r.stderr == ""
    assert io.BytesIO((tmp_path / "t.npz").read_bytes()).getbuffer().nbytes > 0


def test_a_progress_bar_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    from asl_terrain.cli import progress as P

    for terminal in (False, True):
        buf = io.StringIO()
        monkeypatch.setattr(P, "err_console", Console(file=buf, force_terminal=terminal, width=80))
        with P.progress("work", 10, "steps") as update:
            for k in range(11):
                update(k)
        assert ("work (steps)" in buf.getvalue()) == terminal


def test_ask_batches_report_progress(map_file: Path) -> None:
    from asl_terrain.ask import answer_all

    m = Map.load(map_file)
    seen: list[tuple[int, int]] = []
    queries = [{"kind": "los", "from": "A1", "to": "F5"}] * 250
    answers, status = answer_all(m, queries, progress=lambda d, t: seen.append((d, t)))
    assert status == 0 and len(answers) == 250
    assert seen == [(100, 250), (200, 250), (250, 250)]


BIG_TOML = """
format = "asl-terrain/1"
name = "big open ground"
prefix = ""
columns = ["A", "{last}"]
rows = [1, 70]

[[hex]]
at = ["J10", "J11", "K10"]
terrain = "woods"
"""


def test_a_viewshed_reports_progress_and_the_same_answer(tmp_path: Path) -> None:
    """issue 13 item 5: viewshed(progress=) is told every 1,000 Locations looked at and at the end; the answer
    is the one without it."""
    from asl_terrain.grid import column_label
    from asl_terrain.los import viewshed
    f = tmp_path / "big.toml"
    f.write_text(BIG_TOML.format(last=column_label(39)), encoding="utf-8")  # 40 x 70 hexes
    m = Map.load(f)
    a = m.parse_location("E5")
    seen: list[tuple[int, int]] = []
    with_bar = viewshed(m, a, progress=lambda d, t: seen.append((d, t)))
    total = with_bar.considered
    assert total == 40 * 70 - 1
    assert seen == [(d, total) for d in (1000, 2000, total)]
    assert with_bar.to_json() == viewshed(m, a).to_json()


def test_a_big_viewshed_shows_a_bar_only_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 13 item 5: a viewshed on a map of BIG_VIEWSHED hexes or more draws a bar on a terminal's stderr,
    none otherwise, and never on stdout."""
    from rich.console import Console
    from typer.testing import CliRunner

    import asl_terrain.cli.los as cli_los
    from asl_terrain.cli import app
    from asl_terrain.cli import progress as P
    from asl_terrain.grid import column_label

    cols = -(-cli_los.BIG_VIEWSHED // 70)
    f = tmp_path / "big.toml"
    f.write_text(BIG_TOML.format(last=column_label(cols - 1)), encoding="utf-8")
    outs = []
    for terminal in (False, True):
        buf = io.StringIO()
        monkeypatch.setattr(P, "err_console", Console(file=buf, force_terminal=terminal, width=100))
        res = CliRunner().invoke(app, ["viewshed", str(f), "E5"])
        assert res.exit_code == 0, res.output
        assert ("viewshed (Locations)" in buf.getvalue()) == terminal
        outs.append(res.output)
    assert outs[0] == outs[1] and "visible:" in outs[0] and "Locations)" not in outs[0]


def test_a_batch_runs_with_the_heap_settled_and_leaves_it_as_it_was() -> None:
    """issue 13: model.settled() freezes the heap built so far for a long batch (the collector's full passes
    skip the map) and unfreezes it after, unless it was frozen before; no automatic pass while it runs, but
    cycles made during the batch are still collected by an explicit one."""
    import gc
    import weakref

    from asl_terrain.model import settled

    class Node:
        pass

    was = gc.get_freeze_count()
    gc.unfreeze()  # from a heap nothing froze (a command run in-process before may have frozen it)
    try:
        with settled():
            assert gc.get_freeze_count() > 0 and not gc.isenabled()
            a = Node()
            a.self = a  # type: ignore[attr-defined]
            gone = weakref.ref(a)
            del a
            gc.collect()
            assert gone() is None
        assert gc.get_freeze_count() == 0 and gc.isenabled()
        gc.freeze()
        with settled():
            pass
        assert gc.get_freeze_count() > 0  # someone else's freeze is kept
    finally:
        gc.unfreeze()
        if was:
            gc.freeze()
