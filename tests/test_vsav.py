"""VASL saved games (issue 12): the obfuscated stream, the layout, flips and SSRs a save records, and the
pieces on the map, each landing in the hex VASL shows it in.

The real saves in ../shared/vasl/games are scenario set-ups: every unit waits in the margin around the
boards. The on-board tests make games from them as a player would, by moving real pieces onto hexes in
the decoded stream and encoding it again (:func:`asl_terrain.vsav.move_piece`). Pixel positions are
computed here from the board geometry in ../shared/vasl/README.md, not from the code under test. The
tests read ../shared/vasl and are skipped, saying so, when it is absent.
"""

from __future__ import annotations

import math
import re
import shutil
import zipfile
from pathlib import Path

import pytest

from asl_terrain import los, movement, setup, vsav
from asl_terrain.errors import MapError
from asl_terrain.model import Map
from asl_terrain.units import Unit

GAMES = Path(__file__).resolve().parents[2] / "shared" / "vasl" / "games"
if not GAMES.is_dir():
    GAMES = Path.cwd().parent / "shared" / "vasl" / "games"
HILL = GAMES / "Hill 621 (Scenario E).vsav"
STALINGRAD = GAMES / "The Streets Of Stalingrad (Scenario C).vsav"
FULL = GAMES / "full.vsav"
needs_games = pytest.mark.skipif(not HILL.is_file(), reason="the VASL saved games are not found in ../shared/vasl/games")


def readme_centre(col: int, row: int, board_row: int = 0) -> tuple[int, int]:
    """A hex centre in VASL's main-map pixels (the 400-pixel edge included), by ../shared/vasl/README.md:
    x = 56.25·col, y = 64.5·n − 32.25·(1 − col % 2), truncated; boards stacked 645 pixels apart."""
    return 400 + int(56.25 * col), 400 + 645 * board_row + int(64.5 * row - 32.25 * (1 - col % 2))


def _col(label: str) -> int:
    return ord(label) - ord("A")


# ------------------------------------------------------------------------------ the stream


@needs_games
@pytest.mark.parametrize("save", [HILL, STALINGRAD, FULL], ids=lambda p: p.stem)
def test_the_obfuscated_stream_decodes_and_encodes_back(save: Path) -> None:
    raw = zipfile.ZipFile(save).read("savedGame")
    text = vsav.decode_stream(raw)
    assert text.startswith("begin_save") and text.rstrip().endswith("end_save")
    key = int(raw[5:7], 16)
    assert vsav.encode_stream(text, key) == raw
    for rec in text.split("\x1b"):
        if rec.startswith("+/"):
            assert vsav.join_sequence(vsav.split_sequence(rec[2:], "/"), "/") == rec[2:]


def test_not_a_save_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.vsav"
    bad.write_bytes(b"not a zip")
    with pytest.raises(MapError, match="not a VASL saved game"):
        vsav.read_save(bad)
    with pytest.raises(MapError, match="no such saved game"):
        vsav.read_save(tmp_path / "missing.vsav")


# ------------------------------------------------------------------------------ the saves as they are


@needs_games
def test_hill_621_imports_boards_2_4_3_stacked_with_every_unit_off_the_map() -> None:
    r = vsav.import_save(HILL)
    boards = r.map["depiction"]["board"]  # type: ignore[index]
    assert [(b["archive"], b["prefix"], b["row"]) for b in boards] == [("bd02", "2", 0), ("bd04", "4", 10),
                                                                        ("bd03", "3", 20)]
    m = Map.from_data(r.map)
    units = r.map["unit"]
    assert isinstance(units, list) and len(units) == len(m.units) > 100
    assert all("at" not in u for u in units) and not r.map.get("counter")
    sides = r.offmap_by_side()
    assert set(sides) == {"German", "Russian"}
    # every piece listed off the map lies in VASL's margin, outside the boards (1800 x 3 * 645 pixels)
    for p in r.placed:
        assert not (400 <= p.piece.x < 2200 and 400 <= p.piece.y < 400 + 3 * 645), p.piece.name
    kinds = {u["kind"] for u in units}  # type: ignore[index]
    assert {"squad", "leader", "sw", "crew", "gun", "vehicle"} <= kinds


@needs_games
def test_stalingrad_imports_board_1() -> None:
    r = vsav.import_save(STALINGRAD)
    m = Map.from_data(r.map)
    assert m.prefix == "1" and m.name_of(m.parse_hex("Y10")) == "1Y10"
    assert {u.kind for u in m.units} >= {"squad", "leader", "sw", "vehicle"}


@needs_games
def test_pieces_on_the_test_save_sit_on_hex_centres() -> None:
    """full.vsav has four pieces on its board (board 00, not shared): VASL snapped each to a hex centre,
    so each lies within a pixel or two of the centre of the hex the import would name."""
    g = vsav.read_save(FULL)
    on = [p for p in g.on_main_map() if vsav.classify(p).table and 400 <= p.x < 2200 and 400 <= p.y < 1045]
    assert len(on) == 4
    for p in on:
        x, y = p.x - 400, p.y - 400
        col = round(x / 56.25)
        row = round((y + 32.25 * (1 - col % 2)) / 64.5)
        cx, cy = readme_centre(col, row)
        assert math.hypot(p.x - cx, p.y - cy) <= 2, (p.name, p.x, p.y, cx, cy)


def test_pieces_are_classified_for_the_rules() -> None:
    def piece(name: str, image: str = "", **props: str) -> vsav.Piece:
        return vsav.Piece("1", name, image, vsav.MAIN_MAP, 500, 500, dict(props))

    assert vsav.classify(piece("6-2-8 Esq")).kind == "squad"
    assert vsav.classify(piece("3-3-8 Ehs")).kind == "half-squad"
    assert vsav.classify(piece("2-2-8 Icr")).kind == "crew"
    assert vsav.classify(piece("geLDR")).kind == "leader"
    assert vsav.classify(piece("LMG", "ge/geLMG")).kind == "sw"
    assert vsav.classify(piece("T-34 M43", "ru/veh/T34M43")) == vsav.Kind("counter", "vehicle")
    assert vsav.classify(piece("T-34 M43 Wreck", "ru/veh/T34M43")) == vsav.Kind("counter", "wreck")
    assert vsav.classify(piece("Smoke")) == vsav.Kind("counter", "smoke", "smoke")
    assert vsav.classify(piece("WP")) == vsav.Kind("counter", "smoke", "wp")
    assert vsav.classify(piece("Foxhole")).kind == "entrenchment"
    assert vsav.classify(piece("Rubble")).kind == "rubble"
    assert vsav.classify(piece("10-Turn Track", "tables/turn_track10")).table == ""
    assert vsav.classify(piece("Wind", DBCounterType="global")).table == ""
    assert piece("ruLDR").nationality == "Russian"


# ------------------------------------------------------------------------------ games made by moving pieces


def _first(g: vsav.SavedGame, name: str, skip: int = 0) -> vsav.Piece:
    return [p for p in g.pieces if p.name == name][skip]


def _moved_hill(tmp_path: Path, edit_boards: str | None = None, flipped_board_4: bool = False) -> tuple[Path, dict[str, str]]:
    """Hill 621 with pieces moved onto board 4 (map rows 10-20): four Russian squads and a leader to 4K5,
    a T-34 to 4K6, an LMG to 4K5; returns the save and the ids moved."""
    g = vsav.read_save(HILL)
    stream = g.stream
    if edit_boards is not None:
        stream = re.sub(r"bd\t0\t0\t02\tVER\t6\.4\tbd\t0\t1\t04\tVER\t6\.1\t", edit_boards, stream, count=2)

    def at(hex_: str) -> tuple[int, int]:
        col, row = _col(hex_[0]), int(hex_[1:])
        if flipped_board_4:  # VASL turns a reversed board's pixels: x -> width - x, y -> height - y
            x, y = readme_centre(col, row)
            return 400 + 1800 - (x - 400), 400 + 645 + 645 - (y - 400)
        return readme_centre(col, row, board_row=1)

    moved = {}
    for i in range(4):
        p = _first(g, "6-2-8 Esq", i)
        stream = vsav.move_piece(stream, p.id, *at("K5"))
        moved[f"squad{i}"] = p.id
    for name, hex_ in (("ruLDR", "K5"), ("T-34 M43", "K6"), ("LMG", "K5")):
        p = next(q for q in g.pieces if q.name == name and q.nationality == "Russian")
        stream = vsav.move_piece(stream, p.id, *at(hex_))
        moved[name] = p.id
    out = tmp_path / "hill-moved.vsav"
    vsav.write_save(out, stream, like=HILL)
    return out, moved


@needs_games
def test_moved_pieces_land_in_the_hex_vasl_shows_them_in(tmp_path: Path) -> None:
    save, moved = _moved_hill(tmp_path)
    r = vsav.import_save(save)
    by_id = {p.piece.id: p for p in r.placed}
    for key, pid in moved.items():
        p = by_id[pid]
        assert p.hex_name == ("4K6" if key == "T-34 M43" else "4K5"), key
        assert p.off_centre is not None and p.off_centre <= 1.5
    (veh,) = [c for c in r.map["counter"] if c["type"] == "vehicle"]  # type: ignore[union-attr, index]
    assert veh == {"type": "vehicle", "at": "4K6", "name": "T-34 M43", "facing": 0}
    m = Map.from_data(r.map)
    here = m.units_at(m.parse_location("4K5"))
    assert sorted(u.kind for u in here) == ["leader", "squad", "squad", "squad", "squad", "sw"]
    assert all(u.side == "Russian" for u in here)
    # A5.1: four squads overstack a Location whose limit is three squad equivalents
    s = setup.stacking_limit(m, m.parse_location("4K5"))
    assert s.counted == 4 and s.overstacked is True
    assert "6-2-8 Esq (squad)" in s.explain() and "LMG" in s.explain()
    assert setup.stacking_limit(m, m.parse_location("4K4")).overstacked is None


@needs_games
def test_rulings_on_a_saved_game_name_hexes_by_board_and_see_its_vehicle(tmp_path: Path) -> None:
    save, _ = _moved_hill(tmp_path)
    m = Map.from_data(vsav.import_save(save).map)
    plain = m.with_counters(())
    board_name = re.compile(r"^[243][A-Z]{1,2}\d{1,2}$")
    a, b = m.parse_location("4K4"), m.parse_location("4K8")
    with_vehicle, without = los.los(m, a, b), los.los(plain, a, b)
    j = with_vehicle.to_json()
    assert (j["from"], j["to"]) == ("4K4", "4K8")
    assert all(board_name.match(h) for h in j["hexes"]) and "4K6" in j["hexes"]
    if without.clear:  # the T-34 in 4K6 is a +1 Hindrance on the thread along the K column (A6.8)
        assert with_vehicle.hindrance_drm == without.hindrance_drm + 1 or not with_vehicle.clear
        assert any(h.hex == m.parse_hex("4K6") for h in with_vehicle.hindrances)
    reach = movement.reach(m, Unit.from_json("infantry"), m.parse_location("4K5"), 2)
    assert reach.costs and all(board_name.match(n.split("/")[0].split("@")[0]) for n in reach.costs)
    from asl_terrain import effects

    tem = effects.tem(m, m.parse_location("4K5"), [m.parse_location("4K8")])
    assert "4K5" in tem.explain()


@needs_games
def test_a_flipped_board_in_a_save_keeps_its_printed_names(tmp_path: Path) -> None:
    """VASL writes a board rotated 180° as r04; a piece VASL shows in 4K5 of the turned board lands in 4K5."""
    save, moved = _moved_hill(tmp_path, edit_boards="bd\t0\t0\t02\tVER\t6.4\tbd\t0\t1\tr04\tVER\t6.1\t",
                              flipped_board_4=True)
    r = vsav.import_save(save)
    assert [b.flipped for b in r.game.boards] == [False, True, False]
    assert r.map["depiction"]["board"][1]["flipped"] is True  # type: ignore[index]
    by_id = {p.piece.id: p for p in r.placed}
    assert by_id[moved["squad0"]].hex_name == "4K5"
    assert by_id[moved["T-34 M43"]].hex_name == "4K6"
    m = Map.from_data(r.map)
    assert m.parse_hex("4A1") == m.parse_hex("GG20")  # board 4's A1 lies at the lower right of its place


@needs_games
def test_the_ssrs_a_save_records_become_switches(tmp_path: Path) -> None:
    save, _ = _moved_hill(tmp_path, edit_boards="bd\t0\t0\t02\tVER\t6.4\tSSR\tNoRoads OrchardOutOfSeason "
                                                "Winter\tbd\t0\t1\t04\tVER\t6.1\t")
    r = vsav.import_save(save)
    assert r.game.boards[0].ssr == ("NoRoads", "OrchardOutOfSeason", "Winter")
    assert r.map["conditions"]["ssr"] == ["no-roads", "orchards-out-of-season"]  # type: ignore[index]
    assert any("Winter" in line for line in r.unsupported)
    m = Map.from_data(r.map)
    assert m.conditions.ssr == ("orchards-out-of-season", "no-roads")
    assert not any(m.hexside(hs).road for h in m.hexes() for hs in h.hexsides() if hs.other(h) in m)


@needs_games
def test_a_missing_board_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = vsav.read_save(HILL)
    out = tmp_path / "nine.vsav"
    vsav.write_save(out, g.stream.replace("\tbd\t0\t2\t03\t", "\tbd\t0\t2\t99\t"), like=HILL)
    with pytest.raises(MapError, match=r"board archive bd99 not found: looked in .*--boards DIR"):
        vsav.import_save(out, boards_dir=tmp_path)


@needs_games
def test_import_vasl_command_writes_the_saved_game(tmp_path: Path) -> None:
    from clirun import run

    save, _ = _moved_hill(tmp_path)
    out = tmp_path / "hill.toml"
    res = run("import-vasl", str(save), "-o", str(out))
    assert res.returncode == 0, res.stderr
    text = out.read_text(encoding="utf-8")
    assert "Off the map (waiting to enter), by side" in text and "[[unit]]" in text
    m = Map.load(out)
    assert len(m.units_at(m.parse_location("4K5"))) == 6
    res = run("los", str(out), "4K4", "4K8", "--vehicle", "4K5")
    assert res.returncode == 0, res.stderr
    assert "4K4" in res.stdout and "4K8" in res.stdout and "vehicle in 4K5" in res.stdout
    res = run("stacking", str(out), "4K5")
    assert res.returncode == 0 and "overstacked" in res.stdout, res.stdout
    again = tmp_path / "again.toml"  # the save as the layout: the same map
    res = run("import-vasl", "--layout", str(save), "-o", str(again))
    assert res.returncode == 0, res.stderr
    assert Map.load(again).units == m.units


@needs_games
def test_an_overlay_a_save_lays_is_laid(tmp_path: Path) -> None:
    """VASL writes an overlay as OVR<TAB>name<TAB>hex1<TAB>hex2 in the board's record: overlay 1 on board 2's
    F5 (turned as F4 lies from F5) comes through, laid as the overlays module lays it, and named portably."""
    if not (GAMES.parent / "overlays" / "ovr1").is_file():
        pytest.skip("the VASL overlays are not found in ../shared/vasl/overlays")
    plain = Map.from_data(vsav.import_save(HILL).map)
    g = vsav.read_save(HILL)
    out = tmp_path / "ovr.vsav"
    vsav.write_save(out, g.stream.replace("bd\t0\t0\t02\tVER\t6.4\t", "bd\t0\t0\t02\tVER\t6.4\tOVR\t1\tF5\tF4\t"),
                    like=HILL)
    r = vsav.import_save(out)
    assert r.game.boards[0].overlays == (("1", "F5", "F4"),)
    assert r.map["depiction"]["board"][0]["overlays"] == ["ovr1 F5 F4"]  # type: ignore[index]
    assert not any("overlay" in line for line in r.unsupported)
    m = Map.from_data(r.map)
    changed = [m.name_of(h) for h in m.hexes() if m.terrain(h) != plain.terrain(h)]
    assert changed and all(n.startswith("2") for n in changed)


@needs_games
@pytest.mark.parametrize("crop, out, inside", [
    ((0, 0, 871, -1), "1Q5", "1P5"),    # VASL's "hexrows A-P": everything right of P is gone
    ((393, 0, 1407, -1), "1G5", "1H5"),  # hexrows H-GG: VASL's frame now starts at the crop's corner
])
def test_a_cropped_board_keeps_only_its_crop(tmp_path: Path, crop: tuple[int, int, int, int], out: str,
                                             inside: str) -> None:
    g = vsav.read_save(STALINGRAD)
    squad = _first(g, "4-6-8 Esq") if any(p.name == "4-6-8 Esq" for p in g.pieces) else \
        next(p for p in g.pieces if vsav.classify(p).kind == "squad")
    x, y = readme_centre(_col("K"), 5)
    stream = vsav.move_piece(g.stream, squad.id, x - crop[0], y - crop[1])  # VASL draws the crop from (0, 0)
    stream = stream.replace("bd\t0\t0\t01\tVER", "bd\t0\t0\t01\t" + "\t".join(map(str, crop)) + "\tVER", 2)
    save = tmp_path / "cropped.vsav"
    vsav.write_save(save, stream, like=STALINGRAD)
    r = vsav.import_save(save)
    assert r.game.boards[0].crop == crop
    m = Map.from_data(r.map)
    assert m.terrain(m.parse_hex(out)).offboard and not m.terrain(m.parse_hex(inside)).offboard
    (placed,) = [p for p in r.placed if p.piece.id == squad.id]
    assert placed.hex_name == "1K5" and placed.off_centre is not None and placed.off_centre <= 1.5
    assert not any("crop" in line for line in r.unsupported)


@needs_games
def test_render_draws_the_saved_game_with_board_names_and_its_counters(tmp_path: Path) -> None:
    from asl_terrain import render

    save, _ = _moved_hill(tmp_path)
    m = Map.from_data(vsav.import_save(save).map)
    svg = render.map_svg(m, size=12)
    labels = set(re.findall(r'class="hex-name"[^>]*>([^<]+)<', svg))
    assert {"2A1", "4K5", "4K6", "3GG10"} <= labels and "K15" not in labels
    assert svg.count('class="counter counter-vehicle"') == 1


@needs_games
def test_a_unit_at_a_vertex_is_in_bypass_there(tmp_path: Path) -> None:
    """VASL snaps a unit in Bypass to a vertex: a squad put on the vertex between board 4's K5, K6 and L5
    (the README geometry: K5's SE vertex; column L lies half a hex lower) is in Bypass at that vertex."""
    g = vsav.read_save(HILL)
    squad = _first(g, "6-2-8 Esq")
    x, y = readme_centre(_col("K"), 5, board_row=1)
    vx, vy = int(x + 56.25 * 2 / 3 / 2 + 0.5), int(y + 32.25 + 0.5)  # K5's SE vertex (shared with K6 and L5)
    save = tmp_path / "vertex.vsav"
    vsav.write_save(save, vsav.move_piece(g.stream, squad.id, vx, vy), like=HILL)
    r = vsav.import_save(save)
    (p,) = [q for q in r.placed if q.piece.id == squad.id]
    assert p.hex_name is not None and p.hex_name.startswith("4K5@")
    m = Map.from_data(r.map)
    (u,) = [u for u in m.units if u.at is not None]
    assert u.at is not None and u.at.vertex is not None
    assert sorted(m.name_of(h) for h in u.at.vertex.hexes) == ["4K5", "4K6", "4L5"]


@needs_games
def test_smoke_in_a_save_is_a_hindrance_where_it_lies(tmp_path: Path) -> None:
    """The shared saves hold no SMOKE counter, so one is made from a real piece definition (Hill 621's German
    Radio) by giving it the name VASL's SMOKE counters carry and putting it in 4K6: the import writes a
    SMOKE counter of the chart's strength there, and a LOS through 4K6 is hindered by it (A24)."""
    g = vsav.read_save(HILL)
    radio = next(p for p in g.pieces if p.name == "Radio")
    recs = g.stream.split("\x1b")
    k = next(i for i, r in enumerate(recs) if r.startswith(f"+/{radio.id}/"))
    recs[k] = recs[k].replace(";Radio/", ";Smoke/", 1)
    stream = vsav.move_piece("\x1b".join(recs), radio.id, *readme_centre(_col("K"), 6, board_row=1))
    save = tmp_path / "smoke.vsav"
    vsav.write_save(save, stream, like=HILL)
    r = vsav.import_save(save)
    assert {"type": "smoke", "at": "4K6", "strength": 3, "kind": "smoke"} in r.map["counter"]  # type: ignore[operator]
    m = Map.from_data(r.map)
    a, b = m.parse_location("4K4"), m.parse_location("4K8")
    with_smoke, without = los.los(m, a, b), los.los(m.with_counters(()), a, b)
    assert any(h.what.startswith("SMOKE") and m.name_of(h.hex) == "4K6" for h in with_smoke.hindrances)
    assert with_smoke.hindrance_drm >= without.hindrance_drm + 3 or not with_smoke.clear


@needs_games
def test_wire_in_a_save_lands_in_its_hex_and_changes_no_los(tmp_path: Path) -> None:
    """As for SMOKE above: Hill 621's German Radio renamed "Wire" (the name VASL's Wire counter carries) and
    moved to 4K6 becomes a wire counter there; it is no Hindrance (B26.2) and Infantry entering pays only
    the hex's COT, placed on top of the Wire (B26.4)."""
    g = vsav.read_save(HILL)
    radio = next(p for p in g.pieces if p.name == "Radio")
    recs = g.stream.split("\x1b")
    k = next(i for i, r in enumerate(recs) if r.startswith(f"+/{radio.id}/"))
    recs[k] = recs[k].replace(";Radio/", ";Wire/", 1)
    stream = vsav.move_piece("\x1b".join(recs), radio.id, *readme_centre(_col("K"), 6, board_row=1))
    save = tmp_path / "wire.vsav"
    vsav.write_save(save, stream, like=HILL)
    r = vsav.import_save(save)
    assert {"type": "wire", "at": "4K6"} in r.map["counter"]  # type: ignore[operator]
    assert not any("Wire" in line for line in r.unsupported)
    m = Map.from_data(r.map)
    assert m.has_counter(m.parse_hex("4K6"), "wire")
    bare = m.with_counters(())
    a, b = m.parse_location("4K4"), m.parse_location("4K8")
    w, o = los.los(m, a, b), los.los(bare, a, b)
    assert (w.clear, w.hindrance_drm) == (o.clear, o.hindrance_drm), w.explain()
    frm, to = m.parse_location("4K5"), m.parse_location("4K6")
    moved, plain = movement.move_cost(m, "infantry", frm, to), movement.move_cost(bare, "infantry", frm, to)
    assert moved.cost == plain.cost and "B26.4" in moved.rules(), moved.explain()


# ------------------------------------------------------------------------------ crops on a layout of boards


def _hill_with_boards(tmp_path: Path, boards: str, moves: list[tuple[str, int, int]], renames: dict[str, str] | None
                      = None) -> tuple[Path, dict[str, str]]:
    """Hill 621 with its board record replaced by ``boards`` and pieces moved to main-map pixels: each move is
    (name of a real piece, x, y), the n-th use of a name taking its n-th piece; ``renames`` gives a moved
    piece (by the move's index, as a string) another name (a real piece definition under VASL's name for
    another counter, since the shared saves hold none of those). Returns the save and the ids by move index."""
    g = vsav.read_save(HILL)
    stream = g.stream.replace("bd\t0\t0\t02\tVER\t6.4\tbd\t0\t1\t04\tVER\t6.1\tbd\t0\t2\t03\tVER\t6.3\t", boards)
    assert boards in stream
    used: dict[str, int] = {}
    ids = {}
    for i, (name, x, y) in enumerate(moves):
        p = _first(g, name, used.get(name, 0))
        used[name] = used.get(name, 0) + 1
        if renames and str(i) in renames:
            recs = stream.split("\x1b")
            k = next(j for j, r in enumerate(recs) if r.startswith(f"+/{p.id}/"))
            recs[k] = recs[k].replace(f";{name}/", f";{renames[str(i)]}/", 1)
            stream = "\x1b".join(recs)
        stream = vsav.move_piece(stream, p.id, x, y)
        ids[str(i)] = p.id
    out = tmp_path / "hill-edited.vsav"
    vsav.write_save(out, stream, like=HILL)
    return out, ids


def _board_px(col: str, row: int) -> tuple[int, int]:
    """A hex centre in a board's own pixels (the README geometry)."""
    c = _col(col)
    return int(56.25 * c), int(64.5 * row - 32.25 * (1 - c % 2))


@needs_games
def test_a_crop_on_the_top_board_of_a_stack_moves_the_boards_below_with_it(tmp_path: Path) -> None:
    """Board 2 (the top of Hill 621's stack) cropped to its hexrows 6-10 (VASL's rectangle from y = 322, 323
    pixels high): VASL draws board 4 right below the crop, 323 pixels down, and board 3 below it. A squad on
    4K5 and one on 2K7 land there; 2K5 is gone, 2K6 stays."""
    x, y = _board_px("K", 5)
    x7, y7 = _board_px("K", 7)
    save, ids = _hill_with_boards(
        tmp_path, "bd\t0\t0\t02\t0\t322\t-1\t323\tVER\t6.4\tbd\t0\t1\t04\tVER\t6.1\tbd\t0\t2\t03\tVER\t6.3\t",
        [("6-2-8 Esq", 400 + x, 400 + 323 + y), ("6-2-8 Esq", 400 + x7, 400 + y7 - 322)])
    r = vsav.import_save(save)
    assert r.game.boards[0].crop == (0, 322, -1, 323)
    assert not any("crop" in line for line in r.unsupported), r.unsupported
    by_id = {p.piece.id: p for p in r.placed}
    assert by_id[ids["0"]].hex_name == "4K5" and (by_id[ids["0"]].off_centre or 0) <= 1.5
    assert by_id[ids["1"]].hex_name == "2K7" and (by_id[ids["1"]].off_centre or 0) <= 1.5
    m = Map.from_data(r.map)
    assert m.terrain(m.parse_hex("2K5")).offboard and m.terrain(m.parse_hex("2A1")).offboard
    assert not m.terrain(m.parse_hex("2K6")).offboard and not m.terrain(m.parse_hex("4K5")).offboard
    assert not m.terrain(m.parse_hex("3K5")).offboard
    # a LOS across the crop's edge meets the offboard hexes' ground like any other: the map answers it
    assert los.los(m, m.parse_location("2K6"), m.parse_location("4K5")).to_json()["from"] == "2K6"


@needs_games
def test_a_turned_and_cropped_bottom_board_keeps_its_printed_names(tmp_path: Path) -> None:
    """Board 3 at the bottom, turned (r03) and cropped to its printed hexrows 6-10: VASL crops the board as
    printed, then turns the crop, so those rows lie at the bottom of the layout, upside down. A squad VASL
    shows on 3K8 lands in 3K8; 3K5 is gone."""
    x, y = _board_px("K", 8)
    lx, ly = 1800 - x, 323 - (y - 322)  # ASLBoard.localCoordinates, inverted: turned within the crop
    save, ids = _hill_with_boards(
        tmp_path, "bd\t0\t0\t02\tVER\t6.4\tbd\t0\t1\t04\tVER\t6.1\tbd\t0\t2\tr03\t0\t322\t-1\t323\tVER\t6.3\t",
        [("6-2-8 Esq", 400 + lx, 400 + 1290 + ly)])
    r = vsav.import_save(save)
    assert r.game.boards[2].flipped and r.game.boards[2].crop == (0, 322, -1, 323)
    assert not any("crop" in line for line in r.unsupported), r.unsupported
    (p,) = [q for q in r.placed if q.piece.id == ids["0"]]
    assert p.hex_name == "3K8" and (p.off_centre or 0) <= 1.5
    m = Map.from_data(r.map)
    assert m.terrain(m.parse_hex("3K5")).offboard and not m.terrain(m.parse_hex("3K6")).offboard
    assert not m.terrain(m.parse_hex("4K5")).offboard


@needs_games
def test_a_crop_that_moves_the_boards_out_of_line_is_applied_in_place_and_said_so(tmp_path: Path) -> None:
    """Board 4, in the middle of the stack, cropped to hexrows H-GG (from x = 393): VASL draws it flush left,
    out of line with boards 2 and 3. Here the boards keep their layout, board 4's hexes left of H are
    offboard, the map says so, and a squad VASL shows on 4K5 (393 pixels left of where it would be) still
    lands in 4K5."""
    x, y = _board_px("K", 5)
    save, ids = _hill_with_boards(
        tmp_path, "bd\t0\t0\t02\tVER\t6.4\tbd\t0\t1\t04\t393\t0\t1407\t-1\tVER\t6.1\tbd\t0\t2\t03\tVER\t6.3\t",
        [("6-2-8 Esq", 400 + x - 393, 400 + 645 + y)])
    r = vsav.import_save(save)
    assert any(line.startswith("board 04: cropped") and "out of line" in line for line in r.unsupported)
    assert any(line.startswith("board 04: cropped") for line in r.map["not_carried"])  # type: ignore[union-attr]
    (p,) = [q for q in r.placed if q.piece.id == ids["0"]]
    assert p.hex_name == "4K5" and (p.off_centre or 0) <= 1.5
    m = Map.from_data(r.map)
    assert m.terrain(m.parse_hex("4G5")).offboard and not m.terrain(m.parse_hex("4H5")).offboard
    assert not m.terrain(m.parse_hex("2G5")).offboard and not m.terrain(m.parse_hex("3G5")).offboard
    assert r.map["depiction"]["board"][1]["crop"] == "pixels 393 0 1407 -1"  # type: ignore[index]


@needs_games  # the shared boards are beside the shared saves
def test_a_hand_made_layout_crops_any_board(tmp_path: Path) -> None:
    """A layout written by hand crops any of its boards as VASL's crop dialog does (the hexrows, lettered,
    and the coordinates, numbered, that stay): board 2 (on top) to coordinates 6-10 and board 4 (below,
    turned) to hexrows A-P. The hexes outside are offboard, a half hex the two boards share stays while one
    shows it, the crop is recorded, and LOS answers across what is left."""
    from clirun import run

    out = tmp_path / "cropped.toml"
    res = run("import-vasl", "bd02", "bd04", "--layout", "bd02[6-10];rbd04[A-P]", "-o", str(out))
    assert res.returncode == 0, res.stderr
    m = Map.load(out)
    assert [b.archive for b in m.depiction.boards] == ["bd02", "bd04"]
    gone = {n for n in ("2K5", "2A1", "4Q5", "4GG10", "2K6", "2L5", "4P5", "4A1")
            if m.terrain(m.parse_hex(n)).offboard}
    assert gone == {"2K5", "2A1", "4Q5", "4GG10"}
    assert m.parse_hex("4A1") == m.parse_hex("GG20")  # the turned board's A1 at the lower right: still there
    assert los.los(m, m.parse_location("2K6"), m.parse_location("4K5")).to_json()["from"] == "2K6"
    bad = run("import-vasl", "bd02", "--layout", "bd02[A-ZZ]", "-o", str(tmp_path / "bad.toml"))
    assert bad.returncode == 2 and "no hexrow 'ZZ'" in bad.stderr
    bad = run("import-vasl", "bd02", "--layout", "bd02[1-5,3-4]", "-o", str(tmp_path / "bad.toml"))
    assert bad.returncode == 2 and "crop [1-5,3-4]" in bad.stderr


# ------------------------------------------------------------------------------ terrain counters by VASL's names


@needs_games
def test_vasl_counter_names_become_the_counters_the_rules_read(tmp_path: Path) -> None:
    """Real piece definitions under VASL's names (its SharedBoardMetadata.xml LOS counter rules name "White +3
    Smoke", "Gray +1 WP", "Stone Rubble", "Blazing Building", "Burnt Out Wreck", "Roadblock"), moved onto
    board 4 of Hill 621: each becomes its [[counter]] in its hex, the roadblock on the hexside VASL snapped
    it to, a T-34 on a hexside is in Bypass along it, and a squad under a level marker in 4O6 (a building
    with a first level) is on that level."""
    def at(col: str, row: int) -> tuple[int, int]:
        x, y = _board_px(col, row)
        return 400 + x, 400 + 645 + y

    k5, k6 = at("K", 5), at("K", 6)
    mid = ((k5[0] + k6[0]) // 2, (k5[1] + k6[1] + 1) // 2)  # the midpoint of the 4K5-4K6 hexside
    moves = [("LMG", *at("K", 3)), ("LMG", *at("K", 4)), ("LMG", *at("L", 3)), ("LMG", *at("M", 3)),
             ("LMG", *at("M", 4)), ("LMG", *mid), ("LMG", *at("O", 6)), ("6-2-8 Esq", *at("O", 6)),
             ("MMG", *at("N", 3)), ("MMG", *at("N", 4))]
    renames = {"0": "White +3 Smoke", "1": "Gray +1 WP", "2": "Stone Rubble", "3": "Blazing Building",
               "4": "Burnt Out Wreck", "5": "Roadblock", "6": "Level 1", "8": "Wire", "9": "6 A-P Mines"}
    save, ids = _hill_with_boards(
        tmp_path, "bd\t0\t0\t02\tVER\t6.4\tbd\t0\t1\t04\tVER\t6.1\tbd\t0\t2\t03\tVER\t6.3\t", moves, renames)
    r = vsav.import_save(save)
    counters = r.map["counter"]
    assert isinstance(counters, list)
    assert {"type": "smoke", "at": "4K3", "strength": 3, "kind": "smoke"} in counters
    assert {"type": "smoke", "at": "4K4", "strength": 1, "kind": "dispersed-wp"} in counters
    assert {"type": "rubble", "at": "4L3"} in counters and {"type": "blaze", "at": "4M3"} in counters
    assert {"type": "wreck", "at": "4M4", "name": "Burnt Out Wreck"} in counters
    assert {"type": "roadblock", "hexside": "4K5-4K6"} in counters
    assert {"type": "mines", "at": "4N4", "kind": "A-P", "strength": 6} in counters
    assert {"type": "wire", "at": "4N3"} in counters  # B26: carried since Wire became a counter type
    assert not any(line.startswith("Wire") for line in r.unsupported)
    (squad,) = [u for u in r.map["unit"] if u.get("at") == "4O6/1"]  # type: ignore[union-attr]
    assert squad["name"] == "6-2-8 Esq"
    m = Map.from_data(r.map)
    assert m.roadblock(m.parse_hexside("4K5-4K6")) is not None
    assert [c.type for c in m.counters_at(m.parse_hex("4N4"))] == ["mines"]
    # the rules read them: SMOKE hinders a LOS through 4K3, no vehicle crosses the roadblock (B29.4)
    ruling = los.los(m, m.parse_location("4K2"), m.parse_location("4K4"))
    assert any(h.what.startswith("SMOKE") and m.name_of(h.hex) == "4K3" for h in ruling.hindrances), ruling.explain()
    tank = movement.move_cost(m, Unit.from_json("vehicle"), m.parse_location("4K5"), m.parse_location("4K6"))
    assert not tank.allowed and "B29.4" in tank.explain(), tank.explain()
    from asl_terrain import render

    svg = render.map_svg(m, size=10)
    for kind in ("smoke", "rubble", "blaze", "wreck", "roadblock", "mines"):
        assert f'class="counter counter-{kind}"' in svg, kind


@needs_games
def test_a_vehicle_on_a_hexside_is_in_bypass_along_it(tmp_path: Path) -> None:
    x5, y5 = _board_px("K", 5)
    x6, y6 = _board_px("K", 6)
    save, ids = _hill_with_boards(
        tmp_path, "bd\t0\t0\t02\tVER\t6.4\tbd\t0\t1\t04\tVER\t6.1\tbd\t0\t2\t03\tVER\t6.3\t",
        [("T-34 M43", 400 + (x5 + x6) // 2, 400 + 645 + (y5 + y6 + 1) // 2)])
    r = vsav.import_save(save)
    (veh,) = [c for c in r.map["counter"] if c["type"] == "vehicle"]  # type: ignore[union-attr, index]
    assert veh["bypass"] == "4K5-4K6" and veh["at"] in ("4K5", "4K6")
    m = Map.from_data(r.map)
    (c,) = [c for c in m.counters if c.type == "vehicle"]
    assert c.bypass == m.parse_hexside("4K5-4K6")


@needs_games
def test_every_command_accepts_the_imported_game_and_the_save_itself(tmp_path: Path) -> None:
    """The map import-vasl writes from a game (squads, a leader, an LMG in 4K5, a T-34 in 4K6), and the .vsav
    itself, are accepted by every command that reads a map, and the answers name hexes by board."""
    from clirun import run

    save, _ = _moved_hill(tmp_path)
    toml = tmp_path / "hill.toml"
    assert run("import-vasl", str(save), "-o", str(toml)).returncode == 0
    queries = tmp_path / "q.json"
    queries.write_text('[{"kind": "los", "from": "4K4", "to": "4K8"}, {"kind": "stacking", "at": "4K5"}]')
    commands = [
        ("check",), ("los", "4K4", "4K8"), ("viewshed", "4K5"), ("reach", "4K5", "--mf", "2"), ("move", "4K5", "4K4"),
        ("path", "4K5", "4K4", "4K3"), ("tem", "--target", "4K5", "--firer", "4K8"), ("stacking", "4K5"),
        ("setup", "entrenchment", "4K4"), ("sniper-target", "4K5"), ("rubble-drm", "4O6/1"),
        ("end-of-player-turn", "4K5"), ("ask", str(queries)), ("render", "-o", str(tmp_path / "{}.svg")),
    ]
    board_named = re.compile(r"\b[243][A-Z]{1,2}\d{1,2}\b")
    on_the_save = {"check", "los", "reach", "tem", "stacking", "ask", "render"}  # each imports the save anew
    for source in (toml, save):
        for cmd in (c for c in commands if source is toml or c[0] in on_the_save):
            args = [a.format(source.suffix[1:]) for a in cmd[1:]]
            res = run(cmd[0], str(source), *args)
            assert res.returncode == 0, (cmd, source.suffix, res.stderr)
            if cmd[0] not in ("check", "render"):
                assert board_named.search(res.stdout), (cmd, res.stdout[:300])
    svg = (tmp_path / "toml.svg").read_text(encoding="utf-8")
    assert ">4K5<" in svg and 'class="counter counter-vehicle"' in svg


def test_a_save_is_accepted_wherever_a_layout_is(tmp_path: Path) -> None:
    """import-vasl --layout and serve --boards take a saved game as they take a layout: a missing one is
    named as a saved game (the save was read as one, not as a list of boards)."""
    from clirun import run

    assert "expected board archives" in run("import-vasl", "-o", str(tmp_path / "x.toml")).stderr
    missing = str(tmp_path / "no-such-game.vsav")
    for args in (["import-vasl", "--layout", missing, "-o", str(tmp_path / "x.toml")], ["serve", "--boards", missing]):
        res = run(*args)
        assert res.returncode == 2 and "no-such-game.vsav: no such saved game" in res.stderr, (args, res.stderr)


@needs_games
def test_the_readme_tour_of_a_saved_game_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command of the README's "Playing a real scenario" tour, run as written in a fresh folder holding
    the save, succeeds and says what its comment says it says."""
    import shlex

    from clirun import run

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Playing a real scenario", 1)[1].split("\n## ", 1)[0]
    lines = [ln.strip() for ln in section.splitlines() if ln.startswith("    asl-terrain ")]
    assert len(lines) >= 6
    monkeypatch.chdir(tmp_path)
    shutil.copy(HILL, tmp_path / HILL.name)
    for line in lines:
        command, _, comment = line.partition("#")
        args = shlex.split(command)[1:]
        res = run(*args)
        assert res.returncode == 0, (line, res.stderr)
        if "clear, +3" in comment:
            assert "clear: yes" in res.stdout and "hindrance_drm: 3" in res.stdout
        if "Hindrance total 7 blocks" in comment:
            assert "Hindrance total 7" in res.stdout and "clear: no" in res.stdout
        if "5 MP" in comment:
            assert "cost: 5" in res.stdout
