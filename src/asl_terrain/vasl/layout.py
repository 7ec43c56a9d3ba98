"""Layouts of several boards (``"bd01,bd02;bd03,bd04"``, a board turned 180° as ``rbd04``) and the import
of one or more boards into one map with the artwork as its depiction."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from asl_terrain.errors import BadName, MapError
from asl_terrain.grid import Hex as GridHex

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


_CROP = re.compile(r"^(?P<name>[^\[\]]+?)\s*(?:\[(?P<crop>[^\[\]]*)\])?$")
_CROP_PART = re.compile(r"^\s*(?:(?P<c1>[A-Za-z]+)\s*-\s*(?P<c2>[A-Za-z]+)|(?P<r1>\d+)\s*-\s*(?P<r2>\d+))\s*$")

Crop = tuple[tuple[str, str] | None, tuple[int, int] | None]  # (first, last hexrow letter), (first, last coordinate)


def _layout_tokens(text: str) -> list[list[tuple[str, Crop | None]]]:
    """The layout's boards, each with its crop: ``bd02[A-P]``, ``bd02[6-10]``, ``bd02[H-GG,1-5]`` (VASL's crop
    dialog: the hexrows, lettered, and the coordinates, numbered, that stay in play)."""
    # commas inside a crop's brackets do not separate boards
    rows = []
    for row in text.split(";"):
        names = re.split(r",(?![^\[]*\])", row)
        rows.append([_layout_token(n, text) for n in names])
    return rows


def _layout_token(token: str, text: str) -> tuple[str, Crop | None]:
    m = _CROP.fullmatch(token.strip())
    if m is None or not m.group("name").strip():
        raise MapError(f"layout {text!r}: expected board names separated by ',' (left to right) and ';' (rows, top "
                       'to bottom), e.g. "bd01,bd02;bd03,bd04", each with an optional crop: "bd02[A-P,6-10]"')
    if m.group("crop") is None:
        return m.group("name").strip(), None
    cols: tuple[str, str] | None = None
    rows: tuple[int, int] | None = None
    for part in m.group("crop").split(","):
        p = _CROP_PART.fullmatch(part)
        if p is None or (p.group("c1") and cols) or (p.group("r1") and rows):
            raise MapError(f"layout {text!r}: crop [{m.group('crop')}] of {m.group('name').strip()}: expected the "
                           "hexrows and/or coordinates that stay, e.g. [A-P], [6-10] or [H-GG,1-5]")
        if p.group("c1"):
            cols = (p.group("c1").upper(), p.group("c2").upper())
        else:
            rows = (int(p.group("r1")), int(p.group("r2")))
    return m.group("name").strip(), (cols, rows)


def parse_layout(text: str) -> list[list[str]]:
    """``"bd01,bd02;bd03,bd04"`` → rows of board names, top to bottom, each left to right (crops dropped:
    :func:`layout_crops`)."""
    return [[name for name, _ in row] for row in _layout_tokens(text)]


def layout_crops(text: str) -> list[Crop | None]:
    """The crop of each board of a layout, in order (None: the whole board)."""
    return [crop for row in _layout_tokens(text) for _, crop in row]


def crop_rectangle(board: BoardArchive, crop: Crop) -> tuple[int, int, int, int]:
    """The pixel rectangle (x, y, width, height; -1: to the edge) VASL records for a crop to these hexrows and
    coordinates, as its crop dialog computes it (``ASLBoard.crop`` with the nearest full row): from half a hex
    before the first hexrow to half a hex after the last, from the top of the first coordinate's hexes to the
    bottom of the last's. :raises MapError: a hexrow or coordinate the board does not have."""
    geo = board.geometry
    half_w, half_h = int(HEX_WIDTH / 2), int(HEX_HEIGHT / 2)
    cols, rows = crop
    x, w, y, h = 0, -1, 0, -1
    if cols is not None:
        first, last = (_crop_column(board, c) for c in cols)
        x = geo.centre(first, 0)[0]
        w = geo.centre(last, 0)[0] - x
        if abs(x + w - board.grid_width) > HEX_WIDTH / 4:
            w += half_w
        if x:
            x, w = x - half_w, w + half_w
    if rows is not None:
        if not (1 <= rows[0] <= rows[1] <= board.height):
            raise MapError(f"crop of {board.archive_name}: coordinates {rows[0]}-{rows[1]} are not rows 1-{board.height}")
        y = geo.centre(0, rows[0])[1] - half_h
        h = geo.centre(0, rows[1])[1] + half_h - y
    return x, y, w, h


def _crop_column(board: BoardArchive, letters: str) -> int:
    try:
        col = _parse_hex(f"{letters}1")[0]
    except BadName:
        col = -1
    if not 0 <= col < board.width:
        last = _hex_name((board.width - 1, 1))[:-1]
        raise MapError(f"crop of {board.archive_name}: no hexrow {letters!r} (its hexrows are A-{last})")
    return col


def outside_crop(board: BoardArchive, dc: int, dr: int, rect: tuple[int, int, int, int]) -> set[Hex]:
    """The map hexes of ``board`` (placed at column and row offset ``dc``, ``dr``; turned if it is a
    :class:`TurnedBoard`) whose centre lies outside ``rect``, a crop in the board's pixels as printed (VASL
    crops a board as printed, then turns the crop). A centre on the crop's edge is in: a half hex."""
    from asl_terrain.model import BoardPlacement

    x0, y0, w, h = rect
    x1 = x0 + w if w > 0 else board.grid_width
    y1 = y0 + h if h > 0 else board.grid_height
    turned = isinstance(board, TurnedBoard)
    place = BoardPlacement(board.archive_name, "", dc, dr, board.width, board.height, turned)
    geo = board.geometry
    out = set()
    for c, r in geo.hexes:
        px, py = geo.centre(c, r)
        if not (x0 <= px <= x1 and y0 <= py <= y1):
            h_ = place.to_map(GridHex(c, r))
            out.add((h_.col, h_.row))
    return out


def crop_offboard(placed: Sequence[tuple[BoardArchive, int, int]],
                  rects: Sequence[tuple[int, int, int, int] | None]) -> list[str]:
    """The map names (grid frame) of the hexes cropped off the layout: outside some board's crop and shown by
    no board (a half hex two boards share stays while one of them shows it)."""
    hidden: set[Hex] = set()
    shown: set[Hex] = set()
    for (b, dc, dr), rect in zip(placed, rects):
        mine = {(c + dc, r + dr) for c, r in b.geometry.hexes}  # turning a board keeps its set of map hexes
        gone = outside_crop(b, dc, dr, rect) if rect is not None else set()
        hidden |= gone
        shown |= mine - gone
    return [_hex_name(h) for h in sorted(hidden - shown)]


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
    crops = layout_crops(layout) if layout else []
    if any(crops):  # a hand-made layout's crops: the hexes outside them are off the map
        rects = [crop_rectangle(b, c) if c is not None else None for (b, _, _), c in zip(placed, crops)]
        gone = crop_offboard(placed, rects)
        if gone:
            out.setdefault("hex", []).append({"at": gone, "offboard": True})
        for entry, c in zip(out["depiction"]["board"], crops):
            if c is not None:
                entry["crop"] = ",".join(f"{a}-{b}" for a, b in (x for x in c if x is not None))
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
