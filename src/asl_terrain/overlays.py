"""VASL overlays (``ovr...`` archives) laid on a board: the terrain under them changes for every rule.

An overlay archive holds pictures of a patch of terrain, one per orientation (``ovr1a.gif``, the same
turned 180° ``ovr1d.gif``, ...), its ``data`` file (a line ``<name> <origin a>;<origin b>;...``: the hex
of the overlay's own grid that lands on the board hex named first, for each orientation ``a``-``f``), and
a ``colors`` table. VASL places one as ``<name> <hex1> <hex2>`` (its saved games write that record): the
overlay's origin hex goes onto board hex ``hex1``, and where ``hex2`` lies from ``hex1`` picks the
orientation (``hex2`` above ``hex1``, or the same hex: ``a``; below: ``d``; the other four by the
columns). The picture is read like a board's artwork (:mod:`asl_terrain.artwork_colors`) and its opaque
pixels replace the board's; where an overlay colour gives no level, the board's ground level stays.

:func:`lay_overlays` returns a board archive with the overlays applied, which everything that reads a
board (the import, the artwork depiction, the pictures) reads like any other.

A board archive's own SSR images (``1_NoRoads.gif``: the artwork of the board as an SSR leaves it, pasted
at the pixel its ``overlaySSRule`` names) are laid the same way, placed as ``SSR <rule name>`` (``"SSR
NoRoads"``): :func:`ssr_images` lists a board's, with the SSR switch (:mod:`asl_terrain.ssr`) each stands
for, and :func:`lay_ssr_images` lays those of a list of switches.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from asl_terrain.artwork_colors import RGB, ColourMeaning, classify, meaning_of_name, parse_colors_table
from asl_terrain.errors import MapError
from asl_terrain.ssr import VASL_NAMES
from asl_terrain.vasl import BoardArchive, OverlayRule, TerrainTable, load_terrain_table, vasl_data_dir

__all__ = ["SSR_IMAGE", "Overlay", "OverlayPlacement", "OverlaidBoard", "archive_of", "lay_overlays",
           "lay_ssr_images", "parse_placement", "read_overlay", "ssr_images"]

_ORIENTATIONS = "abcdef"


@dataclass(frozen=True)
class Overlay:
    """An overlay archive, read: its name (``1`` for ``ovr1``), origin hex per orientation, images."""

    path: Path
    name: str
    origins: dict[str, str]  # orientation → origin hex of the overlay's own grid ("b2")
    images: dict[str, str]  # orientation → image file in the archive
    colors: dict[str, RGB]

    def read(self, member: str) -> bytes:
        with zipfile.ZipFile(self.path) as z:
            return z.read(member)


@dataclass(frozen=True)
class OverlayPlacement:
    """``<archive> <hex1> [<hex2>]``: an overlay laid on a board (VASL's order)."""

    archive: str
    hex1: str
    hex2: str

    def __str__(self) -> str:
        if self.is_ssr_image:
            return f"{SSR_IMAGE} {self.hex1}"
        return f"{self.archive} {self.hex1} {self.hex2}"

    @property
    def is_ssr_image(self) -> bool:
        """A board's own SSR image (``SSR NoRoads``: the rule name in ``hex1``), not an overlay archive."""
        return self.archive.upper() == SSR_IMAGE


SSR_IMAGE = "SSR"  # the "archive" of a placement that names one of the board's own SSR images


def parse_placement(text: str) -> OverlayPlacement:
    """``"ovr1 F5 F4"`` (or ``"ovr1 F5"`` for a single-hex overlay) → a placement; ``"SSR NoRoads"``: the
    board's own SSR image of that rule (its ``overlaySSRule``)."""
    parts = text.replace("\t", " ").split()
    if parts and parts[0].upper() == SSR_IMAGE:
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != parts[1]):
            raise MapError(f"overlay {text!r}: expected 'SSR RULE', the name of one of the board's SSR images "
                           "(its overlaySSRule), e.g. 'SSR NoRoads'")
        return OverlayPlacement(SSR_IMAGE, parts[1], parts[1])
    if len(parts) not in (2, 3) or not re.fullmatch(r"[A-Za-z]+-?\d+", parts[1]) or (
            len(parts) == 3 and not re.fullmatch(r"[A-Za-z]+-?\d+", parts[2])):
        raise MapError(f"overlay {text!r}: expected 'ARCHIVE HEX1 [HEX2]' as VASL places it, e.g. 'ovr1 F5 F4' "
                       "(the overlay's origin on F5, turned as F4 lies from F5)")
    return OverlayPlacement(parts[0], parts[1].upper(), (parts[2] if len(parts) == 3 else parts[1]).upper())


def _resolve(archive: str, base: str = "") -> Path:
    p = Path(archive)
    if base and not p.is_absolute() and (Path(base) / p).exists():
        return Path(base) / p
    if p.exists():
        return p
    data = vasl_data_dir()
    if data is not None:
        for folder in ("overlays", "boards"):
            if (data / folder / archive).exists():
                return data / folder / archive
    raise MapError(f"{archive}: no such VASL overlay archive (a path, or a name in the VASL data directory's "
                   "overlays/)")


def archive_of(name: str) -> str:
    """The archive VASL keeps an overlay named ``name`` in: ``1`` → ``ovr1``, ``x20`` → ``ovrX`` (the
    letters of a lettered name, upper-cased)."""
    if name[:1].isdigit():
        return f"ovr{name}"
    letters = name.rstrip("0123456789")
    return f"ovr{(letters or name).upper()}"


def read_overlay(archive: str | Path, base: str = "", name: str | None = None) -> Overlay:
    """Read an overlay archive (``ovr1``, or a path); ``name``: the overlay's own name when the archive
    holds several (``x20`` in ``ovrX``), by default the archive's name without ``ovr``."""
    path = _resolve(str(archive), base)
    try:
        with zipfile.ZipFile(path) as z:
            members = z.namelist()
            data = z.read("data").decode("latin-1") if "data" in members else ""
            colors = parse_colors_table(z.read("colors").decode("latin-1")) if "colors" in members else {}
    except (OSError, zipfile.BadZipFile) as exc:
        raise MapError(f"{path}: not a readable VASL overlay archive: {exc}") from None
    stem = name or (path.name[3:] if path.name.lower().startswith("ovr") else path.name)
    origins: dict[str, str] = {}
    for line in data.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and parts[0].lower() == stem.lower():
            for o, hex_name in zip(_ORIENTATIONS, parts[1].split(";")):
                if hex_name.strip():
                    origins[o] = hex_name.strip().upper()
    images = {o: f"ovr{stem}{o}.gif" for o in _ORIENTATIONS if f"ovr{stem}{o}.gif" in members}
    if not images:
        raise MapError(f"{path}: no overlay picture (ovr{stem}a.gif ...) in the archive")
    return Overlay(path, stem, origins, images, colors)


def _grid_location(name: str) -> tuple[int, int]:
    """Where VASL's hex grid puts a hex's centre (A1 at (0, 32); VASL's hex size), whole pixels."""
    m = re.fullmatch(r"(-?)([A-Z]+)(-?\d+)", name.upper())
    if not m or len(set(m.group(2))) != 1:
        raise MapError(f"{name!r} is not a hex name")
    col = (len(m.group(2)) - 1) * 26 + ord(m.group(2)[0]) - ord("A")
    row = int(m.group(3))
    x = int(56.25 * col)
    y = int(64.5 * (row - 1) + (32.25 if col % 2 else 0)) + 32
    return (-x if m.group(1) else x), y


def orientation(hex1: str, hex2: str) -> str:
    """VASL's orientation letter: where ``hex2`` lies from ``hex1`` (the same hex, or above: ``a``)."""
    if hex1 == hex2:
        return "a"
    (x1, y1), (x2, y2) = _grid_location(hex1), _grid_location(hex2)
    if x1 == x2:
        return "d" if y1 < y2 else "a"
    if x1 > x2:
        return "f" if y1 > y2 else "e"
    return "b" if y1 > y2 else "c"


class OverlaidBoard(BoardArchive):
    """A board with overlays laid on it: its rasters and its picture carry them."""

    def __init__(self, board: BoardArchive, placements: Sequence[tuple[OverlayPlacement, Overlay | _SSRImage]],
                 table: TerrainTable) -> None:
        from PIL import Image

        terrain = np.array(board.terrain, copy=True)
        elevation = np.array(board.elevation, copy=True)
        picture = Image.open(io.BytesIO(board.image_bytes())).convert("RGB")
        self.laid: list[str] = []
        for place, ovr in placements:
            if isinstance(ovr, _SSRImage):
                image, left, top, colors, o = ovr.image, ovr.rule.x, ovr.rule.y, ovr.colors, ""
                what, picture_name = "the board's colors table", ovr.rule.image
            else:
                o = orientation(place.hex1, place.hex2)
                if o not in ovr.images or o not in ovr.origins:
                    raise MapError(f"overlay {place}: {ovr.path.name} has no orientation {o!r} (it has "
                                   f"{', '.join(sorted(ovr.images))}); name hex2 above or below hex1")
                bx, by = board.geometry.centre(*board.geometry.parse(place.hex1))
                ox, oy = _grid_location(ovr.origins[o])
                left, top = bx - ox, by - oy
                image, colors, what, picture_name = ovr.read(ovr.images[o]), ovr.colors, \
                    "the overlay's colors table", ovr.images[o]
            im: Image.Image = Image.open(io.BytesIO(image))
            alpha_opaque: np.ndarray | None = None
            if im.mode in ("RGBA", "LA", "PA"):  # a PNG's alpha: its transparent pixels leave the board's
                alpha_opaque = np.asarray(im.getchannel("A")).T > 127
            if im.mode != "P":
                im = im.convert("RGB").quantize(256)
            palette = np.array(im.getpalette() or [], dtype=np.int32).reshape(-1, 3)
            indices = np.asarray(im, dtype=np.uint8).T
            transparent = im.info.get("transparency")
            opaque = indices != transparent if isinstance(transparent, int) else np.ones(indices.shape, bool)
            if alpha_opaque is not None:
                opaque = alpha_opaque
            meanings: dict[RGB, ColourMeaning] = {}
            for name, c in table.colors.items():
                meanings.setdefault(c.rgb, meaning_of_name(name, c.rgb, table))
            for name, rgb in colors.items():
                m = meaning_of_name(name, rgb, table, f"{what} ({name})")
                if m.terrain is not None or rgb not in meanings:
                    meanings[rgb] = m
            reading = classify(indices, palette, meanings, table)
            # the overlay's ground level where its colour names one, else the board's (its woods, buildings)
            named_level = np.zeros(len(palette), dtype=bool)
            for i, entry in enumerate(palette.tolist()):
                mm = meanings.get((entry[0], entry[1], entry[2]))
                named_level[i] = mm is not None and mm.elevation is not None
            w, h = indices.shape
            x0, y0 = max(left, 0), max(top, 0)
            x1, y1 = min(left + w, board.grid_width), min(top + h, board.grid_height)
            if x0 >= x1 or y0 >= y1:
                raise MapError(f"overlay {place}: it lies off board {board.archive_name}")
            sx, sy = slice(x0 - left, x1 - left), slice(y0 - top, y1 - top)
            mask = opaque[sx, sy]
            terrain[x0:x1, y0:y1][mask] = reading.terrain[sx, sy][mask]
            keep = mask & named_level[indices[sx, sy]]
            elevation[x0:x1, y0:y1][keep] = reading.elevation[sx, sy][keep]
            rgba = im.convert("RGBA")
            if isinstance(transparent, int) or alpha_opaque is not None:
                alpha = np.where(opaque.T, 255, 0).astype(np.uint8)
                rgba.putalpha(Image.fromarray(alpha))
            picture.paste(rgba, (left, top), rgba)
            turned = f"orientation {o}, " if o else ""
            self.laid.append(f"{place} ({turned}picture {picture_name} at pixel ({left}, {top}))")
        terrain.setflags(write=False)
        elevation.setflags(write=False)
        super().__init__(board.path, board.metadata, board.geometry, elevation, terrain, board.stairways,
                         board.members)
        self.board = board
        self.overlay_placements = tuple(p for p, _ in placements)
        buf = io.BytesIO()
        gif = picture.quantize(256)
        gif.info.pop("transparency", None)
        gif.save(buf, format="GIF")
        self._picture = buf.getvalue()

    @property
    def archive_name(self) -> str:
        return self.board.archive_name

    def image_bytes(self) -> bytes:
        """The board's picture with the overlays pasted on it."""
        return self._picture

    def map_blocks(self, dc: int = 0, dr: int = 0, table: TerrainTable | None = None) -> tuple[
            list[dict[str, object]], list[dict[str, object]], list[str]]:
        """The underlying board's extra blocks (a colour board's annotations), and a line per overlay."""
        inner = getattr(self.board, "map_blocks", None)
        hexes, sides, notes = inner(dc, dr, table) if inner is not None else ([], [], [])
        return hexes, sides, [*notes, *(f"overlay {line}" for line in self.laid)]


def lay_overlays(board: BoardArchive, placements: Sequence[OverlayPlacement | str], base: str = "",
                 table: TerrainTable | None = None) -> BoardArchive:
    """``board`` with the overlays laid on it, in order (a later one over an earlier one)."""
    if not placements:
        return board
    table = table if table is not None else load_terrain_table()
    read: list[tuple[OverlayPlacement, Overlay | _SSRImage]] = []
    for p in placements:
        place = parse_placement(p) if isinstance(p, str) else p
        if place.is_ssr_image:
            read.append((place, _ssr_image(board, place.hex1)))
            continue
        board.geometry.parse(place.hex1)
        read.append((place, read_overlay(place.archive, base)))
    return OverlaidBoard(board, read, table)


@dataclass(frozen=True)
class _SSRImage:
    rule: OverlayRule
    image: bytes
    colors: dict[str, RGB]


def _ssr_image(board: BoardArchive, name: str) -> _SSRImage:
    rules = [r for r in board.metadata.overlays if r.name.lower() == name.lower()]
    if not rules:
        have = ", ".join(r.name for r in board.metadata.overlays) or "none"
        raise MapError(f"overlay 'SSR {name}': board {board.archive_name} has no SSR image of that name "
                       f"(its overlaySSRules: {have})")
    rule = rules[0]
    if rule.image not in board.members:
        raise MapError(f"overlay 'SSR {name}': {rule.image} is not in {board.archive_name}'s archive")
    colors = parse_colors_table(board.read("colors").decode("latin-1")) if "colors" in board.members else {}
    return _SSRImage(rule, board.read(rule.image), colors)


def ssr_images(board: BoardArchive) -> list[tuple[str, str | None]]:
    """The board's own SSR images (its ``overlaySSRule`` names), each with the SSR switch it is the artwork
    of (:data:`asl_terrain.ssr.VASL_NAMES`), or None: a scenario's or a board's special overlay (``SSO_``,
    ``BSO_``) or a terrain change with no switch here (``DenseJungle``, ``LightWoods``: PTO terrain)."""
    return [(r.name, VASL_NAMES.get(r.name)) for r in board.metadata.overlays]


def lay_ssr_images(board: BoardArchive, switches: Sequence[str], table: TerrainTable | None = None
                   ) -> BoardArchive:
    """``board`` with the SSR images laid that stand for the given switches (``no-roads`` lays
    ``NoRoads``): the artwork, and so the terrain read from it, as the SSR leaves it. Switches with no
    image on this board change nothing here (the switch itself still rewrites the map's keys)."""
    wanted = set(switches)
    names = [name for name, switch in ssr_images(board) if switch is not None and switch in wanted]
    return lay_overlays(board, [f"{SSR_IMAGE} {n}" for n in names], table=table)
