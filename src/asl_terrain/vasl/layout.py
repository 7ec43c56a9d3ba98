"""Layouts of several boards (``"bd01,bd02;bd03,bd04"``, a board turned 180° as ``rbd04``) and the import
of one or more boards into one map with the artwork as its depiction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from asl_terrain.errors import MapError

from .archive import BoardArchive, BoardMetadata, OverlayRule, TurnedBoard, read_board
from .derive import BoardTerrain, _emit_map, derive_board
from .geometry import HEX_HEIGHT, HEX_WIDTH, BoardGeometry, Hex, _hex_name, _parse_hex
from .terrain import TerrainTable, load_terrain_table



class _ComposedBoard(BoardArchive):
    """Several board archives pasted into one frame, read as if they were one board.

    The rasters are pasted at each board's pixel offset, hex names in the metadata (building types,
    slopes, stairways) are translated to the composed grid, and the SSR overlays of board *i* are read
    from it under the name ``"<i>:<image>"``. Where two boards meet, their half hexes become one hex
    whose pixels come from both halves (A2.2).
    """

    def __init__(self, boards: Sequence[tuple[BoardArchive, int, int]]) -> None:
        width = max(dc + b.width for b, dc, _ in boards)
        height = max(dr + b.height for b, _, dr in boards)
        geo = BoardGeometry(width, height, int((width - 1) * HEX_WIDTH), int(height * HEX_HEIGHT))
        elevation = np.zeros((geo.grid_width, geo.grid_height), dtype=np.int8)
        terrain = np.zeros((geo.grid_width, geo.grid_height), dtype=np.uint8)
        building_types: dict[str, str] = {}
        slopes: dict[str, tuple[int, ...]] = {}
        overlays: list[OverlayRule] = []
        stairways: set[str] = set()
        members: list[str] = []
        covered: set[Hex] = set()
        for i, (b, dc, dr) in enumerate(boards):
            if dc % 2 or dr % 2 or dc < 0 or dr < 0:
                raise MapError(f"board {b.archive_name} at column offset {dc}, row offset {dr}: offsets must be "
                               "even and not negative")
            x0, y0 = int(dc * HEX_WIDTH), int(dr * HEX_HEIGHT)
            w, h = min(b.grid_width, geo.grid_width - x0), min(b.grid_height, geo.grid_height - y0)
            elevation[x0 : x0 + w, y0 : y0 + h] = b.elevation[:w, :h]
            terrain[x0 : x0 + w, y0 : y0 + h] = b.terrain[:w, :h]

            def moved(name: str, dc: int = dc, dr: int = dr) -> str:
                c, r = _parse_hex(name)
                return _hex_name((c + dc, r + dr))

            for hex_name, type_name in b.metadata.building_types.items():
                building_types[moved(hex_name)] = type_name
            for hex_name, sides in b.metadata.slopes.items():
                slopes[moved(hex_name)] = sides
            stairways.update(moved(n) for n in b.stairways)
            for rule in b.metadata.overlays:
                overlays.append(OverlayRule(rule.name, f"{i}:{rule.image}", rule.x + x0, rule.y + y0))
            members.extend(f"{i}:{m}" for m in b.members)
            covered.update((c + dc, r + dr) for c, r in b.geometry.hexes)
        elevation.setflags(write=False)
        terrain.setflags(write=False)
        first = boards[0][0]
        metadata = BoardMetadata(
            name="+".join(b.name for b, _, _ in boards),
            version="",
            version_date="",
            author="",
            image_name="",
            has_hills=any(b.metadata.has_hills for b, _, _ in boards),
            width=width,
            height=height,
            building_types=building_types,
            slopes=slopes,
            overlays=tuple(overlays),
            underlays=(),
            colors={},
            attributes={},
        )
        super().__init__(first.path, metadata, geo, elevation, terrain, frozenset(stairways), tuple(members))
        self.boards = tuple(boards)
        self.covered = frozenset(covered)

    @property
    def archive_name(self) -> str:
        return "+".join(b.archive_name for b, _, _ in self.boards)

    def overlay_pixels(self, rule: OverlayRule) -> tuple[np.ndarray, np.ndarray]:
        # board i's own overlay, read (and turned) by that board, then moved to where the board lies
        i, _, image = rule.image.partition(":")
        b, dc, dr = self.boards[int(i)]
        x0, y0 = int(dc * HEX_WIDTH), int(dr * HEX_HEIGHT)
        xs, ys = b.overlay_pixels(OverlayRule(rule.name, image, rule.x - x0, rule.y - y0))
        return xs + x0, ys + y0

    def read(self, member: str) -> bytes:
        i, _, name = member.partition(":")
        if not i.isdigit() or int(i) >= len(self.boards):
            raise MapError(f"{self.archive_name}: no {member!r} in the composed boards")
        return self.boards[int(i)][0].read(name)


def parse_layout(text: str) -> list[list[str]]:
    """``"bd01,bd02;bd03,bd04"`` → rows of board names, top to bottom, each left to right."""
    rows = [[name.strip() for name in row.split(",")] for row in text.split(";")]
    if not rows or any(not name for row in rows for name in row):
        raise MapError(f"layout {text!r}: expected board names separated by ',' (left to right) and ';' (rows, top "
                       'to bottom), e.g. "bd01,bd02;bd03,bd04"')
    return rows


def board_prefix(board: BoardArchive) -> str:
    """A board's hex prefix, from its name: ``"01"`` → ``"1"`` (so ``1Y10``), ``"BFPL"`` → ``"Bfpl"``
    (the map format's prefixes are digits, or a capital and lower-case letters)."""
    name = board.name.strip()
    if name.isdigit():
        return str(int(name))
    letters = "".join(ch for ch in name if ch.isalpha())
    return letters[:1].upper() + letters[1:].lower() if letters else ""


class BoardImport(NamedTuple):
    """The result of :func:`import_boards`: the map dict (with its ``[depiction]``), what could not be
    carried, and the boards as placed (archive, column offset, row offset, prefix)."""

    map: dict[str, Any]
    unsupported: list[str]
    placements: list[tuple[BoardArchive, int, int, str]]
    annotations: list[str] = []  # what was added from a board's artwork reading and annotation file


def import_boards(
    archives: Sequence[BoardArchive | str | Path],
    table: TerrainTable | None = None,
    *,
    layout: str | None = None,
    name: str | None = None,
    archive_refs: Mapping[str, str] | None = None,
    terrain_table_ref: str | None = None,
) -> BoardImport:
    """A map of one board, or of several boards in a layout, with the artwork as its depiction.

    :param archives: the board archives (paths, archive names, or read archives).
    :param layout: ``"bd01,bd02;bd03,bd04"``: rows of boards, top to bottom, left to right, each named
        by its archive name (or file name); default: the archives side by side, in order. Boards in a
        row overlap by a column (the right board's column A is the left board's GG column), rows by a
        row; the half hexes where they meet become whole hexes (A2.2).
    :param archive_refs: how the map file should name each archive (archive name → text written to
        ``[[depiction.board]].archive``); default: the archive name.
    :returns: the map dict: a single board keeps its number as the map's prefix (``1Y10``); a layout's
        hexes are named on the whole map's grid, and each board's own names are accepted through its
        prefix (``[[depiction.board]].prefix``).
    :raises MapError: an archive that cannot be read, a layout naming an archive not given.
    """
    boards = [a if isinstance(a, BoardArchive) else read_board(a) for a in archives]
    if not boards:
        raise MapError("no board archive to import")
    table = table if table is not None else load_terrain_table()
    rows = parse_layout(layout) if layout else [[b.archive_name for b in boards]]
    placed = _place(boards, rows)
    prefixes: list[str] = []
    for b, _, _ in placed:
        p = board_prefix(b)
        prefixes.append(p if p and p not in prefixes else "")
    derived = _derive_placed(placed, table)
    title = name if name is not None else (
        f"VASL board {placed[0][0].name}" if len(placed) == 1 else
        "VASL boards " + "; ".join(", ".join(n for n in row) for row in rows))
    # a single board keeps its number as the map's prefix (1Y10); a turned one is named by board instead,
    # since its hexes are no longer where its printed names would put them on the map's grid
    map_prefix = prefixes[0] if len(placed) == 1 and not isinstance(placed[0][0], TurnedBoard) else ""
    out = _emit_map([(derived, 0, 0)], name=title, prefix=map_prefix)
    out["depiction"] = _depiction(placed, prefixes, archive_refs or {}, terrain_table_ref)
    unsupported = derived.unsupported_lines()
    annotations: list[str] = []
    for b, dc, dr in placed:  # boards read from their artwork colours: Narrow Streets, annotation files
        blocks = getattr(b, "map_blocks", None)
        if blocks is not None:
            more_hexes, more_sides, notes = blocks(dc, dr, table)
            out.setdefault("hex", []).extend(more_hexes)
            out.setdefault("hexside", []).extend(more_sides)
            annotations.extend(f"{b.archive_name}: {n}" for n in notes)
            unsupported = [u for u in unsupported if not u.startswith("Road along a hexside")]
    for (b, _, _), p in zip(placed, prefixes):
        if not p:
            unsupported.append(f"board prefix: {b.archive_name} has no prefix of its own (its name {b.name!r} "
                               "is used by another board or gives none); name its hexes on the map's grid")
    if unsupported:  # the map file says what it leaves out, not only its comment block (issue 11)
        out["not_carried"] = list(unsupported)
    return BoardImport(out, unsupported, [(b, dc, dr, p) for (b, dc, dr), p in zip(placed, prefixes)],
                       annotations)


def _place(boards: Sequence[BoardArchive], rows: list[list[str]]) -> list[tuple[BoardArchive, int, int]]:
    """Each board of the layout's rows at its (column offset, row offset): boards in a row overlap by a
    column, rows by a row, offsets kept even; ``r`` before a name turns that board 180° (VASL's r05)."""
    by_name: dict[str, BoardArchive] = {}
    for b in boards:
        by_name.setdefault(b.archive_name, b)
        by_name.setdefault(b.path.name, b)
    placed: list[tuple[BoardArchive, int, int]] = []
    dr = 0
    for row in rows:
        dc = 0
        row_height = 0
        for board_name in row:
            found = by_name.get(board_name)
            turned = False
            if found is None and board_name.startswith("r") and board_name[1:] in by_name:
                found, turned = by_name[board_name[1:]], True  # "rbd05": board 5 rotated 180° (VASL's r05)
            if found is None:
                raise MapError(f"layout names board {board_name!r}, but the archives given are "
                               f"{', '.join(x.archive_name for x in boards)} (an 'r' before one turns it 180°)")
            b = TurnedBoard(found) if turned else found
            placed.append((b, dc, dr))
            dc += b.width - 1 if (b.width - 1) % 2 == 0 else b.width
            row_height = max(row_height, b.height)
        dr += row_height if row_height % 2 == 0 else row_height + 1
    return placed


def _derive_placed(placed: Sequence[tuple[BoardArchive, int, int]], table: TerrainTable) -> BoardTerrain:
    """The placed boards read as one (a layout: composed, then cut to the hexes some board covers)."""
    if len(placed) == 1:
        return derive_board(placed[0][0], table)
    composed = _ComposedBoard(placed)
    derived = derive_board(composed, table)
    covered = composed.covered
    derived.hexes = {h: t for h, t in derived.hexes.items() if h in covered}
    derived.hexsides = {k: v for k, v in derived.hexsides.items() if k[0] in covered and k[1] in covered}
    return derived


def _depiction(placed: Sequence[tuple[BoardArchive, int, int]], prefixes: Sequence[str], refs: Mapping[str, str],
               terrain_table_ref: str | None) -> dict[str, Any]:
    """The map's ``[depiction]``: the boards' artwork, each board with its archive, prefix and place."""
    depiction: dict[str, Any] = {"kind": "vasl"}
    if terrain_table_ref:
        depiction["terrain_table"] = terrain_table_ref
    depiction["board"] = [
        {"archive": refs.get(b.archive_name, b.archive_name), "prefix": p, "column": dc, "row": dr,
         "columns": b.width, "rows": b.height, **({"flipped": True} if isinstance(b, TurnedBoard) else {}),
         **({"overlays": [str(o) for o in getattr(b, "overlay_placements", ())]}
            if getattr(b, "overlay_placements", None) else {})}
        for (b, dc, dr), p in zip(placed, prefixes)
    ]
    return depiction
