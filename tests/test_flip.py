"""Flipped boards (issue 12): a board rotated 180° (VASL's ``r05``) keeps its printed hex names; its
artwork, Base Levels, hexside terrain and slopes (with the side their hash marks are on) turn with it.

The property, on every shared VASL board with LOS data: for random pairs of its hexes, LOS on the
flipped board equals LOS on the board as printed, and every hex and hexside reads the same terrain.
Reads the board archives from ../shared/vasl and is skipped, saying so, when they are absent.
"""

from __future__ import annotations

import random

import pytest

from asl_terrain import los, vasl
from asl_terrain.grid import Hexside
from asl_terrain.model import Map

DATA = vasl.vasl_data_dir()
BOARDS = sorted(p.name for p in (DATA / "boards").iterdir()) if DATA is not None and (DATA / "boards").is_dir() else []
LOS_BOARDS = [b for b in BOARDS if b not in ("bdST", "bdLG", "bdCH")]  # the KGP maps have no LOSData
needs_vasl = pytest.mark.skipif(not LOS_BOARDS, reason="the VASL boards are not found: set ASL_TERRAIN_VASL or put "
                                                        "them in ../shared/vasl/boards beside the repository")


def _pair(board: str) -> tuple[Map, Map]:
    b = vasl.read_board(board)
    return Map.from_data(vasl.import_boards([b]).map), Map.from_data(vasl.import_boards([b], layout="r" + board).map)


@needs_vasl
@pytest.mark.parametrize("board", LOS_BOARDS)
def test_los_on_a_flipped_board_equals_the_board_as_printed(board: str) -> None:
    plain, turned = _pair(board)
    assert turned.depiction.boards[0].flipped and turned.prefix == ""
    names = [plain.name_of(h) for h in plain.hexes() if not plain.terrain(h).offboard]
    # the board really is turned: its A1 is where the printed board's last column lies
    first = names[0]
    assert turned.parse_hex(first) != plain.parse_hex(first)
    rnd = random.Random(board)
    for _ in range(60):
        x, y = rnd.sample(names, 2)
        a = los.los(plain, plain.parse_location(x), plain.parse_location(y))
        b = los.los(turned, turned.parse_location(x), turned.parse_location(y))
        assert (a.clear, a.hindrance_drm, a.blind) == (b.clear, b.hindrance_drm, b.blind), (x, y, a.explain(),
                                                                                            b.explain())
        if not a.clear:
            assert a.blocked_by is not None and b.blocked_by is not None
            assert (a.blocked_by.terrain, a.blocked_by.rule) == (b.blocked_by.terrain, b.blocked_by.rule)


@needs_vasl
@pytest.mark.parametrize("board", LOS_BOARDS)
def test_a_flipped_board_reads_the_same_terrain_under_each_printed_name(board: str) -> None:
    plain, turned = _pair(board)
    for h in plain.hexes():
        if plain.terrain(h).offboard:
            continue
        g = turned.parse_hex(plain.name_of(h))
        tp, tt = plain.terrain(h), turned.terrain(g)
        assert (tp.terrain, tp.level, tp.building, tp.building_type, tp.stream) == \
            (tt.terrain, tt.level, tt.building, tt.building_type, tt.stream), plain.name_of(h)
        for hs in h.hexsides():
            o = hs.other(h)
            if o not in plain or plain.terrain(o).offboard:
                continue
            p_side = plain.hexside(hs)
            t_side = turned.hexside(Hexside.of(g, turned.parse_hex(plain.name_of(o))))
            slope_p = plain.name_of(p_side.slope) if p_side.slope is not None else None
            slope_t = turned.name_of(t_side.slope) if t_side.slope is not None else None
            assert (p_side.wall, p_side.hedge, p_side.crest, slope_p) == \
                (t_side.wall, t_side.hedge, t_side.crest, slope_t), plain.name_of(hs)
