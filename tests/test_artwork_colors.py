"""The colour-table importer (asl_terrain.artwork_colors): terrain read from a board's artwork colours.

It is measured first where the truth is known: on the LOSData boards bd01-bd05, read from their pictures
and colour tables only (their LOSData taken out of the archive), it must agree with VASL's LOSData on
>= 98 % of pixels, and the LOS engine on the two imports on >= 99 % of hex pairs. The tests reading
../shared/vasl skip, saying so, when it is absent.
"""

from __future__ import annotations

import random
import zipfile
from pathlib import Path

import numpy as np
import pytest

from asl_terrain import artwork_colors as ac
from asl_terrain import vasl
from asl_terrain.errors import MapError
from asl_terrain.los import los
from asl_terrain.model import Map

DATA = vasl.vasl_data_dir()
needs_vasl = pytest.mark.skipif(
    DATA is None or not (DATA / "boards" / "bd01").exists(),
    reason="needs the VASL board archives (../shared/vasl beside the repository, or $ASL_TERRAIN_VASL)",
)


def _table() -> vasl.TerrainTable:
    def t(code: int, name: str, cat: str = "OPEN", inherent: bool = False) -> vasl.TerrainType:
        return vasl.TerrainType(code, name, cat, 0, False, False, False, inherent, False, False, 0.0, (0, 0, 0))

    types = {0: t(0, "Open Ground"), 1: t(1, "Woods", "WOODS"), 2: t(2, "Gully", "DEPRESSION"),
             3: t(3, "Paved Road", "ROAD"), 4: t(4, "Orchard", "OTHER", True)}
    colors = {"Level0": vasl.PaletteColor("Level0", (10, 20, 30), "Open Ground", 0)}
    return vasl.TerrainTable(types, colors, "synthetic")


def test_colors_table_lines_and_comments() -> None:
    text = "// a comment\nLevel1  72,85,50\nOrchL2 32, 92 ,32 // trees\n\nnot a colour\n"
    assert ac.parse_colors_table(text) == {"Level1": (72, 85, 50), "OrchL2": (32, 92, 32)}


@pytest.mark.parametrize(("name", "terrain", "level"), [
    ("Level7", "Open Ground", 7),
    ("Level_1", "Open Ground", -1),
    ("L5Crestline", "Open Ground", 5),
    ("PavedRdL9", "Paved Road", 9),
    ("OrchL_1", "Orchard", -1),
    ("StoneBldg7", "Stone Building", None),
    ("WoodsBlack", "Woods", None),
    ("MapNoteBlack", None, None),
])
def test_colour_names_by_their_pattern(name: str, terrain: str | None, level: int | None) -> None:
    m = ac.meaning_of_name(name, (1, 2, 3), _table())
    assert (m.terrain, m.elevation) == (terrain, level)


def test_classify_fills_labels_and_levels_from_the_neighbours() -> None:
    """A grid line (no terrain) takes its neighbours' terrain; a road (no level) the ground's level; a
    gully's floor is a level below the ground it is cut into."""
    table = _table()
    palette = np.array([(10, 20, 30), (0, 0, 0), (200, 200, 200), (5, 5, 5), (9, 9, 9)])
    meanings = {
        (10, 20, 30): ac.ColourMeaning("Level2", (10, 20, 30), "Open Ground", 2),
        (0, 0, 0): ac.ColourMeaning("Black", (0, 0, 0), None, None),
        (200, 200, 200): ac.ColourMeaning("PavedRd", (200, 200, 200), "Paved Road", None),
        (5, 5, 5): ac.ColourMeaning("Gully", (5, 5, 5), "Gully", None),
    }
    idx = np.zeros((12, 6), dtype=np.uint8)
    idx[5, :] = 1  # a grid line
    idx[8, :] = 2  # a road
    idx[2, 2] = 3  # a gully pixel
    idx[10, 3] = 4  # a colour nobody names
    r = ac.classify(idx, palette, meanings, table)
    assert (r.terrain[5, :] == 0).all() and (r.elevation[5, :] == 2).all()
    assert (r.terrain[8, :] == 3).all() and (r.elevation[8, :] == 2).all()
    assert r.terrain[2, 2] == 2 and r.elevation[2, 2] == 1
    assert r.unclassified == [((9, 9, 9), 1)] and "9,9,9" in r.report()[0]


def test_grid_found_from_centre_dots() -> None:
    """Centre dots (a white plus in a dark ring) drawn at VASL's hex centres with A1 at (37, 32): the fit
    finds that origin and VASL's hex size, and checks it against the data file."""
    w, h = 700, 400
    idx = np.zeros((w, h), dtype=np.uint8)
    palette = np.array([(60, 80, 50), (255, 255, 255)])
    for col in range(12):
        for row in range(0, 7):
            x = int(37 + 56.25 * col)
            y = int(32 + 64.5 * (row - 1) + (32.25 if col % 2 else 0))
            if 3 <= x < w - 3 and 3 <= y < h - 3:
                for dx, dy in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
                    idx[x + dx, y + dy] = 1
    fit = ac.find_grid(idx, palette, (37, 32))
    assert abs(fit.x0 - 37) < 1 and abs(fit.y0 - 32) < 1
    assert abs(fit.dx - 56.25) < 0.1 and abs(fit.dy - 64.5) < 0.1 and fit.check() == []
    wrong = ac.find_grid(idx, palette, (0, 32))
    assert any("x0" in p for p in wrong.check()) or wrong.dots < 20


def test_no_picture_and_no_losdata_is_a_clear_error(tmp_path: Path) -> None:
    bare = tmp_path / "bdXX"
    with zipfile.ZipFile(bare, "w") as z:
        z.writestr("data", "version 1\n")
    with pytest.raises(MapError, match="no LOSData and no board picture"):
        vasl.read_board(bare)


# ------------------------------------------------------------------------------ measured where truth is known


def _without_losdata(board: str, tmp_path: Path) -> Path:
    assert DATA is not None
    out = tmp_path / board
    with zipfile.ZipFile(DATA / "boards" / board) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.namelist():
            if item != "LOSData":
                dst.writestr(item, src.read(item))
    return out


@needs_vasl
@pytest.mark.parametrize("board", ["bd01", "bd02", "bd03", "bd04", "bd05"])
def test_colours_agree_with_losdata_on_98_percent_of_pixels(board: str, tmp_path: Path) -> None:
    truth = vasl.read_board(board)
    colour = vasl.read_board(_without_losdata(board, tmp_path))
    assert isinstance(colour, ac.ColourBoard) and colour.geometry == truth.geometry
    both = (colour.terrain == truth.terrain) & (colour.elevation == truth.elevation)
    assert both.mean() >= 0.98, f"{board}: {both.mean():.4f} of pixels agree"
    assert colour.grid.check() == []


@needs_vasl
@pytest.mark.parametrize("board", ["bd01", "bd02", "bd03", "bd04", "bd05"])
def test_los_on_the_colour_import_agrees_on_99_percent_of_pairs(board: str, tmp_path: Path) -> None:
    """1500 random pairs of hex centres: LOS on the import read from colours vs the import from LOSData."""
    path = _without_losdata(board, tmp_path)
    truth = Map.from_data(vasl.import_boards([board]).map)
    colour = Map.from_data(vasl.import_boards([path], archive_refs={board: str(path)}).map)
    hexes = [h.name for h in truth.hexes() if not truth.terrain(h).offboard]
    rng = random.Random(15)
    pairs = [tuple(rng.sample(hexes, 2)) for _ in range(1500)]
    agree = sum(
        los(truth, truth.parse_location(a), truth.parse_location(b)).clear
        == los(colour, colour.parse_location(a), colour.parse_location(b)).clear
        for a, b in pairs
    )
    assert agree / len(pairs) >= 0.99, f"{board}: LOS agrees on {agree} of {len(pairs)} pairs"


@needs_vasl
@pytest.mark.parametrize(("board", "origin", "size"), [
    ("bdST", (0, 32), (45, 56)), ("bdCH", (37, 32), (46, 28)), ("bdLG", (0, 31), (45, 57))])
def test_kgp_grid_found_and_checked(board: str, origin: tuple[int, int], size: tuple[int, int]) -> None:
    """The KGP maps' grids: VASL's hex size, the data file's origin where it gives one (bdCH: x0 37),
    found again from the centre dots; the size in hexes from the picture."""
    b = vasl.read_board(board)
    assert isinstance(b, ac.ColourBoard)
    g = b.grid
    assert g.check() == [] and g.dots > 500
    assert abs(g.x0 - origin[0]) <= 1 and abs(g.y0 - origin[1]) <= 1
    assert (b.geometry.width, b.geometry.height) == size


@needs_vasl
def test_a_users_annotation_file_replaces_the_bundled_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$ASL_TERRAIN_ANNOTATIONS/st.toml replaces the bundled annotation of bdST: here it says StMM10 is no
    ford (the bundled file says it is, P4.3 EX)."""
    if not (DATA / "boards" / "bdST").exists():  # type: ignore[operator]
        pytest.skip("needs VASL's bdST archive")
    bundled = ac.annotation_file("bdST")
    assert bundled is not None and "kgp" in str(bundled)
    text = bundled.read_text(encoding="utf-8").replace("at = [\"MM10\"]\nford = true", "at = [\"MM10\"]\nford = false")
    (tmp_path / "st.toml").write_text(text, encoding="utf-8")
    monkeypatch.setenv("ASL_TERRAIN_ANNOTATIONS", str(tmp_path))
    assert ac.annotation_file("bdST") == tmp_path / "st.toml"
    m = Map.from_data(vasl.import_boards(["bdST"]).map)
    assert not m.terrain(m.parse_hex("MM10")).ford
    monkeypatch.delenv("ASL_TERRAIN_ANNOTATIONS")
    assert ac.annotation_file("bdST") == bundled


@needs_vasl
def test_the_colour_cache_is_keyed_by_the_code_and_the_pixels_annotation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk cache of an archive's reading is keyed by asl_terrain.cache's code stamp (a change in the
    reader never serves a stale raster), by the annotation's parts that change pixels ([[color]],
    [[terrain_fix]], ...) and not by its map blocks (a new [[hex]] entry keeps the cached reading)."""
    from asl_terrain import cache

    archive = DATA / "boards" / "bdCH"  # type: ignore[operator]
    if not archive.exists():
        pytest.skip("needs VASL's bdCH archive")
    ann = ac.load_annotation(ac.annotation_file("bdCH"))  # type: ignore[arg-type]
    table = vasl.load_terrain_table()
    k = ac._cache_key(archive, ann, table)
    assert k is not None
    assert ac._cache_key(archive, {**ann, "hex": [*ann["hex"], {"at": ["A1"], "level": 3}]}, table) == k
    assert ac._cache_key(archive, {**ann, "color": ann["color"][1:]}, table) != k
    monkeypatch.setattr(cache, "code_stamp", lambda: "another version of the code")
    assert ac._cache_key(archive, ann, table) != k


@needs_vasl
def test_a_board_without_walls_in_its_annotation_has_none_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    """B9: a colour-read board whose annotation gives no [walls] colours has no wall hexsides, known without
    decoding its picture again or asking the cache (only the KGP annotations draw walls)."""
    b = vasl.read_board(_without_losdata("bd02", tmp_path))
    assert isinstance(b, ac.ColourBoard) and not b.annotation.get("walls")

    def no(*args: object, **kwargs: object) -> None:
        raise AssertionError("read the picture or the cache for a board without [walls]")

    b._walls = None
    monkeypatch.setattr(b, "_picture", no)
    monkeypatch.setattr(b, "_cached_sides", no)
    monkeypatch.setattr(b, "_keep_sides", no)
    assert b.walls == {}
