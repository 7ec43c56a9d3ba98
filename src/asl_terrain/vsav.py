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
import math
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import MapError

if TYPE_CHECKING:
    from .chart import Chart

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
    detail: str = ""  # SMOKE's kind ("smoke", "wp", "dispersed-smoke"), mines' kind, rubble's material ...
    strength: int | None = None  # the value printed on the counter (SMOKE's +3, a mine factor's 6)
    level: int | None = None  # a level marker's building level


_SW = re.compile(r"^(LMG|MMG|HMG|\.50-cal|FT|DC|ATR|PSK|BAZ|PIAT|Radio|Field Phone|\d+\*? MTR|LtMTR|MTR|"
                 r"MOL-P|PF|ATMM|\.30-cal)\b")
_SQUAD = re.compile(r"^\d+-\d+-\d+ [A-Z]?sq$")
_HALF = re.compile(r"^\d+-\d+-\d+ [A-Z]?hs$")
_CREW = re.compile(r"^\d+-\d+-\d+ [A-Z]?cr$")
_LEADER = re.compile(r"^([a-z]{2})?(LDR|COM|HERO|ldr)\b|^\d+-\d+ |^[A-Z]{2} (Leader|Hero)")


# VASL's names for the counters that change terrain and LOS (its SharedBoardMetadata.xml LOSCounterRules:
# "White +3 Smoke", "Gray +2 Smoke", "White +1 WP", "Smoke grenade +2", "Blazing Building", "Stone Rubble",
# "Burnt Out Wreck", "Roadblock"); the older plain names ("Smoke", "WP", "Rubble") are read too
_SMOKE = re.compile(r"^(?:(?P<shade>white|gray|grey)\s+)?\+(?P<n>\d)\s+(?P<what>smoke|wp)$"
                    r"|^(?P<what2>smoke|wp) grenade \+(?P<n2>\d)$")
_MINES = re.compile(r"^(?:(?P<n>\d+)\s*(?:factors?\s+)?)?(?P<kind>a-?p|a-?t)?\s*mines?(?:\s+(?P<n2>\d+))?$")
_LEVEL = re.compile(r"^(?:level|lvl)\s*(?P<n>\d)$|^(?P<n2>\d)(?:st|nd|rd|th)?\s+level$")


def classify(p: Piece) -> Kind:
    """What ``p`` is, from its name, images and VASL's counter type (``DBCounterType``)."""
    name = p.name.strip()
    low = name.lower()
    ctype = p.props.get("DBCounterType", "")
    if (ctype == "global" or not name or name in ("?", "User-Labeled") or p.map != MAIN_MAP
            or p.image.startswith("tables/")):
        return Kind("", "marker")
    return _terrain_counter(low) or _rules_piece(p, name, ctype)


def _terrain_counter(low: str) -> Kind | None:
    """The counters that change terrain, LOS or movement (SMOKE, wrecks, rubble, fortifications), or None."""
    if "wreck" in low:
        return Kind("counter", "wreck", "burnt-out" if "burnt" in low else "")
    m = _SMOKE.match(low)
    if m is not None:
        what, n = (m.group("what"), m.group("n")) if m.group("what") else (m.group("what2"), m.group("n2"))
        shade = "dispersed-" if m.group("shade") in ("gray", "grey") else ""
        return Kind("counter", "smoke", shade + what, int(n))
    if low.startswith("smoke") or low.startswith("wp") or low in ("dsmoke", "dispersed smoke"):
        detail = "wp" if low.startswith("wp") else "dispersed-smoke" if low.startswith("d") else "smoke"
        return Kind("counter", "smoke", detail)
    if "rubble" in low:
        return Kind("counter", "rubble", "stone" if "stone" in low else "wooden" if "wood" in low else "")
    if "blaze" in low or low.startswith("blazing"):
        return Kind("counter", "blaze")
    if low.startswith(("foxhole", "trench", "entrench", "sangar", "ditch")) or re.match(r"^\d+s foxhole", low):
        return Kind("counter", "entrenchment", low.split()[-1])
    m = _MINES.match(low)
    if m is not None and "mine" in low:
        kind = "A-T" if (m.group("kind") or "").replace("-", "") == "at" else "A-P"
        n = m.group("n") or m.group("n2")
        return Kind("counter", "mines", kind, int(n) if n else None)
    if low.startswith("wire"):
        return Kind("counter", "wire")
    if low.startswith("roadblock"):
        return Kind("counter", "roadblock")
    m = _LEVEL.match(low)
    if m is not None:
        return Kind("", "level", level=int(m.group("n") or m.group("n2")))
    return None


def _rules_piece(p: Piece, name: str, ctype: str) -> Kind:
    """Vehicles, Guns and the units (squads, half-squads, crews, leaders, SW)."""
    if any("/veh/" in i or "/vehicles/" in i for i in (p.image, *p.images)):
        return Kind("counter", "vehicle")
    if any("/gun/" in i or "/guns/" in i for i in (p.image, *p.images)) or ctype == "gun":
        return Kind("unit", "gun")
    for pattern, kind in ((_SQUAD, "squad"), (_HALF, "half-squad"), (_CREW, "crew"), (_LEADER, "leader"),
                          (_SW, "sw")):
        if pattern.match(name):
            return Kind("unit", kind)
    if ctype == "unit":
        return Kind("unit", "unit")
    return Kind("", "unknown")


# ------------------------------------------------------------------------------ a saved game as a map

# the chart's Hindrance DRM of each kind of SMOKE counter (A24.1, A24.31, A24.3), for a counter whose
# name gives no value
_SMOKE_PARAM = {"smoke": "smoke_counter_hindrance", "wp": "wp_counter_hindrance",
                "dispersed-smoke": "dispersed_smoke_hindrance", "dispersed-wp": "dispersed_wp_hindrance"}


def smoke_counter(at: str, kind: str, printed: int | None, chart: Chart | None = None) -> dict[str, object]:
    """The map entry of a SMOKE counter of ``kind`` (smoke, wp, dispersed-smoke, dispersed-wp; any other: smoke)
    in ``at``: of its ``printed`` strength, else of the chart's Hindrance DRM for its kind."""
    from .chart import default_chart

    kind = kind if kind in _SMOKE_PARAM else "smoke"
    ch = chart if chart is not None else default_chart()
    strength = printed if printed is not None else int(ch.param(_SMOKE_PARAM[kind]).value)
    return {"type": "smoke", "at": at, "strength": strength, "kind": kind}


_VERTEX_NEAR = 6.0  # pixels: a unit this close to a hex's vertex is at the vertex (Bypass, A4.34)
_HEXSIDE_NEAR = 6.0  # pixels: a counter this close to a hexside's midpoint lies on it (VASL snaps to hexsides)
_SNAPPED = 12.0  # pixels: a piece farther than this from its hex's centre may be at a vertex or hexside


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
            if p.entry is not None and "at" not in p.entry and "hexside" not in p.entry:
                out.setdefault(p.piece.nationality or "unknown side", []).append(p.piece.name)
        return out


def import_save(path: str | Path, *, boards_dir: str | Path | None = None, name: str | None = None,
                chart: Chart | None = None) -> SaveImport:
    """A map of a VASL saved game: its boards in their layout (flipped and cropped as VASL shows them), the
    SSRs it can read, and every piece the rules use, placed in its hex (board-named), or listed off the map.

    :param boards_dir: where the board archives are (see :func:`asl_terrain.vasl.find_board`).
    :param chart: the chart whose SMOKE strengths a counter named without a value gets (default: the bundled).
    :raises MapError: a save that cannot be read, a board archive that cannot be found.
    """
    from . import vasl
    from .model import Map

    game = read_save(path)
    archives, laid = _board_archives(game, boards_dir)
    boards = [b for row in game.layout for b in row]
    layout = ";".join(",".join(("r" if b.flipped else "") + b.archive_name for b in row) for row in game.layout)
    result = vasl.import_boards(archives, layout=layout, name=name or Path(path).stem,
                                archive_refs={a.archive_name: a.archive_name for a in archives})
    data = result.map
    placements = [(arch, dc, dr) for arch, dc, dr, _ in result.placements]
    unsupported = _board_notes(boards, placements, laid)
    frame = _apply_crops(data, boards, placements, unsupported)
    _apply_ssr(data, game, unsupported)
    m = Map.from_data(data)
    placed = _place_pieces(game, m, frame, unsupported, chart)
    for table in ("counter", "unit"):
        entries = [p.entry for p in placed if p.entry is not None and _table_of(p) == table]
        if entries:
            data[table] = entries
    if unsupported:
        data["not_carried"] = [*data.get("not_carried", []), *unsupported]
    Map.from_data(data)  # what is written must load
    return SaveImport(data, unsupported, placed, game)


def _table_of(p: Placed) -> str:
    # a vehicle off the map waits to enter with the units; on it, it is a counter the rules see
    if p.kind.table == "unit" or (p.entry is not None and "type" not in p.entry):
        return "unit"
    return "counter"


def _board_archives(game: SavedGame, boards_dir: str | Path | None) -> tuple[list[Any], set[tuple[str, str, str]]]:
    """The board archives of the game, in the order written, with the overlays VASL laid on them (issue 15);
    and the overlays laid (those whose archive was found)."""
    from . import vasl

    archives: list[Any] = [vasl.read_board(vasl.find_board(b.archive_name, boards_dir)) for b in game.boards]
    laid: set[tuple[str, str, str]] = set()
    for i, b in enumerate(game.boards):
        if not b.overlays:
            continue
        from .overlays import archive_of, lay_overlays, read_overlay

        placements = []
        for ovr in b.overlays:
            try:
                read_overlay(archive_of(ovr[0]), name=ovr[0])
            except MapError:
                continue
            placements.append(f"{archive_of(ovr[0])} {ovr[1]} {ovr[2]}")
            laid.add(ovr)
        archives[i] = lay_overlays(archives[i], placements)
    return archives, laid


def _board_notes(boards: list[SavedBoard], placements: list[tuple[Any, int, int]],
                 laid: set[tuple[str, str, str]]) -> list[str]:
    """What differs between the save's boards and the archives found: versions, overlays not laid."""
    out = []
    for b, (arch, _, _) in zip(boards, placements):
        if b.version and arch.metadata.version and b.version != arch.metadata.version:
            out.append(f"board {b.name}: the game was saved with v{b.version}, the archive is v{arch.metadata.version}")
        out.extend(f"board {b.name}: overlay {o[0]} at {o[1]}-{o[2]}: no overlay archive found (not laid)"
                   for o in b.overlays if o not in laid)
    return out


def _apply_ssr(data: dict[str, Any], game: SavedGame, unsupported: list[str]) -> None:
    """The save's SSR names as switches in ``[conditions] ssr``; those without one are listed with the reason."""
    from .ssr import from_vasl, not_carried_reason

    per_board = {b.name: set(b.ssr) for b in game.boards}
    names = sorted({s for b in game.boards for s in b.ssr})
    switches, missing = from_vasl(names)
    if switches:
        data.setdefault("conditions", {})["ssr"] = switches
    unsupported.extend(f"SSR {s}: {not_carried_reason(s)}" for s in missing)
    if len({frozenset(v) for v in per_board.values()}) > 1 and switches:
        unsupported.append("SSR: VASL applies each board's own SSRs; the boards of this game differ ("
                           + "; ".join(f"{n}: {' '.join(sorted(v)) or 'none'}" for n, v in per_board.items())
                           + "), and the switches are applied to the whole map")


# ------------------------------------------------------------------------------ crops and VASL's frame


@dataclass(frozen=True)
class _Frame:
    """VASL's picture of the layout, board by board: each board's rectangle in VASL's main map (less its
    400-pixel edge) and the translation from there to the map's grid frame (the layout of whole boards)."""

    boards: tuple[tuple[int, int, int, int, int, int], ...]  # x, y, width, height, dx, dy
    grid: Any  # the layout's vasl.BoardGeometry

    def to_grid(self, x: int, y: int) -> tuple[int, int] | None:
        """The grid-frame pixel of main-map pixel (x, y), or None off every board (VASL's margin)."""
        x, y = x - MAP_EDGE, y - MAP_EDGE
        for bx, by, w, h, dx, dy in self.boards:  # VASSAL's Map.findBoard: the first board holding it
            if bx <= x < bx + w and by <= y < by + h:
                return x + dx, y + dy
        return None


def _apply_crops(data: dict[str, Any], boards: list[SavedBoard], placements: list[tuple[Any, int, int]],
                 unsupported: list[str]) -> _Frame:
    """Crops as VASL shows them: the hexes of each cropped board outside its crop become offboard, and the
    frame maps VASL's pixels to the map's grid. VASSAL places a board right of the boards before it in its
    row and below those above it in its column, each as wide and high as its crop; that is the layout of
    whole boards shifted as one when every crop lies on the layout's outer edge. A crop that moves the
    other boards out of line is applied to the whole boards in their layout, and said so; its pieces still
    land right (each board's pixels are read in its own place in VASL's frame)."""
    from . import vasl
    from .vasl.layout import crop_offboard

    rects = _vasl_rects(boards, placements)
    shifts = []
    for b, (arch, dc, dr), (x, y, w, h) in zip(boards, placements, rects):
        ox, oy = _crop_origin(b, arch, w, h)
        shifts.append((int(dc * vasl.HEX_WIDTH) - x + ox, int(dr * vasl.HEX_HEIGHT) - y + oy))
    together = all(abs(sx - shifts[0][0]) <= 1 and abs(sy - shifts[0][1]) <= 1 for sx, sy in shifts)
    for b, entry in zip(boards, data["depiction"]["board"]):
        if b.version:
            entry["version"] = b.version
        if b.crop is None:
            continue
        entry["crop"] = "pixels " + " ".join(map(str, b.crop))
        if not together:
            unsupported.append(f"board {b.name}: cropped to pixels {b.crop} in the save, with which VASL draws the "
                               "boards beside or below it out of line; here the boards keep the layout of whole "
                               "boards, the hexes outside the crop offboard (its pieces are placed as VASL shows "
                               "them)")
    hidden = crop_offboard(placements, [_save_rect(b, w, h) if b.crop else None for b, (_, _, w, h) in zip(boards, rects)])
    if hidden:
        data.setdefault("hex", []).append({"at": hidden, "offboard": True})
    geo = vasl.BoardGeometry(
        max(dc + a.width for a, dc, _ in placements), max(dr + a.height for a, _, dr in placements),
        max(int(dc * vasl.HEX_WIDTH) + a.grid_width for a, dc, _ in placements),
        max(int(dr * vasl.HEX_HEIGHT) + a.grid_height for a, _, dr in placements))
    return _Frame(tuple((*r, *s) for r, s in zip(rects, shifts)), geo)


def _save_rect(b: SavedBoard, w: int, h: int) -> tuple[int, int, int, int]:
    # the crop as VASL shows it: its corner, and the size VASL gives the cropped board
    assert b.crop is not None
    return b.crop[0], b.crop[1], w, h


def _vasl_rects(boards: list[SavedBoard], placements: list[tuple[Any, int, int]]) -> list[tuple[int, int, int, int]]:
    """Each board's rectangle in VASL's main map (less the edge): VASSAL's ``Map.getLocation`` sums the
    widths of the boards left of it in its row and the heights of those above it in its column; a cropped
    board is its crop's width and height (the whole board's where the crop gives none)."""
    size = {}
    for b, (arch, _, _) in zip(boards, placements):
        _, _, cw, ch = b.crop or (0, 0, -1, -1)
        size[(b.column, b.row)] = (cw if cw > 0 else arch.grid_width, ch if ch > 0 else arch.grid_height)
    return [(sum(size.get((c, b.row), (0, 0))[0] for c in range(b.column)),
             sum(size.get((b.column, r), (0, 0))[1] for r in range(b.row)), *size[(b.column, b.row)]) for b in boards]


def _crop_origin(b: SavedBoard, arch: Any, w: int, h: int) -> tuple[int, int]:
    """Where VASL's picture of the board starts, in the board's pixels as placed on the map (a turned board's
    pixels are turned: VASL crops the board as printed, then turns the crop, ``ASLBoard.localCoordinates``)."""
    if b.crop is None:
        return 0, 0
    x0, y0 = b.crop[0], b.crop[1]
    return (arch.grid_width - w - x0, arch.grid_height - h - y0) if b.flipped else (x0, y0)


# ------------------------------------------------------------------------------ the pieces on the map


@dataclass(frozen=True)
class _Spot:
    """Where a piece lies on the map: its hex, how far from the point it snapped to (the hex's centre, a
    vertex or a hexside's midpoint), and that vertex or hexside."""

    hex: Any  # grid.Hex
    off: float
    vertex: Any = None  # grid.Vertex
    hexside: Any = None  # grid.Hexside


def _place_pieces(game: SavedGame, m: Any, frame: _Frame, unsupported: list[str],
                  chart: Chart | None = None) -> list[Placed]:
    """Every piece the rules use, with its map entry (or the reason it is not carried)."""
    levels = {(p.x, p.y): k.level for p in game.pieces if (k := classify(p)).kind == "level" and k.level}
    placed = []
    for p in game.pieces:
        k = classify(p)
        if not k.table:
            continue
        spot = _locate(m, frame, p, k)
        got = _entry(m, p, k, spot, levels.get((p.x, p.y)), unsupported, chart)
        if isinstance(got, str):
            placed.append(Placed(p, k, None, m.name_of(spot.hex) if spot else None, spot.off if spot else None, got))
            unsupported.append(f"{p.name}" + (f" in {m.name_of(spot.hex)}" if spot else "") + f": {got}")
            continue
        where = got.get("at", got.get("hexside"))
        placed.append(Placed(p, k, got, str(where) if where is not None else None, spot.off if spot else None))
    return placed


def _locate(m: Any, frame: _Frame, p: Piece, k: Kind) -> _Spot | None:
    """The spot of piece ``p`` on the map, or None when it is off the boards (or on a hex cropped away)."""
    from .grid import Hex

    got = frame.to_grid(p.x, p.y)
    if got is None:
        return None
    x, y = got
    geo = frame.grid
    if not (0 <= x < geo.grid_width and 0 <= y < geo.grid_height):
        return None
    h = Hex(*geo.hex_at(x, y))
    if not any(bp.from_map(h) is not None for bp in m.depiction.boards) or m.terrain(h).offboard:
        return None
    cx, cy = geo.centre(h.col, h.row)
    off = math.hypot(x - cx, y - cy)
    if off <= _SNAPPED:
        return _Spot(h, off)
    if k.table == "unit":  # VASL snaps a unit in Bypass to a vertex (A4.34)
        for v in (h.vertex(n) for n in range(6)):
            d = math.hypot(x - _px(v.point())[0], y - _px(v.point())[1])
            if d <= _VERTEX_NEAR:
                return _Spot(h, d, vertex=v)
    elif k.kind in ("vehicle", "wreck", "roadblock"):  # on a hexside: in Bypass along it, or a roadblock
        for hs in h.hexsides():
            if any(o not in m for o in hs.hexes):
                continue
            (ax, ay), (bx, by) = (o.centre() for o in hs.hexes)
            mx, my = _px(((ax + bx) / 2, (ay + by) / 2))
            d = math.hypot(x - mx, y - my)
            if d <= _HEXSIDE_NEAR:
                return _Spot(_bypassed_hex(m, hs, h), d, hexside=hs)
    return _Spot(h, off)


def _px(point: tuple[float, float]) -> tuple[float, float]:
    # grid.py's scaled point (3·col, 2·row + col % 2 for a centre) as a pixel of VASL's layout
    from .vasl import HEX_HEIGHT, HEX_WIDTH

    return point[0] * HEX_WIDTH / 3, (point[1] - 1) * HEX_HEIGHT / 2


def _bypassed_hex(m: Any, hs: Any, near: Any) -> Any:
    """The hex a vehicle on hexside ``hs`` is in: the one of its two hexes with an obstacle it bypasses (A4.3,
    D2.3), else the hex the pixel lies in."""
    obstacle = [h for h in hs.hexes if m.terrain(h).terrain not in ("open", "grain", "marsh")]
    return obstacle[0] if len(obstacle) == 1 else near


def _entry(m: Any, p: Piece, k: Kind, spot: _Spot | None, level: int | None,
           notes: list[str], chart: Chart | None = None) -> dict[str, object] | str:
    """The map entry of a piece at ``spot`` (None: off the map), or the reason it is not carried."""
    if k.table == "unit" or (spot is None and k.kind in ("vehicle", "wreck")):
        return _unit_entry(m, p, k, spot, level, notes)
    if spot is None:
        return f"a {k.kind} counter off the map (not carried)"
    at = m.name_of(spot.hex)
    if k.kind == "smoke":
        return smoke_counter(at, k.detail, k.strength, chart)
    if k.kind in ("vehicle", "wreck"):
        entry: dict[str, object] = {"type": k.kind, "at": at, "name": p.name}
        if spot.hexside is not None:
            entry["bypass"] = m.name_of(spot.hexside)
        if p.facing is not None and p.facings == 6:
            entry["facing"] = p.facing
        return entry
    if k.kind == "mines":
        if k.strength is None:
            return ("mines are not carried from a save when the counter gives no strength (B28.1: the factors "
                    "of a minefield are its own); add a [[counter]] of type mines with its strength")
        return {"type": "mines", "at": at, "kind": k.detail, "strength": k.strength}
    if k.kind == "roadblock":
        if spot.hexside is None:
            return ("a roadblock lies on a hexside (B29.1), and this one sits in its hex rather than on one: not "
                    "carried (add a [[counter]] of type roadblock with its hexside)")
        return {"type": "roadblock", "hexside": m.name_of(spot.hexside)}
    return {"type": k.kind, "at": at}


def _unit_entry(m: Any, p: Piece, k: Kind, spot: _Spot | None, level: int | None,
                notes: list[str]) -> dict[str, object]:
    """A ``[[unit]]`` entry: ``at`` its Location (a building level where a level marker lies on it, a vertex
    in Bypass), none off the map."""
    from .model import Location

    entry: dict[str, object] = {"name": p.name, "kind": k.kind if k.table == "unit" else "vehicle"}
    if p.nationality:
        entry["side"] = p.nationality
    if spot is not None:
        entry["at"] = m.name_of(Location(spot.hex, vertex=spot.vertex))
        if level and spot.vertex is None:
            try:
                entry["at"] = m.name_of(m.parse_location(f"{m.name_of(spot.hex)}/{level}"))
            except MapError as e:
                notes.append(f"{p.name} in {entry['at']}: a level {level} marker lies on it, but {e}; placed at "
                             "ground level")
    return entry
