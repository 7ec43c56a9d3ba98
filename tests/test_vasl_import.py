"""Importing VASL boards as maps (``import-vasl``), layouts of several boards, and the map-format extension
that names a map's artwork (``[depiction]``, docs/map-format-extensions.md).

The tests that read real boards need the VASL data directory (``../shared/vasl`` beside the repository,
or ``$ASL_TERRAIN_VASL``) and are skipped, saying so, when it is absent. The map-format tests need no data.
"""

from __future__ import annotations

import struct
import tomllib
from pathlib import Path

import pytest

from asl_terrain import vasl
from asl_terrain.errors import MapError, UnknownLocation
from asl_terrain.grid import Hex
from asl_terrain.model import Map

DATA = vasl.vasl_data_dir()
needs_vasl = pytest.mark.skipif(
    DATA is None or not (DATA / "boards" / "bd01").is_file(),
    reason="the VASL data (boards/, SharedBoardMetadata.xml) is not found: set ASL_TERRAIN_VASL or put it in "
           "../shared/vasl beside the repository",
)


def _base(**extra: object) -> dict[str, object]:
    d: dict[str, object] = {"format": "asl-terrain/1", "name": "t", "columns": ["A", "MMM"], "rows": [0, 10]}
    d.update(extra)
    return d


# ------------------------------------------------------------------------------ the format extension (no data)


def test_depiction_table_loads_and_board_prefixes_name_hexes() -> None:
    """A map whose [depiction] places board 1 at column 0 and board 2 at column 32 accepts "2A5" (the
    second board's A5, the map's GG5) beside the map's own names."""
    m = Map.from_data(_base(depiction={"kind": "vasl", "board": [
        {"archive": "bd01", "prefix": "1", "column": 0, "row": 0},
        {"archive": "bd02", "prefix": "2", "column": 32, "row": 0},
    ]}))
    assert m.depiction.follows_artwork
    assert [b.prefix for b in m.depiction.boards] == ["1", "2"]
    assert m.parse_hex("2A5") == Hex.parse("GG5")
    assert m.parse_hex("2B0") == Hex.parse("HH0")
    assert m.parse_hex("1Y10") == Hex.parse("Y10")
    assert m.parse_location("2C3").hex == Hex.parse("II3")
    with pytest.raises(UnknownLocation, match="not on board 2"):
        m.parse_hex("2HH5")
    with pytest.raises(UnknownLocation, match="board prefixes: 1, 2"):
        m.parse_hex("3A5")


def test_map_without_depiction_is_whole_hex() -> None:
    """Hand-made maps keep whole-hex depiction: no [depiction], or kind = "whole-hex"."""
    assert not Map.from_data(_base()).depiction.follows_artwork
    m = Map.from_data(_base(depiction={"kind": "whole-hex"}))
    assert m.depiction.kind == "whole-hex" and not m.depiction.follows_artwork


@pytest.mark.parametrize("board, words", [
    ({"archive": "bd01", "column": 1}, "offsets must be even"),
    ({"archive": "bd01", "column": 40}, "does not fit the map"),
    ({"archive": "bd01", "prefix": "x1"}, "prefix"),
    ({"archive": "", "column": 0}, "archive"),
    ({"archive": "bd01", "colour": 2}, "unknown key"),
])
def test_bad_depiction_boards_are_refused_with_the_key(board: dict[str, object], words: str) -> None:
    with pytest.raises(MapError, match=words):
        Map.from_data(_base(depiction={"kind": "vasl", "board": [board]}))


def test_vasl_depiction_needs_a_board_and_unique_prefixes() -> None:
    with pytest.raises(MapError, match="at least one"):
        Map.from_data(_base(depiction={"kind": "vasl"}))
    with pytest.raises(MapError, match="already used"):
        Map.from_data(_base(depiction={"kind": "vasl", "board": [
            {"archive": "a", "prefix": "1"}, {"archive": "b", "prefix": "1", "column": 32}]}))


def test_parse_layout() -> None:
    assert vasl.parse_layout("bd01,bd02;bd03, bd04") == [["bd01", "bd02"], ["bd03", "bd04"]]
    with pytest.raises(MapError, match="layout"):
        vasl.parse_layout("bd01,,bd02")


def test_map_toml_round_trips() -> None:
    """The importer's TOML writer: what it writes, tomllib reads back unchanged."""
    from asl_terrain.cli.vasl import map_toml

    data = {"format": "asl-terrain/1", "name": 'Board "01"', "prefix": "1", "columns": ["A", "GG"], "rows": [0, 10],
            "hex": [{"at": [f"A{i}" for i in range(1, 40)], "terrain": "woods", "level": 2}],
            "hexside": [{"at": ["A1-B1"], "wall": True}],
            "depiction": {"kind": "vasl", "board": [{"archive": "../x/bd01", "prefix": "1", "column": 0, "row": 0}]}}
    text = map_toml(data, ["a note", "  - another"])
    assert text.startswith("# a note\n#   - another\n")
    assert tomllib.loads(text) == data


def test_png_writer() -> None:
    import numpy as np

    img = np.zeros((3, 5, 4), dtype=np.uint8)
    img[..., 0] = 255
    img[..., 3] = 255
    png = vasl._png(img)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (5, 3)


# ------------------------------------------------------------------------------ real boards


@needs_vasl
def test_single_board_keeps_its_number_as_prefix() -> None:
    """A single board keeps its board number as the map's prefix: bd01's Y10 is 1Y10."""
    r = vasl.import_boards(["bd01"])
    m = Map.from_data(r.map)
    assert m.prefix == "1"
    assert m.parse_hex("1Y10") == Hex.parse("Y10")
    assert r.map["depiction"] == {"kind": "vasl", "board": [
        {"archive": "bd01", "prefix": "1", "column": 0, "row": 0, "columns": 33, "rows": 10}]}
    assert [b.archive_name for b, *_ in r.placements] == ["bd01"]


@needs_vasl
def test_board_prefixes_from_board_names() -> None:
    assert vasl.board_prefix(vasl.read_board("bd01")) == "1"
    assert vasl.board_prefix(vasl.read_board("bdBFPL")) == "Bfpl"


@needs_vasl
def test_a2_2_side_by_side_boards_merge_their_half_hexes() -> None:
    """bd01 beside bd02: bd01's GG half hexes and bd02's A half hexes form one column (A2.2), so the
    map has 33 + 33 - 1 columns and bd02's A5 is the map's GG5, its terrain read from both halves."""
    r = vasl.import_boards(["bd01", "bd02"], layout="bd01,bd02")
    m = Map.from_data(r.map)
    assert (m.grid.col_first, m.grid.col_last) == (0, 64)
    assert [(b.column, b.row, b.prefix) for b in m.depiction.boards] == [(0, 0, "1"), (32, 0, "2")]
    assert m.parse_hex("2A5") == m.parse_hex("1GG5") == Hex.parse("GG5")
    bd01, bd02 = (b for b, *_ in r.placements)
    raster = vasl.ArtworkRaster([(b, dc, dr) for b, dc, dr, _ in r.placements])
    step = 32  # a depiction code is feature * 32 + elevation + 8
    for y in range(0, 645, 43):  # the merged column's pixels come from both boards, unchanged
        assert raster.decode(raster.code_at(1799, y))[1] == bd01.elevation_at(1799, y)
        assert raster.decode(raster.code_at(1800, y))[1] == bd02.elevation_at(0, y)
        assert raster.code_at(1800, y) // step == raster.code_at(1800 + 0, y) // step
    assert raster.hex_codes(32, 5) >= {raster.code_at(1790, 290), raster.code_at(1810, 290)}
    assert sum(1 for blk in r.map["hex"] for h in blk["at"] if h == "GG5") <= 1


@needs_vasl
def test_a2_2_stacked_boards_merge_their_half_hexes() -> None:
    """bd01 above bd03: bd03's row 0 half hexes are bd01's row 10 ones: 3B0 is the map's B10."""
    r = vasl.import_boards(["bd01", "bd03"], layout="bd01;bd03")
    m = Map.from_data(r.map)
    assert (m.grid.row_first, m.grid.row_last) == (0, 20)
    assert m.parse_hex("3B0") == Hex.parse("B10")
    assert m.parse_hex("3A1") == Hex.parse("A11")
    assert not m.terrain(Hex.parse("A11")).offboard
    assert m.terrain(Hex.parse("A0")).offboard


@needs_vasl
def test_layout_names_unknown_board() -> None:
    with pytest.raises(MapError, match="bd09"):
        vasl.import_boards(["bd01"], layout="bd01,bd09")


@needs_vasl
def test_import_vasl_command_writes_a_map_that_loads(tmp_path: Path) -> None:
    """The CLI writes TOML that loads, names the archive relative to the map file, and lists what it
    could not carry on stderr and in the comment block at the top."""
    from typer.testing import CliRunner

    import asl_terrain.cli.vasl  # noqa: F401  (registers the commands)
    from asl_terrain.cli import app

    assert DATA is not None
    out = tmp_path / "bd02.toml"
    res = CliRunner().invoke(app, ["import-vasl", str(DATA / "boards" / "bd02"), "-o", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Imported from VASL board archive bd02")
    # issue 11: bd02's cliffs are carried now; its edge roads along a hexside are still left out
    assert "# Not carried" in text and "Road along a hexside (a Narrow Street only under KGP P5.1): 2 hexsides" in text
    assert "Road along a hexside" in res.output  # stderr is mixed into the output by the runner
    assert "cliff = true" in text
    m = Map.load(out)
    assert any(line.startswith("Road along a hexside") for line in m.not_carried)
    assert m.prefix == "2" and m.depiction.follows_artwork
    archive = m.depiction.boards[0].archive
    assert (out.parent / archive).resolve() == (DATA / "boards" / "bd02").resolve()
    assert vasl.load_artwork(m.depiction).archives[0][0].archive_name == "bd02"


@needs_vasl
def test_artwork_picture_covers_the_rendered_extent() -> None:
    """The board picture spans exactly what render.map_svg draws: from column A's W vertex to GG's E
    vertex (1875 board pixels) and from A0's top to B10's bottom (741.75 board pixels)."""
    r = vasl.import_boards(["bd01"])
    png = vasl.artwork_png([(b, dc, dr) for b, dc, dr, _ in r.placements], (0, 32), (0, 10), scale=1.0)
    w, h = struct.unpack(">II", png[16:24])
    assert (w, h) == (1875, 742)


def test_missing_archive_fails_the_los_ruling_not_the_map(tmp_path: Path) -> None:
    """A map whose artwork cannot be found still loads (movement, TEM, set-up need no artwork); a LOS
    ruling on it is a MapError naming the archive, never a silent whole-hex answer."""
    from asl_terrain.los import los

    m = Map.from_data(_base(columns=["A", "GG"], depiction={"kind": "vasl", "board": [
        {"archive": str(tmp_path / "no-such-board"), "prefix": "1"}]}))
    assert m.terrain(Hex.parse("C3")).terrain == "open"
    with pytest.raises(MapError, match="no-such-board"):
        los(m, m.parse_location("A1"), m.parse_location("C3"))


@needs_vasl
def test_imported_board_renders_with_its_artwork_and_answers_every_engine(tmp_path: Path) -> None:
    """Issue 6: an imported board is drawn on its artwork (render, los -o) and answers movement, LOS and
    TEM rulings like any map."""
    from typer.testing import CliRunner

    from asl_terrain import effects, los, movement
    from asl_terrain.cli import app

    assert DATA is not None
    out = tmp_path / "bd01.toml"
    runner = CliRunner()
    assert runner.invoke(app, ["import-vasl", str(DATA / "boards" / "bd01"), "-o", str(out)]).exit_code == 0
    svg = tmp_path / "bd01.svg"
    res = runner.invoke(app, ["render", str(out), "-o", str(svg)])
    assert res.exit_code == 0, res.output
    assert "data:image/png;base64," in svg.read_text()
    res = runner.invoke(app, ["los", str(out), "1C5", "1X6", "-o", str(tmp_path / "los.svg")])
    assert res.exit_code == 0, res.output
    assert "data:image/png;base64," in (tmp_path / "los.svg").read_text()
    m = Map.load(out)
    at = m.parse_location
    assert movement.move_cost(m, "infantry", at("1C5"), at("1C6")).allowed
    assert not los.los(m, at("1C5"), at("1X6")).clear
    assert effects.tem(m, at("1F5"), [at("1F8")]).to_json()["kind"] == "tem"


@needs_vasl
def test_import_vasl_progress_bar_only_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 13: importing a layout draws a bar on stderr when it is a terminal, never on stdout."""
    import io

    from rich.console import Console
    from typer.testing import CliRunner

    import asl_terrain.cli.vasl  # noqa: F401  (registers the commands)
    from asl_terrain.cli import app
    from asl_terrain.cli import progress as P

    for terminal in (False, True):
        buf = io.StringIO()
        monkeypatch.setattr(P, "err_console", Console(file=buf, force_terminal=terminal, width=100))
        out = tmp_path / f"two-{terminal}.toml"
        res = CliRunner().invoke(app, ["import-vasl", "bd01", "bd02", "--layout", "bd01,bd02", "-o", str(out)])
        assert res.exit_code == 0, res.output
        assert ("import-vasl (steps)" in buf.getvalue()) == terminal
        assert "(steps)" not in res.output and Map.load(out).depiction.follows_artwork
