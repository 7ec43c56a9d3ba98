"""VASL saved games (``.vsav``): the layout, its flips, crops, overlays and SSRs, and the pieces on the map.

A ``.vsav`` is a zip whose ``savedGame`` entry is VASSAL's obfuscated command stream: ``!VCSK``, a key of
two hex digits, then every byte of the stream as two hex digits XOR the key (:func:`decode_stream`,
:func:`encode_stream`). The stream's records are separated by ESC (0x1b). Two kinds matter here:

* the board record ``bd<TAB>`` then, per board, ``col row [r]NAME [cx cy cw ch] VER version [OVR name
  hex1 hex2]... [SSR changes]`` (tab-separated, boards separated by ``bd<TAB>``): the board's slot in the
  layout, ``r`` for a board rotated 180°, the crop rectangle in the board's own pixels, overlays and the
  terrain SSRs as VASL's SSR names (the board archives' ``colorSSR`` / ``overlaySSR`` entries);
* the piece records ``+/ID/TYPE/STATE``: TYPE is a chain of VASSAL traits (decorators), STATE their
  states in the same order; the last trait is the basic piece (``piece;;;image;name``) whose state
  starts with the map's name and the piece's pixel position. Nested traits are written with VASSAL's
  sequence encoding (a delimiter inside a token is escaped with a backslash, one more per level).

Pieces on the main map lie in a frame with a 400-pixel edge around the boards (VASL's main map), so a
board pixel is the map pixel less 400 on each axis. :func:`classify` says what a piece is for the rules
(squad, leader, SW, vehicle, wreck, SMOKE, ...) from its name, its image and VASL's ``DBCounterType``.

Imports: errors only (the layout is placed by :mod:`asl_terrain.vasl`, the pieces by
:mod:`asl_terrain.scenario`).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import MapError

MAIN_MAP = "Main Map"
MAP_EDGE = 400  # pixels of VASL's main-map margin around the boards (left and top)
_MAGIC = "!VCSK"
_ESC = "\x1b"


# ------------------------------------------------------------------------------ the obfuscated stream


def decode_stream(data: bytes, source: str = "savedGame") -> str:
    """The command stream of a ``savedGame`` entry (``!VCSK`` + key + hex digits XOR the key).

    :raises MapError: not a VASSAL obfuscated stream.
    """
    text = data.decode("latin-1")
    if not text.startswith(_MAGIC) or len(text) < len(_MAGIC) + 2:
        raise MapError(f"{source}: not a VASSAL saved game (expected it to start with {_MAGIC!r})", source=source)
    try:
        key = int(text[5:7], 16)
        body = bytes.fromhex(text[7:].strip())
    except ValueError:
        raise MapError(f"{source}: the obfuscated stream holds something other than hex digits", source=source) \
            from None
    return bytes(b ^ key for b in body).decode("utf-8", errors="replace")


def encode_stream(text: str, key: int = 0x6F) -> bytes:
    """The ``savedGame`` bytes VASSAL writes for a command stream (the inverse of :func:`decode_stream`)."""
    raw = text.encode("utf-8")
    return (f"{_MAGIC}{key:02x}" + bytes(b ^ key for b in raw).hex()).encode("ascii")


def read_stream(path: str | Path) -> str:
    """The decoded command stream of a ``.vsav`` file. :raises MapError: naming the file."""
    p = Path(path)
    if not p.exists() and p.name == str(path):
        # a save named without a folder: the current folder, else the VASL data directory's games/
        from .vasl import vasl_data_dir

        data_dir = vasl_data_dir()
        if data_dir is not None and (data_dir / "games" / p.name).is_file():
            p = data_dir / "games" / p.name
    try:
        with zipfile.ZipFile(p) as z:
            data = z.read("savedGame")
    except FileNotFoundError:
        raise MapError(f"{p}: no such saved game", source=str(p)) from None
    except KeyError:
        raise MapError(f"{p}: not a VASL saved game (no savedGame entry in the zip)", source=str(p)) from None
    except (OSError, zipfile.BadZipFile) as e:
        raise MapError(f"{p}: not a VASL saved game ({e})", source=str(p)) from None
    return decode_stream(data, str(p))


def write_save(path: str | Path, stream: str, like: str | Path | None = None) -> None:
    """Write a ``.vsav`` holding ``stream``; the other entries (savedata, moduledata) are copied from the
    save ``like`` when given."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as out:
        if like is not None:
            with zipfile.ZipFile(like) as z:
                for info in z.infolist():
                    if info.filename != "savedGame":
                        out.writestr(info.filename, z.read(info.filename))
        out.writestr("savedGame", encode_stream(stream))
    Path(path).write_bytes(buf.getvalue())


# ------------------------------------------------------------------------------ VASSAL's sequence encoding


def split_sequence(text: str, delimiter: str) -> list[str]:
    """VASSAL's ``SequenceEncoder.Decoder``: the tokens of ``text`` split at each ``delimiter`` not escaped
    by a backslash (the escaping backslash is dropped); a token quoted in single quotes loses them."""
    out: list[str] = []
    cur: list[str] = []
    i = 0
    while True:
        j = text.find(delimiter, i)
        while j > 0 and text[j - 1] == "\\":
            cur.append(text[i : j - 1])
            cur.append(delimiter)
            i = j + 1
            j = text.find(delimiter, i)
        if j < 0:
            cur.append(text[i:])
            out.append("".join(cur))
            break
        cur.append(text[i:j])
        out.append("".join(cur))
        cur = []
        i = j + 1
    return [t[1:-1] if len(t) > 1 and t[0] == "'" and t[-1] == "'" else t for t in out]


def join_sequence(tokens: list[str], delimiter: str) -> str:
    """VASSAL's ``SequenceEncoder``: the inverse of :func:`split_sequence`."""
    parts = []
    for t in tokens:
        esc = t.replace(delimiter, "\\" + delimiter)
        # VASSAL 3.2 quotes only a token that is itself quoted (a trailing backslash is written as it is)
        parts.append(f"'{esc}'" if len(t) > 1 and t.startswith("'") and t.endswith("'") else esc)
    return delimiter.join(parts)


def _chain(text: str) -> list[str]:
    # a decorator's type (or state) is its own, a tab, then the inner piece's, nested one level deeper
    out = []
    while True:
        parts = split_sequence(text, "\t")
        if len(parts) == 1:
            out.append(parts[0])
            return out
        out.append(parts[0])
        text = "\t".join(parts[1:]) if len(parts) > 2 else parts[1]


def _unchain(parts: list[str]) -> str:
    text = parts[-1]
    for p in reversed(parts[:-1]):
        text = join_sequence([p, text], "\t")
    return text


# ------------------------------------------------------------------------------ boards


@dataclass(frozen=True)
class SavedBoard:
    """One board of a saved game's layout: its name (``"02"``), its slot (column and row of the layout
    grid), whether it is rotated 180° (``r02``), its crop in the board's own pixels (x, y, width,
    height) or None, overlays (name, hex1, hex2) and the SSR names VASL applies to it."""

    name: str
    column: int
    row: int
    flipped: bool = False
    crop: tuple[int, int, int, int] | None = None
    version: str = ""
    overlays: tuple[tuple[str, str, str], ...] = ()
    ssr: tuple[str, ...] = ()

    @property
    def archive_name(self) -> str:
        """The board archive's file name: ``bd`` + the board's name (``bd02``)."""
        return "bd" + self.name


def _parse_board(desc: str) -> SavedBoard:
    toks = desc.split("\t")
    try:
        col, row = int(toks[0]), int(toks[1])
        base = toks[2]
    except (IndexError, ValueError):
        raise MapError(f"saved game: board record {desc!r}: expected a column, a row and a board name") from None
    flipped = base.startswith("r") and base.lower() not in ("r", "rdx")
    name = base[1:] if flipped else base
    crop = None
    rest = toks[3:]
    if len(rest) >= 4 and all(re.fullmatch(r"-?\d+", t) for t in rest[:4]):
        x, y, w, h = (int(t) for t in rest[:4])
        crop = (x, y, w, h) if (w > 0 or h > 0) else None
        rest = rest[4:]
    version = ""
    overlays: list[tuple[str, str, str]] = []
    ssr: tuple[str, ...] = ()
    i = 0
    while i < len(rest):
        t = rest[i]
        if t == "VER" and i + 1 < len(rest):
            version = rest[i + 1]
            i += 2
        elif t == "OVR" and i + 3 < len(rest):
            overlays.append((rest[i + 1], rest[i + 2], rest[i + 3]))
            i += 4
        elif t == "SSR":
            ssr = tuple(x for x in " ".join(rest[i + 1 :]).replace("ZOOM", " ").split() if not _is_number(x))
            break
        else:
            i += 1
    return SavedBoard(name, col, row, flipped, crop, version, tuple(overlays), ssr)


def _is_number(s: str) -> bool:
    return re.fullmatch(r"-?\d+(\.\d+)?", s) is not None


def parse_boards(record: str) -> list[SavedBoard]:
    """The boards of a ``bd<TAB>...`` record, in the order written."""
    body = record[3:] if record.startswith("bd\t") else record
    return [_parse_board(d) for d in re.split(r"\tbd\t|^bd\t", body) if d.strip()]


# ------------------------------------------------------------------------------ pieces

# nationality codes of VASL's counter images (ge/geLMG, ru/veh/T34M43) and leader names (geLDR)
NATIONS = {
    "ge": "German", "ru": "Russian", "am": "American", "br": "British", "fr": "French", "it": "Italian",
    "ja": "Japanese", "ch": "Chinese", "fi": "Finnish", "hu": "Hungarian", "ro": "Romanian", "sl": "Slovakian",
    "po": "Polish", "be": "Belgian", "du": "Dutch", "gr": "Greek", "yu": "Yugoslavian", "bu": "Bulgarian",
    "cr": "Croatian", "nk": "North Korean", "ss": "German SS", "al": "Allied Minor", "ax": "Axis Minor",
}


@dataclass(frozen=True)
class Piece:
    """One piece of the saved game: VASSAL's id, its name and image, the map it is on and its pixel
    position there, VASL's marker properties (``DBCounterType`` ...), and the raw trait chains."""

    id: str
    name: str
    image: str
    map: str
    x: int
    y: int
    props: dict[str, str] = field(default_factory=dict)
    images: tuple[str, ...] = ()  # every image the piece's traits name (layers: broken side, HS ...)
    facing: int | None = None  # the rotation trait's facing index (0 = as printed), where it has one
    facings: int = 0  # how many facings its rotation trait has

    @property
    def nationality(self) -> str:
        for img in (self.image, *self.images):
            m = re.match(r"([a-z]{2})/", img.strip())
            if m and m.group(1) in NATIONS:
                return NATIONS[m.group(1)]
        m = re.match(r"([a-z]{2})(LDR|COM|HERO|Sniper)", self.name)
        if m and m.group(1) in NATIONS:
            return NATIONS[m.group(1)]
        m = re.match(r"([A-Z]{2}) Sniper", self.name)
        if m and m.group(1).lower() in NATIONS:
            return NATIONS[m.group(1).lower()]
        return ""


def parse_piece(record: str) -> Piece | None:
    """A piece from a ``+/ID/TYPE/STATE`` record, or None for a stack or a record without a basic piece."""
    toks = split_sequence(record[2:], "/")
    if len(toks) < 3:
        return None
    pid, typ, state = toks[0], toks[1], toks[2]
    types, states = _chain(typ), _chain(state)
    basic = types[-1]
    if not basic.startswith("piece;"):
        return None
    f = split_sequence(basic, ";")
    st = split_sequence(states[-1], ";")
    try:
        x, y = int(st[1]), int(st[2])
    except (IndexError, ValueError):
        return None
    props: dict[str, str] = {}
    images: list[str] = []
    facing = None
    facings = 0
    for i, t in enumerate(types[:-1]):
        s = states[i] if i < len(states) - 1 else ""
        if t.startswith("mark;"):
            props[t[5:]] = s
        elif t.startswith("emb2;"):
            parts = split_sequence(t, ";")
            if len(parts) > 16:
                images.extend(x for x in parts[16].split(",") if x.strip())
        elif t.startswith("rotate;"):
            parts = split_sequence(t, ";")
            try:
                facings = int(parts[1])
                facing = int(s.split(";")[0]) if s.strip() else 0
            except (IndexError, ValueError):
                pass
    return Piece(pid, f[4] if len(f) > 4 else "", f[3].strip() if len(f) > 3 else "", st[0], x, y, props,
                 tuple(images), facing, facings)


def move_piece(stream: str, piece_id: str, x: int, y: int) -> str:
    """The stream with piece ``piece_id`` (and the stack holding it) moved to main-map pixel (x, y), as
    dragging it in VASL would (for making test games)."""
    recs = stream.split(_ESC)
    found = False
    for k, rec in enumerate(recs):
        if not rec.startswith("+/"):
            continue
        toks = split_sequence(rec[2:], "/")
        if len(toks) < 3:
            continue
        if toks[0] == piece_id:
            states = _chain(toks[2])
            st = split_sequence(states[-1], ";")
            st[0], st[1], st[2] = MAIN_MAP, str(x), str(y)
            states[-1] = join_sequence(st, ";")
            toks[2] = _unchain(states)
            recs[k] = "+/" + join_sequence(toks, "/")
            found = True
        elif toks[1] == "stack":
            st = split_sequence(toks[2], ";")
            if piece_id in st[3:]:
                rest = [i for i in st[3:] if i != piece_id]
                toks[2] = join_sequence(st[:3] + rest, ";")
                recs[k] = "+/" + join_sequence(toks, "/")
    if not found:
        raise MapError(f"saved game: no piece with id {piece_id!r}")
    return _ESC.join(recs)


# ------------------------------------------------------------------------------ the whole game


@dataclass
class SavedGame:
    """A saved game read: its boards (in the order written), its pieces, and the stream itself."""

    source: str
    boards: list[SavedBoard]
    pieces: list[Piece]
    stream: str

    @property
    def layout(self) -> list[list[SavedBoard]]:
        """The boards in rows of the layout grid, top to bottom, each left to right."""
        rows: dict[int, list[SavedBoard]] = {}
        for b in self.boards:
            rows.setdefault(b.row, []).append(b)
        return [sorted(r, key=lambda b: b.column) for _, r in sorted(rows.items())]

    def on_main_map(self) -> list[Piece]:
        return [p for p in self.pieces if p.map == MAIN_MAP]


def parse_stream(stream: str, source: str = "<saved game>") -> SavedGame:
    """A :class:`SavedGame` from a decoded command stream."""
    boards: list[SavedBoard] = []
    pieces: list[Piece] = []
    for rec in stream.split(_ESC):
        if rec.startswith("bd\t") and not boards:
            boards = parse_boards(rec)
        elif rec.startswith("+/"):
            p = parse_piece(rec)
            if p is not None:
                pieces.append(p)
    if not boards:
        raise MapError(f"{source}: the saved game has no board layout (no 'bd' record)", source=source)
    return SavedGame(source, boards, pieces, stream)


def read_save(path: str | Path) -> SavedGame:
    """Read a ``.vsav`` file. :raises MapError: naming the file, for anything that is not a VASL save."""
    return parse_stream(read_stream(path), str(path))


# ------------------------------------------------------------------------------ what a piece is


@dataclass(frozen=True)
class Kind:
    """What a piece is for the rules: ``table`` is ``"unit"`` ([[unit]]), ``"counter"`` ([[counter]]) or
    ``""`` (nothing the rules use: markers, labels, tracks); ``kind`` the unit kind or counter type."""

    table: str
    kind: str
    detail: str = ""  # SMOKE's kind ("smoke", "wp", "dispersed"), mines' kind ...


_SW = re.compile(r"^(LMG|MMG|HMG|\.50-cal|FT|DC|ATR|PSK|BAZ|PIAT|Radio|Field Phone|\d+\*? MTR|LtMTR|MTR|"
                 r"MOL-P|PF|ATMM|\.30-cal)\b")
_SQUAD = re.compile(r"^\d+-\d+-\d+ [A-Z]?sq$")
_HALF = re.compile(r"^\d+-\d+-\d+ [A-Z]?hs$")
_CREW = re.compile(r"^\d+-\d+-\d+ [A-Z]?cr$")
_LEADER = re.compile(r"^([a-z]{2})?(LDR|COM|HERO|ldr)\b|^\d+-\d+ |^[A-Z]{2} (Leader|Hero)")


def classify(p: Piece) -> Kind:
    """What ``p`` is, from its name, images and VASL's counter type (``DBCounterType``)."""
    name = p.name.strip()
    low = name.lower()
    ctype = p.props.get("DBCounterType", "")
    if (ctype == "global" or not name or name in ("?", "User-Labeled") or p.map != MAIN_MAP
            or p.image.startswith("tables/")):
        return Kind("", "marker")
    if "wreck" in low:
        return Kind("counter", "wreck")
    if low.startswith("smoke") or low.startswith("wp") or low in ("dsmoke", "dispersed smoke"):
        detail = "wp" if low.startswith("wp") else "dispersed" if "dispersed" in low or low.startswith("d") else "smoke"
        return Kind("counter", "smoke", detail)
    if low.startswith("rubble"):
        return Kind("counter", "rubble")
    if low.startswith("blaze"):
        return Kind("counter", "blaze")
    if low.startswith(("foxhole", "trench", "entrench", "sangar", "ditch")):
        return Kind("counter", "entrenchment", low.split()[0])
    if low.startswith(("a-p mine", "a-t mine", "mines", "ap mine", "at mine")):
        return Kind("counter", "mines", "A-T" if "t mine" in low or low.startswith("at") else "A-P")
    if low.startswith("wire"):
        return Kind("counter", "wire")
    if low.startswith("roadblock"):
        return Kind("counter", "roadblock")
    if any("/veh/" in i or "/vehicles/" in i for i in (p.image, *p.images)):
        return Kind("counter", "vehicle")
    if any("/gun/" in i or "/guns/" in i for i in (p.image, *p.images)) or ctype == "gun":
        return Kind("unit", "gun")
    if _SQUAD.match(name):
        return Kind("unit", "squad")
    if _HALF.match(name):
        return Kind("unit", "half-squad")
    if _CREW.match(name):
        return Kind("unit", "crew")
    if _LEADER.match(name):
        return Kind("unit", "leader")
    if _SW.match(name):
        return Kind("unit", "sw")
    if ctype == "unit":
        return Kind("unit", "unit")
    return Kind("", "unknown")


# ------------------------------------------------------------------------------ a saved game as a map

# the chart's Hindrance DRM of each kind of SMOKE counter (A24.1, A24.31, A24.3)
_SMOKE_PARAM = {"smoke": "smoke_counter_hindrance", "wp": "wp_counter_hindrance",
                "dispersed-smoke": "dispersed_smoke_hindrance", "dispersed-wp": "dispersed_wp_hindrance"}


_VERTEX_NEAR = 6.0  # pixels: a piece this close to a hex's vertex is at the vertex (Bypass)


@dataclass
class Placed:
    """Where a piece landed: its map entry (or None), the hex's board name, its distance from the hex's
    centre pixel, and why it was not placed (``reason``)."""

    piece: Piece
    kind: Kind
    entry: dict[str, object] | None
    hex_name: str | None = None
    off_centre: float | None = None
    reason: str = ""


@dataclass
class SaveImport:
    """The result of :func:`import_save`: the map dict, the lines of what was not carried, and each
    piece as placed."""

    map: dict[str, object]
    unsupported: list[str]
    placed: list[Placed]
    game: SavedGame

    def offmap_by_side(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for p in self.placed:
            if p.entry is not None and "at" not in p.entry:
                out.setdefault(p.piece.nationality or "unknown side", []).append(p.piece.name)
        return out


def import_save(path: str | Path, *, boards_dir: str | Path | None = None, name: str | None = None) -> SaveImport:
    """A map of a VASL saved game: its boards in their layout (flipped where VASL turned them), the SSRs
    it can read, and every piece the rules use, placed in its hex (board-named), or listed off the map.

    :param boards_dir: where the board archives are (see :func:`asl_terrain.vasl.find_board`).
    :raises MapError: a save that cannot be read, a board archive that cannot be found.
    """
    from . import vasl
    from .chart import default_chart
    from .grid import Hex
    from .model import Location, Map

    game = read_save(path)
    unsupported: list[str] = []
    rows = game.layout
    archives = []
    for b in game.boards:
        archives.append(vasl.read_board(vasl.find_board(b.archive_name, boards_dir)))
    laid_overlays: set[tuple[str, str, str]] = set()
    for i, b in enumerate(game.boards):  # the overlays VASL laid on the board (issue 15)
        if b.overlays:
            from .overlays import archive_of, lay_overlays, read_overlay

            placements = []
            for ovr in b.overlays:
                try:
                    read_overlay(archive_of(ovr[0]), name=ovr[0])
                except MapError:
                    continue
                placements.append(f"{archive_of(ovr[0])} {ovr[1]} {ovr[2]}")
                laid_overlays.add(ovr)
            archives[i] = lay_overlays(archives[i], placements)
    layout = ";".join(",".join(("r" if b.flipped else "") + b.archive_name for b in row) for row in rows)
    title = name or Path(path).stem
    result = vasl.import_boards(archives, layout=layout, name=title,
                                archive_refs={a.archive_name: a.archive_name for a in archives})
    data = result.map
    shift = (0, 0)  # a cropped single board: VASL's frame starts at the crop's corner
    cropped_out: list[str] = []
    for b, (arch, dc, dr, _) in zip([b for row in rows for b in row], result.placements):
        if b.version and arch.metadata.version and b.version != arch.metadata.version:
            unsupported.append(f"board {b.name}: the game was saved with v{b.version}, the archive is "
                               f"v{arch.metadata.version}")
        for ovr in b.overlays:
            if ovr not in laid_overlays:
                unsupported.append(f"board {b.name}: overlay {ovr[0]} at {ovr[1]}-{ovr[2]}: no overlay archive "
                                   "found (not laid)")
        if b.crop is None:
            continue
        x0, y0, cw, ch = b.crop
        last = b is rows[-1][-1]
        if b.flipped or not (len(game.boards) == 1 or (last and x0 == 0 and y0 == 0)):
            unsupported.append(f"board {b.name}: cropped to pixels {b.crop} in the save; a crop of a turned board, "
                               "or one that moves the boards after it, is not applied (the whole board is on the map)")
            continue
        # the hexes whose centre lies outside the crop are off the map (VASL shows them no more)
        x1 = x0 + cw if cw > 0 else arch.grid_width
        y1 = y0 + ch if ch > 0 else arch.grid_height
        for c, r in arch.geometry.hexes:
            px, py = arch.geometry.centre(c, r)
            if not (x0 <= px < x1 and y0 <= py < y1):
                cropped_out.append(Hex(c + dc, r + dr).name)
        if len(game.boards) == 1:
            shift = (x0, y0)
    if cropped_out:
        blocks = data.setdefault("hex", [])
        assert isinstance(blocks, list)
        blocks.append({"at": cropped_out, "offboard": True})
    depiction = data["depiction"]
    assert isinstance(depiction, dict)
    for d, b in zip(depiction["board"], [b for row in rows for b in row]):
        d["version"] = b.version or None
        if d["version"] is None:
            del d["version"]
    ssr = sorted({s for b in game.boards for s in b.ssr})
    from .ssr import from_vasl

    switches, not_carried = from_vasl(ssr)
    if switches:
        data.setdefault("conditions", {})["ssr"] = switches
    unsupported.extend(f"SSR {s}: VASL's terrain change has no switch here (not applied)" for s in not_carried)
    m = Map.from_data(data)
    geo = vasl.BoardGeometry(
        max(dc + a.width for a, dc, _, _ in result.placements), max(dr + a.height for a, _, dr, _ in result.placements),
        max(int(dc * vasl.HEX_WIDTH) + a.grid_width for a, dc, _, _ in result.placements),
        max(int(dr * vasl.HEX_HEIGHT) + a.grid_height for a, _, dr, _ in result.placements))
    placed: list[Placed] = []
    counters: list[dict[str, object]] = []
    units: list[dict[str, object]] = []
    for p in game.pieces:
        k = classify(p)
        if not k.table:
            continue
        x, y = p.x - MAP_EDGE + shift[0], p.y - MAP_EDGE + shift[1]
        hex_name = None
        off = None
        if 0 <= x < geo.grid_width and 0 <= y < geo.grid_height:
            c, r = geo.hex_at(x, y)
            h = Hex(c, r)
            on_board = any(bp.from_map(h) is not None for bp in m.depiction.boards) and not m.terrain(h).offboard
            if on_board:
                hex_name = m.name_of(h)
                cx, cy = geo.centre(c, r)
                off = ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5
                if off > _VERTEX_NEAR * 2 and k.table == "unit":
                    # VASL snaps a piece to a hex centre, or to a vertex for a unit in Bypass (A4.34)
                    for n in range(6):
                        v = h.vertex(n)
                        (gx, gy) = v.point()
                        vx, vy = gx * vasl.HEX_WIDTH / 3, (gy - 1) * vasl.HEX_HEIGHT / 2
                        if ((x - vx) ** 2 + (y - vy) ** 2) ** 0.5 <= _VERTEX_NEAR:
                            hex_name = m.name_of(Location(h, vertex=v))
                            off = ((x - vx) ** 2 + (y - vy) ** 2) ** 0.5
                            break
        side = p.nationality
        if k.table == "unit" or (hex_name is None and k.kind in ("vehicle", "wreck")):
            entry: dict[str, object] = {"name": p.name, "kind": k.kind if k.table == "unit" else "vehicle"}
            if side:
                entry["side"] = side
            if hex_name is not None:
                entry["at"] = hex_name
            units.append(entry)
            placed.append(Placed(p, k, entry, hex_name, off))
            continue
        if hex_name is None:
            placed.append(Placed(p, k, None, None, None, "off the map"))
            unsupported.append(f"{p.name}: a {k.kind} counter off the map (not carried)")
            continue
        entry = {"type": k.kind, "at": hex_name}
        if k.kind == "smoke":
            kind = k.detail if k.detail in ("smoke", "wp") else "dispersed-smoke"
            entry.update(strength=int(default_chart().param(_SMOKE_PARAM[kind]).value), kind=kind)
        elif k.kind in ("vehicle", "wreck"):
            entry["name"] = p.name
            if p.facing is not None and p.facings == 6:
                entry["facing"] = p.facing
        elif k.kind in ("wire", "roadblock", "mines"):
            placed.append(Placed(p, k, None, hex_name, off, f"{k.kind} is not carried from a save"))
            why = {"mines": "the save does not give their strength", "wire": "the map format has no wire",
                   "roadblock": "a roadblock lies on a hexside the piece's position does not name"}[k.kind]
            unsupported.append(f"{p.name} in {hex_name}: {k.kind} counters are not carried from a save ({why})")
            continue
        counters.append(entry)
        placed.append(Placed(p, k, entry, hex_name, off))
    if counters:
        data["counter"] = counters
    if units:
        data["unit"] = units
    Map.from_data(data)  # what is written must load
    return SaveImport(data, unsupported, placed, game)
