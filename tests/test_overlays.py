"""VASL overlays laid on a board (asl_terrain.overlays): placement as VASL does it, and the terrain under
them changed for every rule (the import's hexes and the artwork LOS follows). Tests reading
../shared/vasl skip, saying so, when it is absent."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from asl_terrain import artwork_colors as ac
from asl_terrain import overlays as ov
from asl_terrain import vasl
from asl_terrain.cli import app
from asl_terrain.errors import MapError
from asl_terrain.los import los
from asl_terrain.model import Map

DATA = vasl.vasl_data_dir()
needs_vasl = pytest.mark.skipif(
    DATA is None or not (DATA / "overlays" / "ovr1").exists() or not (DATA / "boards" / "bd01").exists(),
    reason="needs VASL's bd01 and ovr1 archives (../shared/vasl beside the repository)",
)


def test_placement_text_is_vasls_order() -> None:
    p = ov.parse_placement("ovr1 F5 F4")
    assert (p.archive, p.hex1, p.hex2) == ("ovr1", "F5", "F4") and str(p) == "ovr1 F5 F4"
    assert ov.parse_placement("ovrX1 g3").hex2 == "G3"
    with pytest.raises(MapError, match="ARCHIVE HEX1"):
        ov.parse_placement("ovr1")


@pytest.mark.parametrize(("hex1", "hex2", "o"), [
    ("F5", "F5", "a"), ("F5", "F4", "a"), ("F5", "F6", "d"),
    ("F5", "G5", "b"), ("F5", "G6", "c"), ("F5", "E6", "e"), ("F5", "E5", "f")])
def test_orientation_from_where_hex2_lies(hex1: str, hex2: str, o: str) -> None:
    """VASL's orientation letters: hex2 above hex1 (or the same hex) a, below d; to the right b (higher)
    or c; to the left e or f (higher)."""
    assert ov.orientation(hex1, hex2) == o


def _dots(board: vasl.BoardArchive) -> np.ndarray:
    from PIL import Image

    im = Image.open(io.BytesIO(board.image_bytes()))
    return ac._dot_centres(np.asarray(im).T, np.array(im.getpalette()).reshape(-1, 3))


@needs_vasl
@pytest.mark.parametrize("place", ["ovr1 F5 F4", "ovr1 F5 F6"])
def test_overlay_grid_lands_on_the_boards_grid(place: str) -> None:
    """Laid as VASL lays it, the overlay's printed centre dots fall on the board's hex centres."""
    board = vasl.read_board("bd01")
    laid = ov.lay_overlays(board, [place])
    dots = _dots(laid)
    centres = np.array([board.geometry.centre_exact(c, r) for c, r in board.geometry.hexes])
    d = np.min(np.hypot(dots[:, None, 0] - centres[None, :, 0], dots[:, None, 1] - centres[None, :, 1]), axis=1)
    assert len(dots) > 200 and float(d.max()) <= 2.0


@needs_vasl
def test_overlay_terrain_replaces_the_boards_under_it() -> None:
    """Every pixel of the laid overlay's opaque area holds the overlay's own reading of its picture."""
    from PIL import Image

    board = vasl.read_board("bd01")
    laid = ov.lay_overlays(board, ["ovr1 F5 F4"])
    o = ov.read_overlay("ovr1")
    im = Image.open(io.BytesIO(o.read("ovr1a.gif")))
    idx = np.asarray(im).T
    opaque = idx != im.info["transparency"]
    left, top = (int(v) for v in laid.laid[0].split("pixel (")[1].rstrip(")").split(", "))
    w, h = min(idx.shape[0], board.grid_width - left), min(idx.shape[1], board.grid_height - top)
    opaque = opaque[:w, :h]
    under = laid.terrain[left:left + w, top:top + h]
    before = board.terrain[left:left + w, top:top + h]
    assert (under[~opaque] == before[~opaque]).all()
    assert (under[opaque] != before[opaque]).mean() > 0.05  # the overlay changed what lies there


@needs_vasl
def test_import_vasl_overlay_changes_the_rulings(tmp_path: Path) -> None:
    """`import-vasl --overlay`: the hexes under the overlay take its terrain, the map's depiction names the
    overlay, and LOS follows the overlay's artwork: 1F5-1F9 is blocked by woods at 1F6, not by the
    board's building."""
    out = tmp_path / "o.toml"
    r = CliRunner().invoke(app, ["import-vasl", "bd01", "--overlay", "ovr1 F5 F4", "-o", str(out)])
    assert r.exit_code == 0, r.output
    m = Map.load(out)
    assert m.depiction is not None and m.depiction.boards[0].overlays == ("ovr1 F5 F4",)
    assert m.terrain(m.parse_hex("F6")).terrain == "woods"
    x = los(m, m.parse_location("F5"), m.parse_location("F9"))
    assert not x.clear and x.blocked_by is not None and "woods" in x.explain()
    plain = Map.from_data(vasl.import_boards(["bd01"]).map)
    assert plain.terrain(plain.parse_hex("F6")).terrain == "building"
    with pytest.raises(Exception, match="no board 'bd09'"):
        raise CliRunner().invoke(app, ["import-vasl", "bd01", "--overlay", "bd09:ovr1 F5 F4", "-o",
                                       str(tmp_path / "x.toml")]).exception or AssertionError("no error")


@needs_vasl
def test_a_saved_games_overlay_is_laid(tmp_path: Path) -> None:
    """A VASL save whose board record lays overlay 1 (``OVR 1 F5 F4``): the import lays it like
    ``--overlay "ovr1 F5 F4"`` (the saved-games issue lists the save's overlays; this consumes them)."""
    from asl_terrain import vsav

    assert DATA is not None
    src = DATA / "games" / "The Streets Of Stalingrad (Scenario C).vsav"
    if not src.exists():
        pytest.skip("needs the saved game The Streets Of Stalingrad (Scenario C).vsav")
    stream = vsav.read_stream(src)
    board = vsav.read_save(src).boards[0]
    record = f"\t{board.version}\t" if board.version else None
    assert record is not None and f"VER{record}" in stream
    out = tmp_path / "with-overlay.vsav"
    vsav.write_save(out, stream.replace(f"VER{record}", f"VER{record}OVR\t1\tF5\tF4\t", 1), like=src)
    assert vsav.read_save(out).boards[0].overlays == (("1", "F5", "F4"),)
    r = vsav.import_save(out)
    m = Map.from_data(r.map)
    assert m.depiction is not None and m.depiction.boards[0].overlays == ("ovr1 F5 F4",)
    assert m.terrain(m.parse_hex("F6")).terrain == "woods"
    assert not any("overlay" in line for line in r.unsupported)


# ------------------------------------------------------------------------------------ a board's own SSR images


def _road_hexsides(m: Map) -> set[str]:
    return {t.hexside.name for h in m.hexes() for t in m.hexsides_of(h) if t.road is not None}


def test_ssr_image_placement_text() -> None:
    p = ov.parse_placement("SSR NoRoads")
    assert p.is_ssr_image and p.hex1 == "NoRoads" and str(p) == "SSR NoRoads"
    assert str(ov.parse_placement(str(p) + " NoRoads")) == "SSR NoRoads"  # as the CLI writes it back
    with pytest.raises(MapError, match="'SSR RULE'"):
        ov.parse_placement("SSR")


@needs_vasl
def test_a_boards_ssr_images_and_their_switches() -> None:
    """bd01's SSR images: NoRoads is the artwork of the no-roads switch; LightWoods and the scenario
    overlays (SSO_) have no switch here; a name the board does not have is refused, naming those it has."""
    images = dict(ov.ssr_images(vasl.read_board("bd01")))
    assert images["NoRoads"] == "no-roads" and images["LightWoods"] is None and images["SSO_32"] is None
    with pytest.raises(MapError, match="no SSR image of that name.*NoRoads"):
        ov.lay_overlays(vasl.read_board("bd01"), ["SSR NoBridges"])


@needs_vasl
def test_import_vasl_with_the_no_roads_ssr_image(tmp_path: Path) -> None:
    """`import-vasl bd01 --overlay "SSR NoRoads"`: the board's own NoRoads picture is laid where its rule
    puts it; the roads are gone from the terrain read from it (as the no-roads switch has it, B3.1), and
    the depiction names the image, so the artwork LOS follows it too."""
    out = tmp_path / "noroads.toml"
    r = CliRunner().invoke(app, ["import-vasl", "bd01", "--overlay", "SSR NoRoads", "-o", str(out)])
    assert r.exit_code == 0, r.output
    m = Map.load(out)
    assert m.depiction is not None and m.depiction.boards[0].overlays == ("SSR NoRoads",)
    plain = Map.from_data(vasl.import_boards(["bd01"]).map)
    assert len(_road_hexsides(plain)) >= 20 and _road_hexsides(m) == set()
    assert _road_hexsides(plain.with_ssr(["no-roads"])) == set()  # the switch agrees with its picture
    x = los(m, m.parse_location("A1"), m.parse_location("B1"))  # the depiction lays the image again
    assert x.clear
    laid = ov.lay_ssr_images(vasl.read_board("bd01"), ["no-roads", "woods-as-brush"])
    assert laid.laid == ["SSR NoRoads (picture 1_NoRoads.gif at pixel (1, 1))"]  # type: ignore[attr-defined]


@needs_vasl
def test_conditions_ssr_lays_the_boards_ssr_image_by_itself() -> None:
    """A map with ``[conditions] ssr = ["no-roads"]`` on bd01's artwork reads the board with its NoRoads
    image laid, as `import-vasl --overlay "SSR NoRoads"` does: the same pixels under every thread, so the
    same LOS, and the same movement (no road hexside either way, B3.1)."""
    from asl_terrain.movement import move_cost
    from asl_terrain.vasl import map_artwork

    data = vasl.import_boards(["bd01"]).map
    switched = Map.from_data({**data, "conditions": {"ssr": ["no-roads"]}}, source="bd01, ssr no-roads")
    laid = Map.from_data(vasl.import_boards([ov.lay_overlays(vasl.read_board("bd01"), ["SSR NoRoads"])]).map,
                         source="bd01 + SSR NoRoads")
    plain = Map.from_data(data, source="bd01")
    board = map_artwork(switched).archives[0][0]
    assert getattr(board, "laid", None) == ["SSR NoRoads (picture 1_NoRoads.gif at pixel (1, 1))"]
    assert np.array_equal(board.terrain, map_artwork(laid).archives[0][0].terrain)
    assert not np.array_equal(board.terrain, map_artwork(plain).archives[0][0].terrain)
    rng = np.random.default_rng(15)
    hexes = [h.name for h in plain.hexes()]
    for _ in range(150):
        a, b = rng.choice(hexes, 2, replace=False)
        x, y = (los(m, m.parse_location(str(a)), m.parse_location(str(b))) for m in (switched, laid))
        assert (x.clear, x.to_json()["hindrance_drm"]) == (y.clear, y.to_json()["hindrance_drm"]), (a, b)
    assert _road_hexsides(switched) == _road_hexsides(laid) == set()
    for frm, to in (("F3", "G3"), ("Q5", "R5"), ("J2", "K3")):
        assert move_cost(switched, "infantry", frm, to).to_json() == move_cost(laid, "infantry", frm, to).to_json()
