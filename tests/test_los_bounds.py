"""The artwork depiction's bounds (issue 13): a hex interior whose every drawn feature lies below the LOS is
passed without reading its pixels. The property: on every shared VASL board, printed and flipped, for
random pairs of Locations (offboard half hexes, whose end pixel is pulled onto the raster, included), the
walk with the bounds decides exactly what the walk reading every interior's pixels decides: the block, its
place and rule, each Hindrance met, the rules cited. Reads the board archives from ../shared/vasl and is
skipped, saying so, when they are absent."""

from __future__ import annotations

import random
from typing import Any

import pytest

from asl_terrain import los as L
from asl_terrain import vasl
from asl_terrain.model import Location, Map

DATA = vasl.vasl_data_dir()
BOARDS = sorted(p.name for p in (DATA / "boards").iterdir()) if DATA is not None and (DATA / "boards").is_dir() else []
LOS_BOARDS = [b for b in BOARDS if b not in ("bdST", "bdLG", "bdCH")]  # the KGP maps have no LOSData
needs_vasl = pytest.mark.skipif(not LOS_BOARDS, reason="the VASL boards are not found: set ASL_TERRAIN_VASL or put "
                                                        "them in ../shared/vasl/boards beside the repository")


def _outcome(tab: L._Tables, A: L._End, B: L._End) -> tuple[Any, ...]:
    o = L._decide(tab, A, B, (False, False), False)[0]
    b = o.block
    return (o.clear, o.drm, o.blind, None if b is None else (b.t, b.idx, b.what, b.rule, b.blind, b.also),
            [(h.t, h.idx, h.drm, h.what, h.rule) for h in o.hinds], o.rules)


@needs_vasl
@pytest.mark.parametrize("layout", ["", "r"])
@pytest.mark.parametrize("board", LOS_BOARDS)
def test_the_bounds_never_change_a_ruling(board: str, layout: str, monkeypatch: pytest.MonkeyPatch) -> None:
    m = Map.from_data(vasl.import_boards([board], layout=layout + board if layout else None).map)
    tab = L._resolve(m, None, None)
    assert isinstance(tab.depiction, L.ArtworkDepiction)
    locs = [Location(h) for h in m.hexes()]
    rnd = random.Random(board + layout)
    pairs = [tuple(tab.end(x) for x in rnd.sample(locs, 2)) for _ in range(1500)]
    fast = [_outcome(tab, A, B) for A, B in pairs]
    skipped = sum(1 for v in tab.depiction.bounds.values() if v[2] is None and v[0] < (1 << 30))
    monkeypatch.setattr(L._ArtworkThread, "__init__", _unbounded_init)
    plain = [_outcome(tab, A, B) for A, B in pairs]
    assert fast == plain
    assert skipped, "no hex of the board has a bound: the test would not test it"


_INIT = L._ArtworkThread.__init__


def _unbounded_init(self: Any, *args: Any) -> None:
    _INIT(self, *args)
    self.bounds = None
