"""SVG (and PNG) pictures of a map, drawn in layers from plain values.

Like ``chess.svg.board``, :func:`map_svg` takes a :class:`~asl_terrain.model.Map` plus overlays that the
caller computed (fills, labels, LOS threads, paths, marks, a caption) and returns an SVG string. It never
decides a rule and never calls an engine: a reach map, a viewshed or a LOS ruling is computed elsewhere
and handed over as colours, points and text.

The picture is drawn back to front, one ``<g id="layer-...">`` per layer:

==================  ==================================================================================
``layer-board``     an optional board image (``board_image``) under everything
``layer-levels``    Base Levels as shades: level 0 pale green, hills darker brown-orange, depressions
                    blue-grey
``layer-streams``   stream bands (centre to the midpoint of each stream hexside), culvert outline, ford
``layer-terrain``   woods, pine woods, brush, orchard, grain, buildings, rubble, graveyard, marsh,
                    shellholes, offboard hexes (terrain in a stream hex is translucent: the stream
                    shows beneath)
``layer-roads``     roads (centre to hexside midpoint) and Narrow Streets (along the hexside)
``layer-hexsides``  Crest Lines, walls, hedges, barbed-wire fences, slope hash marks
``layer-grid``      hex outlines and centre dots (steeple: black dot in a white cross, P5.2;
                    single-hex two-story house: large white dot, P5.3)
``layer-names``     hex names at the top of each hex
``layer-counters``  SMOKE, mines, residual FP, wrecks, vehicles, blaze, rubble, entrenchments, roadblocks
``layer-fills``     per-hex translucent colours
``layer-labels``    text at hex centres
``layer-paths``     polylines through points
``layer-threads``   LOS threads: green when clear, red with an X where blocked, hindrances circled
``layer-marks``     notes at points
``layer-legend``    swatches and labels of the features on this map, under it (``legend``; none with a
                    ``board_image``)
``layer-caption``   a text box under the map
==================  ==================================================================================

The streams layer lies under the terrain layer (stream-woods shows the stream beneath its trees).

All drawing coordinates are the pixels of :func:`asl_terrain.grid.to_pixel` for the chosen ``size``: the
``viewBox`` is shifted to the map's extent instead of the drawing, so a scaled point ``p`` is drawn at
``to_pixel(p, size)``.

Imports: grid and model only (standard library otherwise; ``cairosvg`` inside :func:`save`).
"""

from __future__ import annotations

import base64
import copy
import math
import re
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import UserError
from .grid import Hex, Hexside, Point
from .limits import MAX_PNG_PIXELS
from .model import BoardNaming, Counter, HexsideTerrain, HexTerrain, Map

__all__ = ["DEFAULT_COLORS", "Mark", "Thread", "map_svg", "save"]

XY = tuple[float, float]
"""A scaled point that may be fractional (a block point, a mark): same axes as :data:`grid.Point`."""

DEFAULT_COLORS: dict[str, str] = {
    "background": "#ffffff",
    # Base Levels (ASL hills: each level a darker brown-orange; depressions blue-grey)
    "level-0": "#dfe6b4",
    "level-1": "#e6cf92",
    "level-2": "#d9ac67",
    "level-3": "#c78a45",
    "level-4": "#ad6c2f",
    "level-5": "#8e5320",
    "level-6": "#6f3e15",
    "level-minus-1": "#b9c4cc",
    "level-minus-2": "#9eacb8",
    "level-minus-3": "#8494a3",
    # grid
    "grid": "#5b5b4a",
    "name": "#2b2b22",
    "name-halo": "#f4f4e8",
    "centre-dot": "#1a1a1a",
    "crest": "#5a3410",
    # terrain
    "woods": "#4d8a3c",
    "woods-edge": "#1f3f17",
    "pine-woods": "#2e6141",
    "pine-woods-edge": "#13301f",
    "pine-symbol": "#a9d3b0",
    "brush": "#b4d07c",
    "brush-dot": "#5f8a2c",
    "orchard": "#6aa548",
    "orchard-edge": "#2f5420",
    "grain": "#efde86",
    "grain-hatch": "#c2a032",
    "stone": "#a9a9a9",
    "wooden": "#b57b43",
    "building-edge": "#2a2a2a",
    "building-text": "#000000",
    "rubble": "#8c8c8c",
    "rubble-ground": "#d6d3cc",
    "graveyard": "#4a4a4a",
    "graveyard-ground": "#cfd8c0",
    "marsh": "#2d6db3",
    "marsh-ground": "#cfe2e0",
    "water": "#8fc6e8",
    "shellhole": "#7d5b36",
    "shellhole-fill": "#c8ad84",
    "offboard": "#8f8f8f",
    # streams
    "stream-dry": "#cdbb8a",
    "stream-shallow": "#5e9fd8",
    "stream-deep": "#2d63b3",
    "stream-flooded": "#1d4691",
    "stream-bank": "#27466e",
    "culvert": "#000000",
    "ford": "#8b5a2b",
    # roads
    "road-paved": "#9a9a9a",
    "road-dirt": "#c2935a",
    "road-edge": "#4a4a4a",
    "narrow-street-paved": "#8f8f8f",
    "narrow-street-unpaved": "#b9854b",
    # hexsides
    "wall": "#4d4d4d",
    "hedge": "#2a6a1c",
    "fence": "#111111",
    "slope": "#4f2a08",
    # counters
    "counter-edge": "#000000",
    "counter-text": "#000000",
    "smoke": "#cfcfcf",
    "mines": "#e2cd6a",
    "residual-fp": "#f0a3a3",
    "wreck": "#6a6a6a",
    "vehicle": "#7f8f4e",
    "burning": "#ff7a1a",
    "blaze": "#ff8c1a",
    "rubble-counter": "#a0a0a0",
    "entrenchment": "#9b7a48",
    "roadblock": "#3b2a1a",
    "wire": "#c9c9b4",
    "counter": "#ffffff",
    # overlays
    "label": "#000000",
    "halo": "#ffffff",
    "path": "#7b2fbf",
    "thread-clear": "#16a02a",
    "thread-blocked": "#d61f1f",
    "hindrance": "#ff8c00",
    "mark-note": "#1f4fbf",
    "mark-warning": "#e07b00",
    "mark-error": "#d61f1f",
    "mark-ok": "#16a02a",
    "caption": "#000000",
    "caption-background": "#f4f4ee",
    "caption-edge": "#9a9a8a",
}
"""Colours by key; :func:`map_svg` takes ``colors`` that override them key by key."""

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
FILL_OPACITY = 0.5
"""Opacity of the ``fills`` overlay (the colours are given opaque, e.g. ``"#ff0000"``)."""

# Offsets of the six vertices from the centre, vertex k between hexsides k and k + 1 (grid.py's order).
_VERTEX_STEP: tuple[Point, ...] = ((1, -1), (2, 0), (1, 1), (-1, 1), (-2, 0), (-1, -1))
_SQRT3 = math.sqrt(3)


@dataclass(frozen=True)
class Thread:
    """A LOS thread to draw, from ``start`` to ``end`` (scaled points: centre dots or vertices).

    ``clear`` draws it green; otherwise red, with an X at ``block`` if given. ``hindrances`` are circled.

    >>> Thread((39, 35), (45, 35), clear=False, block=(42, 35)).clear
    False
    """

    start: XY
    end: XY
    clear: bool
    block: XY | None = None
    hindrances: tuple[Hex, ...] = ()
    label: str = ""


@dataclass(frozen=True)
class Mark:
    """A note at a point (scaled coordinates, fractions allowed). ``kind`` picks the colour: ``note``,
    ``warning``, ``error`` or ``ok`` (others draw as ``note``)."""

    at: XY
    text: str
    kind: str = "note"


# ------------------------------------------------------------------------------------------ SVG helpers


def _num(x: float) -> str:
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _el(parent: ET.Element, tag: str, **attrs: object) -> ET.Element:
    """A child element; ``stroke_width`` becomes ``stroke-width``, ``class_`` becomes ``class``."""
    out: dict[str, str] = {}
    for k, v in attrs.items():
        if v is None:
            continue
        key = k.rstrip("_").replace("_", "-")
        out[key] = _num(v) if isinstance(v, float) else str(v)
    return ET.SubElement(parent, tag, out)


def _pts(points: Iterable[XY]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


def _lerp(p: XY, q: XY, t: float) -> XY:
    return (p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t)


class _Ctx:
    """What every layer needs: the map, the hex size, the colours, pixel geometry."""

    def __init__(self, m: Map, size: float, colors: Mapping[str, str]) -> None:
        self.m = m
        self.s = size
        self.c = colors
        self.hexes = list(m.hexes())
        self.terrain = {h: m.terrain(h) for h in self.hexes}
        seen: dict[Hexside, HexsideTerrain] = {}
        for h in self.hexes:
            for hst in m.hexsides_of(h):
                seen.setdefault(hst.hexside, hst)
        self.hexsides = list(seen.values())

    def px(self, p: XY) -> XY:
        """Pixel point of a scaled point (:func:`grid.to_pixel`, fractions allowed)."""
        return (p[0] * self.s / 2, p[1] * self.s * _SQRT3 / 2)

    def centre(self, h: Hex) -> XY:
        return self.px(h.centre())

    def corners(self, h: Hex, f: float = 1.0) -> list[XY]:
        """The six corners of ``h`` in pixels, pulled toward the centre by factor ``f``."""
        cx, cy = h.centre()
        return [self.px((cx + f * dx, cy + f * dy)) for dx, dy in _VERTEX_STEP]

    def endpoints(self, hs: Hexside) -> tuple[XY, XY]:
        p, q = hs.endpoints()
        return self.px(p), self.px(q)

    def midpoint(self, hs: Hexside) -> XY:
        x2, y2 = hs.midpoint_x2()
        return self.px((x2 / 2, y2 / 2))

    def on_map(self, h: Hex) -> bool:
        return h in self.terrain  # every hex of the map (a legend swatch: its one hex)

    def hex_path(self, hexes: Iterable[Hex], f: float = 1.0) -> str:
        """One path ``d`` with a closed hexagon per hex."""
        return " ".join("M" + " L".join(f"{_num(x)},{_num(y)}" for x, y in self.corners(h, f)) + " Z"
                        for h in hexes)

    def text(self, parent: ET.Element, xy: XY, s: str, size: float, *, fill: str, halo: str | None = None,
             weight: str = "normal", anchor: str = "middle", class_: str = "") -> None:
        """Text at ``xy`` (baseline), with an optional halo drawn under it for contrast."""
        if halo is not None:
            _el(parent, "text", x=xy[0], y=xy[1], font_size=size, font_family=FONT, font_weight=weight,
                text_anchor=anchor, fill=halo, stroke=halo, stroke_width=size * 0.25,
                stroke_linejoin="round", class_=(class_ + " halo").strip()).text = s
        _el(parent, "text", x=xy[0], y=xy[1], font_size=size, font_family=FONT, font_weight=weight,
            text_anchor=anchor, fill=fill, class_=class_ or None).text = s


def _layer(root: ET.Element, name: str) -> ET.Element:
    return _el(root, "g", id=f"layer-{name}", class_="layer")


def _bounds(ctx: _Ctx) -> tuple[float, float, float, float]:
    """Pixel extent (x0, y0, x1, y1) of the map's hexes."""
    g = ctx.m.grid
    edge = [Hex(col, row) for col in range(g.col_first, g.col_last + 1) for row in (g.row_first, g.row_last)]
    ys = [y for h in edge for _, y in ctx.corners(h)]
    x0 = ctx.px((3 * g.col_first - 2, 0))[0]
    x1 = ctx.px((3 * g.col_last + 2, 0))[0]
    return x0, min(ys), x1, max(ys)


# ------------------------------------------------------------------------------------------ the layers


def _draw_board(ctx: _Ctx, g: ET.Element, image: bytes, box: tuple[float, float, float, float]) -> None:
    mime = ("image/png" if image.startswith(b"\x89PNG") else "image/jpeg" if image.startswith(b"\xff\xd8")
            else "image/gif" if image.startswith(b"GIF8") else "image/svg+xml")
    x0, y0, x1, y1 = box
    _el(g, "image", x=x0, y=y0, width=x1 - x0, height=y1 - y0, preserveAspectRatio="none",
        **{"xlink:href": f"data:{mime};base64," + base64.b64encode(image).decode("ascii")})


def _level_color(ctx: _Ctx, level: int) -> str:
    # beyond the defined shades: the darkest (highest / lowest) one, found by a bounded search (a level of
    # 10**30 once stepped down one level at a time)
    shades = [int(k[6:]) for k in ctx.c if k.startswith("level-") and k[6:].isdigit()]
    deeps = [int(k[12:]) for k in ctx.c if k.startswith("level-minus-") and k[12:].isdigit()]
    if level >= 0:
        below = [x for x in shades if x <= level]
        return ctx.c[f"level-{max(below)}"] if below else ctx.c[f"level-{min(shades)}"]
    below = [x for x in deeps if x <= -level]
    return ctx.c[f"level-minus-{max(below)}"] if below else ctx.c["level-0"]


def _draw_levels(ctx: _Ctx, g: ET.Element) -> None:
    by_level: dict[int, list[Hex]] = {}
    for h in ctx.hexes:
        by_level.setdefault(ctx.terrain[h].level, []).append(h)
    for level in sorted(by_level):
        # a hair of stroke in the same colour hides anti-aliasing seams between hexes
        colour = _level_color(ctx, level)
        _el(g, "path", d=ctx.hex_path(by_level[level]), fill=colour, stroke=colour, stroke_width=0.6,
            class_=f"level level-{level}", **{"data-level": level})


def _spokes(parent: ET.Element, centre: XY, ends: Sequence[XY], colour: str, width: float, cls: str,
            dash: str | None = None) -> None:
    """A band from ``centre`` to each of ``ends`` (hexside midpoints): butt ends meet the next hex's band
    flush at the hexside; a disc joins the spokes at the centre (no disc under a dashed band)."""
    for q in ends:
        _el(parent, "line", x1=centre[0], y1=centre[1], x2=q[0], y2=q[1], stroke=colour, stroke_width=width,
            stroke_linecap="butt", stroke_dasharray=dash, class_=cls)
    if dash is None:
        _el(parent, "circle", cx=centre[0], cy=centre[1], r=width / 2, fill=colour, class_=cls + "-joint")


def _draw_streams(ctx: _Ctx, g: ET.Element) -> None:
    """Stream bands through the stream hexsides of each stream hex; culvert outline; printed ford."""
    streams = [h for h in ctx.hexes if ctx.terrain[h].is_stream]
    ends = {h: [ctx.midpoint(hst.hexside) for hst in ctx.m.hexsides_of(h) if hst.stream] for h in streams}
    culverts = _el(g, "g", class_="culverts")
    banks = _el(g, "g", class_="stream-banks")
    water = _el(g, "g", class_="stream-water")
    for h in streams:
        _draw_stream_band(ctx, (culverts, banks, water), ctx.terrain[h], ctx.centre(h), ends[h])
    for h in streams:
        if ctx.terrain[h].ford:
            _draw_ford(ctx, g, ctx.centre(h), ends[h])


def _draw_stream_band(ctx: _Ctx, groups: tuple[ET.Element, ET.Element, ET.Element], t: HexTerrain, c: XY,
                      ends: Sequence[XY]) -> None:
    """The band of one stream hex into ``(culverts, banks, water)``: centre ``c`` to each of ``ends``."""
    s = ctx.s
    culverts, banks, water = groups
    if t.culvert:  # P4.2: a thick black dashed outline around the stream band
        _spokes(culverts, c, ends, ctx.c["culvert"], 0.54 * s, "culvert", dash=f"{_num(0.14 * s)},{_num(0.09 * s)}")
        _spokes(culverts, c, ends, ctx.c["halo"], 0.42 * s, "culvert-gap")
    _spokes(banks, c, ends, ctx.c["stream-bank"], 0.34 * s, "stream-bank")
    _spokes(water, c, ends, ctx.c.get(f"stream-{t.stream}", ctx.c["stream-shallow"]), 0.26 * s,
            f"stream stream-{t.stream}")


def _draw_ford(ctx: _Ctx, g: ET.Element, c: XY, ends: Sequence[XY]) -> None:
    """The printed ford: a brown bar across the stream band at centre ``c``."""
    cx, cy = c
    if ends:
        x1, y1 = ends[0]
        d = math.hypot(x1 - cx, y1 - cy) or 1.0
        ux, uy = (x1 - cx) / d, (y1 - cy) / d
    else:
        ux, uy = 1.0, 0.0
    half = 0.3 * ctx.s
    _el(g, "line", x1=cx - uy * half, y1=cy + ux * half, x2=cx + uy * half, y2=cy - ux * half,
        stroke=ctx.c["ford"], stroke_width=0.14 * ctx.s, stroke_linecap="butt", class_="ford")


def _cloud(ctx: _Ctx, h: Hex) -> list[tuple[XY, float]]:
    """Circles whose union is a rounded woods blob filling most of ``h``."""
    s = ctx.s
    cx, cy = ctx.centre(h)
    out = [((cx, cy), 0.52 * s)]
    for k in range(6):
        a = math.radians(60 * k)
        out.append(((cx + 0.5 * s * math.cos(a), cy + 0.5 * s * math.sin(a)), 0.33 * s))
    return out


def _draw_woods(ctx: _Ctx, edges: ET.Element, fills: ET.Element, symbols: ET.Element, h: Hex,
                kind: str) -> None:
    """Woods / pine woods: a dark green blob, joined to the woods next to it."""
    s = ctx.s
    circles = _cloud(ctx, h)
    wet = ctx.terrain[h].is_stream  # stream-woods stands apart from dry woods (drawn translucent)
    same = [ctx.on_map(n) and ctx.terrain[n].terrain == kind and ctx.terrain[n].is_stream == wet
            for n in h.neighbours()]
    sx, sy = h.centre()
    for k in range(6):
        if same[k]:  # joined to the woods across this hexside
            circles.append((ctx.midpoint(h.hexside(k)), 0.36 * s))
        if same[k] and same[(k + 1) % 6]:  # and filled up to the vertex where three woods hexes meet
            vx, vy = _VERTEX_STEP[k]
            circles.append((ctx.px((sx + 0.85 * vx, sy + 0.85 * vy)), 0.3 * s))
    for (x, y), r in circles:
        _el(edges, "circle", cx=x, cy=y, r=r + 0.05 * s, fill=ctx.c[f"{kind}-edge"])
        _el(fills, "circle", cx=x, cy=y, r=r, fill=ctx.c[kind], class_=kind)
    cx, cy = ctx.centre(h)
    if kind == "pine-woods":  # small pine trees
        for dx, dy in ((-0.32, -0.12), (0.32, -0.12), (0.0, 0.22), (-0.02, -0.4), (-0.3, 0.4), (0.3, 0.4)):
            x, y = cx + dx * s, cy + dy * s
            w, ht = 0.11 * s, 0.22 * s
            _el(symbols, "polygon", points=_pts([(x, y - ht / 2), (x + w, y + ht / 2), (x - w, y + ht / 2)]),
                fill=ctx.c["pine-symbol"], class_="pine")
    else:  # a few lighter crowns give it texture
        for dx, dy in ((-0.3, -0.2), (0.25, -0.3), (0.05, 0.1), (-0.25, 0.35), (0.35, 0.25)):
            _el(symbols, "circle", cx=cx + dx * s, cy=cy + dy * s, r=0.1 * s, fill="none",
                stroke=ctx.c["woods-edge"], stroke_width=0.03 * s, stroke_opacity=0.5)


def _draw_orchard(ctx: _Ctx, g: ET.Element, h: Hex) -> None:
    s = ctx.s
    cx, cy = ctx.centre(h)
    for dy in (-0.42, 0.0, 0.42):
        for dx in (-0.46, 0.0, 0.46):
            x, y = cx + dx * s, cy + dy * s
            _el(g, "circle", cx=x, cy=y, r=0.13 * s, fill=ctx.c["orchard"], stroke=ctx.c["orchard-edge"],
                stroke_width=0.035 * s, class_="orchard-tree")


def _draw_building(ctx: _Ctx, edges: ET.Element, fills: ET.Element, texts: ET.Element, h: Hex,
                   t: HexTerrain) -> None:
    """An inset polygon; hexes of one building_id are joined across their shared hexsides and vertices."""
    s = ctx.s
    f = 0.62
    colour = ctx.c["wooden" if t.building == "wooden" else "stone"]
    shapes = [ctx.corners(h, f)]
    bid = t.building_id
    if bid is not None:
        same = [n for n in h.neighbours() if ctx.on_map(n) and ctx.terrain[n].is_building
                and ctx.terrain[n].building_id == bid]
        cx, cy = h.centre()
        for k, n in enumerate(h.neighbours()):
            if n not in same or n < h:
                continue  # each bridge once
            p, q = h.hexside(k).endpoints()
            nx, ny = n.centre()
            a1 = ctx.px((cx + f * (p[0] - cx), cy + f * (p[1] - cy)))
            a2 = ctx.px((cx + f * (q[0] - cx), cy + f * (q[1] - cy)))
            b2 = ctx.px((nx + f * (q[0] - nx), ny + f * (q[1] - ny)))
            b1 = ctx.px((nx + f * (p[0] - nx), ny + f * (p[1] - ny)))
            shapes.append([a1, a2, b2, b1])
        for k in range(6):  # a vertex where three hexes of the building meet
            n1, n2 = h.neighbour(k), h.neighbour(k + 1)
            if n1 in same and n2 in same and h < n1 and h < n2:
                vx, vy = cx + _VERTEX_STEP[k][0], cy + _VERTEX_STEP[k][1]
                shapes.append([ctx.px((ox + f * (vx - ox), oy + f * (vy - oy)))
                               for ox, oy in (h.centre(), n1.centre(), n2.centre())])
    cls = f"building building-{t.building or 'stone'}"
    for pts in shapes:
        _el(edges, "polygon", points=_pts(pts), fill=ctx.c["building-edge"], stroke=ctx.c["building-edge"],
            stroke_width=0.1 * s, stroke_linejoin="round")
        _el(fills, "polygon", points=_pts(pts), fill=colour, stroke=colour, stroke_width=0.02 * s,
            stroke_linejoin="round", class_=cls)  # the hair of stroke hides seams between the pieces
    stories = t.building_levels + 1
    if stories > 1:
        x, y = ctx.centre(h)
        ctx.text(texts, (x + 0.24 * s, y + 0.4 * s), str(stories), 0.26 * s, fill=ctx.c["building-text"],
                 halo=ctx.c["halo"], weight="bold", class_="building-levels")


def _scatter(ctx: _Ctx, h: Hex, n: int, radius: float) -> list[XY]:
    """``n`` fixed, evenly spread points in ``h`` (a sunflower spiral: no randomness)."""
    cx, cy = ctx.centre(h)
    golden = math.pi * (3 - math.sqrt(5))
    return [(cx + radius * ctx.s * math.sqrt((i + 0.5) / n) * math.cos(i * golden),
             cy + radius * ctx.s * math.sqrt((i + 0.5) / n) * math.sin(i * golden)) for i in range(n)]


def _draw_rubble(ctx: _Ctx, g: ET.Element, h: Hex, t: HexTerrain) -> None:
    s = ctx.s
    _el(g, "path", d=ctx.hex_path([h], 0.66), fill=ctx.c["rubble-ground"], stroke=ctx.c["rubble"],
        stroke_width=0.04 * s, stroke_dasharray=_num(0.08 * s), class_=f"rubble rubble-{t.building or 'stone'}")
    dot = ctx.c["wooden"] if t.building == "wooden" else ctx.c["rubble"]
    for i, (x, y) in enumerate(_scatter(ctx, h, 22, 0.5)):
        _el(g, "circle", cx=x, cy=y, r=(0.045 + 0.02 * (i % 3)) * s, fill=dot)


def _draw_graveyard(ctx: _Ctx, g: ET.Element, h: Hex) -> None:
    s = ctx.s
    _el(g, "path", d=ctx.hex_path([h], 0.7), fill=ctx.c["graveyard-ground"], stroke=ctx.c["graveyard"],
        stroke_width=0.03 * s, class_="graveyard")
    cx, cy = ctx.centre(h)
    a = 0.09 * s
    for dx, dy in ((-0.3, -0.22), (0.0, -0.22), (0.3, -0.22), (-0.15, 0.12), (0.15, 0.12), (-0.3, 0.42),
                   (0.0, 0.42), (0.3, 0.42)):
        x, y = cx + dx * s, cy + dy * s
        _el(g, "path", d=f"M{_num(x)},{_num(y - a)} V{_num(y + a * 1.3)} M{_num(x - a * 0.7)},{_num(y - a * 0.2)} "
            f"H{_num(x + a * 0.7)}", stroke=ctx.c["graveyard"], stroke_width=0.04 * s, fill="none")


def _draw_marsh(ctx: _Ctx, g: ET.Element, h: Hex) -> None:
    s = ctx.s
    _el(g, "path", d=ctx.hex_path([h]), fill=ctx.c["marsh-ground"], class_="marsh")
    d = []
    for x, y in _scatter(ctx, h, 9, 0.62):
        a, b = 0.13 * s, 0.08 * s
        d.append(f"M{_num(x - b)},{_num(y - a)} L{_num(x)},{_num(y)} L{_num(x + b)},{_num(y - a)} "
                 f"M{_num(x)},{_num(y)} V{_num(y - a * 1.2)} M{_num(x - b * 1.6)},{_num(y)} H{_num(x + b * 1.6)}")
    _el(g, "path", d=" ".join(d), stroke=ctx.c["marsh"], stroke_width=0.035 * s, fill="none",
        stroke_linecap="round")


def _draw_shellholes(ctx: _Ctx, g: ET.Element, h: Hex) -> None:
    s = ctx.s
    cx, cy = ctx.centre(h)
    for dx, dy, r in ((-0.35, -0.25, 0.17), (0.3, -0.3, 0.14), (0.0, 0.1, 0.2), (-0.3, 0.4, 0.12),
                      (0.38, 0.3, 0.15)):
        _el(g, "circle", cx=cx + dx * s, cy=cy + dy * s, r=r * s, fill=ctx.c["shellhole-fill"],
            stroke=ctx.c["shellhole"], stroke_width=0.05 * s, class_="shellhole")


def _draw_field(ctx: _Ctx, g: ET.Element, h: Hex, kind: str, ink: str, f: float) -> None:
    """Brush (stipple) or grain (hatching): a solid inset hex, then its pattern on top."""
    d = ctx.hex_path([h], f)
    _el(g, "path", d=d, fill=ctx.c[kind], stroke=ctx.c[ink], stroke_width=0.03 * ctx.s, stroke_linejoin="round",
        class_=kind)
    _el(g, "path", d=d, fill=f"url(#pattern-{kind})")


def _draw_terrain(ctx: _Ctx, g: ET.Element) -> None:
    """Terrain symbols; terrain in a stream hex goes in a translucent group so the stream shows."""

    def groups(parent: ET.Element) -> dict[str, ET.Element]:
        names = ("fields", "woods-edge", "woods", "woods-symbols", "orchard", "building-edge", "building",
                 "building-text")
        return {n: _el(parent, "g", class_=n) for n in names}

    dry = groups(g)
    wet = groups(_el(g, "g", class_="stream-terrain", opacity=0.7))
    for h in ctx.hexes:
        t = ctx.terrain[h]
        sub = wet if t.is_stream else dry
        kind = t.terrain
        if kind in ("woods", "pine-woods"):
            _draw_woods(ctx, sub["woods-edge"], sub["woods"], sub["woods-symbols"], h, kind)
        elif kind == "brush":
            _draw_field(ctx, sub["fields"], h, "brush", "brush-dot", 0.9)
        elif kind == "grain":
            _draw_field(ctx, sub["fields"], h, "grain", "grain-hatch", 0.92)
        elif kind == "orchard":
            _draw_orchard(ctx, sub["orchard"], h)
        elif kind == "building":
            _draw_building(ctx, sub["building-edge"], sub["building"], sub["building-text"], h, t)
        elif kind == "rubble":
            _draw_rubble(ctx, sub["fields"], h, t)
        elif kind == "graveyard":
            _draw_graveyard(ctx, sub["fields"], h)
        elif kind == "marsh":
            _draw_marsh(ctx, sub["fields"], h)
        elif kind == "shellholes":
            _draw_shellholes(ctx, sub["fields"], h)
        elif kind == "water":  # B21: a Water Obstacle, drawn as flat water
            _el(sub["fields"], "path", d=ctx.hex_path([h]), fill=ctx.c["water"], class_="water")
    off = [h for h in ctx.hexes if ctx.terrain[h].offboard]
    if off:
        _el(g, "path", d=ctx.hex_path(off), fill=ctx.c["offboard"], fill_opacity=0.75, class_="offboard")


def _draw_roads(ctx: _Ctx, g: ET.Element) -> None:
    edges = _el(g, "g", class_="road-edges")
    fills = _el(g, "g", class_="road-fills")
    for h in ctx.hexes:
        roads = [hst for hst in ctx.m.hexsides_of(h) if hst.road is not None]
        if not roads:
            continue
        _draw_road_hex(ctx, edges, fills, ctx.centre(h), [(str(hst.road), ctx.midpoint(hst.hexside)) for hst in roads])
    for hst in ctx.hexsides:
        if hst.narrow_street is not None:
            _draw_narrow_street(ctx, edges, fills, hst, *ctx.endpoints(hst.hexside))


def _draw_road_hex(ctx: _Ctx, edges: ET.Element, fills: ET.Element, c: XY, roads: Sequence[tuple[str, XY]]) -> None:
    """Road bands from centre ``c`` to each ``(kind, hexside midpoint)``."""
    s = ctx.s
    _spokes(edges, c, [mid for _, mid in roads], ctx.c["road-edge"], 0.3 * s, "road-edge")
    for kind in sorted({k for k, _ in roads}):  # "paved" last: over dirt at a junction
        mids = [mid for k, mid in roads if k == kind]
        _spokes(fills, c, mids, ctx.c.get(f"road-{kind}", ctx.c["road-dirt"]), 0.22 * s, f"road road-{kind}")


def _draw_narrow_street(ctx: _Ctx, edges: ET.Element, fills: ET.Element, hst: HexsideTerrain, p: XY,
                        q: XY) -> None:
    s = ctx.s
    colour = ctx.c.get(f"narrow-street-{hst.narrow_street}", ctx.c["narrow-street-paved"])
    _el(edges, "line", x1=p[0], y1=p[1], x2=q[0], y2=q[1], stroke=ctx.c["road-edge"], stroke_width=0.3 * s,
        stroke_linecap="round", class_="narrow-street-edge")
    _el(fills, "line", x1=p[0], y1=p[1], x2=q[0], y2=q[1], stroke=colour, stroke_width=0.22 * s,
        stroke_linecap="round", class_=f"narrow-street narrow-street-{hst.narrow_street}",
        **{"data-hexside": str(hst.hexside)})


def _draw_hexsides(ctx: _Ctx, g: ET.Element) -> None:
    for hst in ctx.hexsides:
        if hst.crest:
            _draw_crest(ctx, g, *ctx.endpoints(hst.hexside))
    for hst in ctx.hexsides:
        p, q = ctx.endpoints(hst.hexside)
        _draw_hexside_features(ctx, g, hst, p, q, ctx.centre(hst.slope) if hst.slope is not None else None)


def _draw_crest(ctx: _Ctx, g: ET.Element, p: XY, q: XY) -> None:
    _el(g, "line", x1=p[0], y1=p[1], x2=q[0], y2=q[1], stroke=ctx.c["crest"], stroke_width=0.045 * ctx.s,
        stroke_linecap="round", class_="crest")


def _draw_hexside_features(ctx: _Ctx, g: ET.Element, hst: HexsideTerrain, p: XY, q: XY,
                           down: XY | None) -> None:
    """Hedge, wall, fence and slope marks of ``hst`` along ``p``-``q``; ``down``: the Down-Slope centre."""
    s = ctx.s
    name = {"data-hexside": str(hst.hexside)}
    if hst.hedge:
        _el(g, "line", x1=p[0], y1=p[1], x2=q[0], y2=q[1], stroke=ctx.c["hedge"], stroke_width=0.17 * s,
            stroke_linecap="round", class_="hedge", **name)
    if hst.cliff:  # B11: drawn as a dark line along the hexside
        _el(g, "line", x1=p[0], y1=p[1], x2=q[0], y2=q[1], stroke=ctx.c["crest"], stroke_width=0.2 * s,
            stroke_linecap="butt", class_="cliff", **name)
    if hst.bocage:  # B9.5: a hedge on an earth bank, drawn thicker than a hedge
        _el(g, "line", x1=p[0], y1=p[1], x2=q[0], y2=q[1], stroke=ctx.c["hedge"], stroke_width=0.28 * s,
            stroke_linecap="round", class_="bocage", **name)
    if hst.wall:
        _el(g, "line", x1=p[0], y1=p[1], x2=q[0], y2=q[1], stroke=ctx.c["wall"], stroke_width=0.13 * s,
            stroke_linecap="round", class_="wall", **name)
    if hst.fence:
        _el(g, "line", x1=p[0], y1=p[1], x2=q[0], y2=q[1], stroke=ctx.c["fence"], stroke_width=0.03 * s,
            class_="fence", **name)
        a = 0.06 * s
        d = " ".join(f"M{_num(x - a)},{_num(y - a)} L{_num(x + a)},{_num(y + a)} "
                     f"M{_num(x - a)},{_num(y + a)} L{_num(x + a)},{_num(y - a)}"
                     for x, y in (_lerp(p, q, t) for t in (0.2, 0.4, 0.6, 0.8)))
        _el(g, "path", d=d, stroke=ctx.c["fence"], stroke_width=0.03 * s, fill="none", class_="fence-x")
    if hst.slope is not None and down is not None:
        _draw_slope(ctx, g, hst, p, q, down)


def _draw_slope(ctx: _Ctx, g: ET.Element, hst: HexsideTerrain, p: XY, q: XY, c: XY) -> None:
    """Hash marks on the Down-Slope side (P2.2): ticks from the hexside toward ``c``, the centre of the hex
    ``hst.slope``."""
    mid = _lerp(p, q, 0.5)
    d = math.hypot(c[0] - mid[0], c[1] - mid[1])
    ux, uy = (c[0] - mid[0]) / d, (c[1] - mid[1]) / d  # perpendicular to the hexside, into the hex
    length = 0.2 * ctx.s
    for t in (0.14, 0.29, 0.43, 0.57, 0.71, 0.86):
        x, y = _lerp(p, q, t)
        _el(g, "line", x1=x, y1=y, x2=x + ux * length, y2=y + uy * length, stroke=ctx.c["slope"],
            stroke_width=0.045 * ctx.s, class_="slope-tick",
            **{"data-hexside": str(hst.hexside), "data-down-slope": str(hst.slope)})


def _draw_grid(ctx: _Ctx, g: ET.Element) -> None:
    s = ctx.s
    _el(g, "path", d=ctx.hex_path(ctx.hexes), fill="none", stroke=ctx.c["grid"], stroke_width=0.025 * s,
        stroke_opacity=0.8, class_="hex-outline")
    dots = []
    for h in ctx.hexes:
        t = ctx.terrain[h]
        x, y = ctx.centre(h)
        if t.is_building and t.steeple:
            _draw_steeple(ctx, g, (x, y))
        elif t.is_building and t.building_type == "single-hex-two-story-house":
            _draw_house_dot(ctx, g, (x, y))
        else:
            r = 0.045 * s
            dots.append(f"M{_num(x - r)},{_num(y)} a{_num(r)},{_num(r)} 0 1,0 {_num(2 * r)},0 "
                        f"a{_num(r)},{_num(r)} 0 1,0 {_num(-2 * r)},0")
    _el(g, "path", d=" ".join(dots), fill=ctx.c["centre-dot"], class_="centre-dots")


def _draw_steeple(ctx: _Ctx, g: ET.Element, c: XY) -> None:
    """P5.2: a black centre dot in a white cross."""
    s = ctx.s
    x, y = c
    a, b = 0.2 * s, 0.07 * s
    _el(g, "path", d=f"M{_num(x - b)},{_num(y - a)} H{_num(x + b)} V{_num(y - b)} H{_num(x + a)} "
        f"V{_num(y + b)} H{_num(x + b)} V{_num(y + a)} H{_num(x - b)} V{_num(y + b)} H{_num(x - a)} "
        f"V{_num(y - b)} H{_num(x - b)} Z", fill=ctx.c["halo"], stroke=ctx.c["centre-dot"],
        stroke_width=0.02 * s, class_="steeple")
    _el(g, "circle", cx=x, cy=y, r=0.05 * s, fill=ctx.c["centre-dot"], class_="centre-dot")


def _draw_house_dot(ctx: _Ctx, g: ET.Element, c: XY) -> None:
    """P5.3: the large white centre dot of a single-hex two-story house."""
    _el(g, "circle", cx=c[0], cy=c[1], r=0.13 * ctx.s, fill=ctx.c["halo"], stroke=ctx.c["centre-dot"],
        stroke_width=0.025 * ctx.s, class_="centre-dot large-white")


def _draw_names(ctx: _Ctx, g: ET.Element) -> None:
    # a layout prints each hex's board and its name on that board (2K5), as the boards do
    by_board = isinstance(ctx.m.names, BoardNaming)
    for h in ctx.hexes:
        x, y = ctx.centre(h)
        ctx.text(g, (x, y - 0.6 * ctx.s), ctx.m.names.hex(h) if by_board else h.name, 0.22 * ctx.s, fill=ctx.c["name"], halo=ctx.c["name-halo"],
                 class_="hex-name")


_COUNTER_FACE: dict[str, tuple[str, Callable[[Counter], str]]] = {
    "smoke": ("smoke", lambda c: f"S{c.strength}" if c.strength else "S"),
    "residual-fp": ("residual-fp", lambda c: f"FP{c.fp}"),
    "mines": ("mines", lambda c: ("AT" if c.kind == "A-T" else "AP") + (str(c.strength) if c.strength else "")),
    "wreck": ("wreck", lambda c: "WRK"),
    "vehicle": ("vehicle", lambda c: "IMM" if c.immobile else "AFV"),
    "blaze": ("blaze", lambda c: "Blaze"),
    "rubble": ("rubble-counter", lambda c: "Rubble"),
    "entrenchment": ("entrenchment", lambda c: "Ent"),
    "wire": ("wire", lambda c: "Wire"),
}


def _draw_counter(ctx: _Ctx, g: ET.Element, c: Counter, centre: XY) -> None:
    s = ctx.s
    side = 0.62 * s
    x, y = centre
    colour_key, face = _COUNTER_FACE.get(c.type, ("counter", lambda c: c.type[:3]))
    colour = ctx.c["burning"] if c.burning else ctx.c[colour_key]
    grp = _el(g, "g", class_=f"counter counter-{c.type}")
    _el(grp, "rect", x=x - side / 2, y=y - side / 2, width=side, height=side, rx=0.06 * s, fill=colour,
        stroke=ctx.c["counter-edge"], stroke_width=0.03 * s,
        stroke_dasharray=_num(0.06 * s) if c.hidden else None)
    text = face(c)
    ink = ctx.c["halo"] if c.type in ("wreck", "vehicle") else ctx.c["counter-text"]
    if c.type in ("wreck", "vehicle"):  # a tank silhouette above the text
        hw, hy = 0.22 * s, y - 0.08 * s
        _el(grp, "rect", x=x - hw, y=hy - 0.03 * s, width=2 * hw, height=0.1 * s, fill=ink)
        _el(grp, "rect", x=x - 0.1 * s, y=hy - 0.1 * s, width=0.16 * s, height=0.08 * s, fill=ink)
        _el(grp, "line", x1=x + 0.05 * s, y1=hy - 0.06 * s, x2=x + 0.25 * s, y2=hy - 0.1 * s, stroke=ink,
            stroke_width=0.03 * s)
        ty, fs = y + 0.2 * s, 0.15 * s
    else:
        fs = min(0.22 * s, side * 0.9 / (0.62 * max(len(text), 1)))  # fit the text in the square
        ty = y + fs * 0.36
    _el(grp, "text", x=x, y=ty, font_size=fs, font_family=FONT, font_weight="bold", text_anchor="middle",
        fill=ink).text = text


def _draw_roadblock(ctx: _Ctx, g: ET.Element, c: Counter) -> None:
    assert c.hexside is not None
    s = ctx.s
    hs = c.hexside
    hst = ctx.m.hexside(hs)
    grp = _el(g, "g", class_="counter counter-roadblock", **{"data-hexside": str(hs)})
    if hst.narrow_street is not None:  # P5.141: straddles the hexside, centre dot to centre dot
        a, b = (ctx.centre(h) for h in hs.hexes)
        _el(grp, "line", x1=a[0], y1=a[1], x2=b[0], y2=b[1], stroke=ctx.c["roadblock"], stroke_width=0.16 * s,
            stroke_linecap="round", class_="roadblock narrow-street-roadblock")
        if c.arrow is not None:
            m = ctx.midpoint(hs)
            v = ctx.px(c.arrow.point())
            d = math.hypot(v[0] - m[0], v[1] - m[1]) or 1.0
            ux, uy = (v[0] - m[0]) / d, (v[1] - m[1]) / d
            tip = (m[0] + ux * 0.5 * s, m[1] + uy * 0.5 * s)
            base = (m[0] + ux * 0.18 * s, m[1] + uy * 0.18 * s)
            w = 0.16 * s
            _el(grp, "line", x1=m[0], y1=m[1], x2=base[0], y2=base[1], stroke=ctx.c["roadblock"],
                stroke_width=0.08 * s)
            _el(grp, "polygon", points=_pts([tip, (base[0] - uy * w, base[1] + ux * w),
                                             (base[0] + uy * w, base[1] - ux * w)]),
                fill=ctx.c["roadblock"], stroke=ctx.c["halo"], stroke_width=0.03 * s, stroke_linejoin="round",
                class_="roadblock-arrow", **{"data-vertex": str(c.arrow)})
    else:  # B29: on the hexside itself
        p, q = ctx.endpoints(hs)
        p, q = _lerp(p, q, 0.12), _lerp(p, q, 0.88)
        _el(grp, "line", x1=p[0], y1=p[1], x2=q[0], y2=q[1], stroke=ctx.c["roadblock"], stroke_width=0.2 * s,
            class_="roadblock")
        m = ctx.midpoint(hs)
        _el(grp, "text", x=m[0], y=m[1] + 0.05 * s, font_size=0.14 * s, font_family=FONT, font_weight="bold",
            text_anchor="middle", fill=ctx.c["halo"]).text = "RB"


def _draw_counters(ctx: _Ctx, g: ET.Element) -> None:
    s = ctx.s
    stacks: dict[Hex, list[Counter]] = {}
    for c in ctx.m.counters:
        if c.type == "roadblock":
            _draw_roadblock(ctx, g, c)
        elif c.at is not None and c.bypass is not None:  # in Bypass: toward its hexside
            centre, mid = ctx.centre(c.at), ctx.midpoint(c.bypass)
            _draw_counter(ctx, g, c, _lerp(centre, mid, 0.62))
        elif c.at is not None:
            stacks.setdefault(c.at, []).append(c)
    for h, stack in stacks.items():
        cx, cy = ctx.centre(h)
        rows = [stack[i:i + 3] for i in range(0, len(stack), 3)]
        step = 0.62 * s
        for j, row in enumerate(rows):
            y = cy + 0.05 * s + (j - (len(rows) - 1) / 2) * step
            for i, c in enumerate(row):
                _draw_counter(ctx, g, c, (cx + (i - (len(row) - 1) / 2) * step, y))


def _draw_fills(ctx: _Ctx, g: ET.Element, fills: Mapping[Hex, str]) -> None:
    for h, colour in fills.items():
        _el(g, "path", d=ctx.hex_path([h]), fill=colour, fill_opacity=FILL_OPACITY, class_="fill",
            **{"data-hex": str(h)})


def _draw_labels(ctx: _Ctx, g: ET.Element, labels: Mapping[Hex, str]) -> None:
    size = 0.34 * ctx.s
    for h, text in labels.items():
        x, y = ctx.centre(h)
        ctx.text(g, (x, y + size * 0.36), text, size, fill=ctx.c["label"], halo=ctx.c["halo"], weight="bold",
                 class_="label")


def _arrowhead(ctx: _Ctx, g: ET.Element, p: XY, q: XY, colour: str, cls: str) -> None:
    d = math.hypot(q[0] - p[0], q[1] - p[1])
    if d == 0:
        return
    ux, uy = (q[0] - p[0]) / d, (q[1] - p[1]) / d
    ln, w = 0.3 * ctx.s, 0.14 * ctx.s
    b = (q[0] - ux * ln, q[1] - uy * ln)
    _el(g, "polygon", points=_pts([q, (b[0] - uy * w, b[1] + ux * w), (b[0] + uy * w, b[1] - ux * w)]),
        fill=colour, class_=cls)


def _draw_paths(ctx: _Ctx, g: ET.Element, paths: Sequence[Sequence[XY]]) -> None:
    s = ctx.s
    colour = ctx.c["path"]
    for points in paths:
        pts = [ctx.px(p) for p in points]
        if not pts:
            continue
        grp = _el(g, "g", class_="path")
        if len(pts) > 1:
            _el(grp, "polyline", points=_pts(pts), fill="none", stroke=ctx.c["halo"], stroke_width=0.16 * s,
                stroke_linejoin="round", stroke_linecap="round", stroke_opacity=0.7)
            _el(grp, "polyline", points=_pts(pts), fill="none", stroke=colour, stroke_width=0.09 * s,
                stroke_linejoin="round", stroke_linecap="round", class_="path-line")
            _arrowhead(ctx, grp, pts[-2], pts[-1], colour, "path-arrow")
        for x, y in pts[:-1] if len(pts) > 1 else pts:
            _el(grp, "circle", cx=x, cy=y, r=0.08 * s, fill=colour)


def _draw_threads(ctx: _Ctx, g: ET.Element, threads: Sequence[Thread]) -> None:
    s = ctx.s
    for th in threads:
        colour = ctx.c["thread-clear" if th.clear else "thread-blocked"]
        grp = _el(g, "g", class_="thread-group")
        for h in th.hindrances:
            x, y = ctx.centre(h)
            _el(grp, "circle", cx=x, cy=y, r=0.7 * s, fill="none", stroke=ctx.c["hindrance"],
                stroke_width=0.07 * s, class_="hindrance", **{"data-hex": str(h)})
        (x1, y1), (x2, y2) = ctx.px(th.start), ctx.px(th.end)
        _el(grp, "line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=ctx.c["halo"], stroke_width=0.13 * s,
            stroke_linecap="round", stroke_opacity=0.8, class_="thread-halo")
        _el(grp, "line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=colour, stroke_width=0.06 * s,
            stroke_linecap="round", class_="thread " + ("clear" if th.clear else "blocked"))
        for x, y in ((x1, y1), (x2, y2)):
            _el(grp, "circle", cx=x, cy=y, r=0.09 * s, fill=colour, class_="thread-end")
        if th.block is not None:
            bx, by = ctx.px(th.block)
            a = 0.2 * s
            d = f"M{_num(bx - a)},{_num(by - a)} L{_num(bx + a)},{_num(by + a)} " \
                f"M{_num(bx - a)},{_num(by + a)} L{_num(bx + a)},{_num(by - a)}"
            _el(grp, "path", d=d, stroke=ctx.c["halo"], stroke_width=0.16 * s, stroke_linecap="round", fill="none")
            _el(grp, "path", d=d, stroke=ctx.c["thread-blocked"], stroke_width=0.09 * s, stroke_linecap="round",
                fill="none", class_="thread-block", **{"data-x": _num(bx), "data-y": _num(by)})
        if th.label:
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            ctx.text(grp, (mx, my - 0.15 * s), th.label, 0.26 * s, fill=colour, halo=ctx.c["halo"],
                     weight="bold", class_="thread-label")


def _draw_marks(ctx: _Ctx, g: ET.Element, marks: Sequence[Mark]) -> None:
    s = ctx.s
    for mk in marks:
        colour = ctx.c.get(f"mark-{mk.kind}", ctx.c["mark-note"])
        x, y = ctx.px(mk.at)
        grp = _el(g, "g", class_=f"mark mark-{mk.kind}")
        _el(grp, "circle", cx=x, cy=y, r=0.11 * s, fill=colour, stroke=ctx.c["halo"], stroke_width=0.04 * s)
        if mk.text:
            ctx.text(grp, (x + 0.17 * s, y + 0.09 * s), mk.text, 0.26 * s, fill=colour, halo=ctx.c["halo"],
                     weight="bold", anchor="start")


def _caption_lines(caption: str, width: float, font: float) -> list[str]:
    chars = max(20, int(width / (font * 0.58)))
    lines: list[str] = []
    for para in caption.splitlines() or [""]:
        lines += textwrap.wrap(para, chars) or [""]
    return lines


def _draw_caption(ctx: _Ctx, g: ET.Element, lines: list[str], box: tuple[float, float, float, float],
                  font: float) -> None:
    x0, y0, x1, y1 = box
    _el(g, "rect", x=x0, y=y0, width=x1 - x0, height=y1 - y0, fill=ctx.c["caption-background"],
        stroke=ctx.c["caption-edge"], stroke_width=1.0, class_="caption-box")
    for i, line in enumerate(lines):
        _el(g, "text", x=x0 + font * 0.6, y=y0 + font * (1.25 + 1.3 * i), font_size=font, font_family=FONT,
            fill=ctx.c["caption"], class_="caption").text = line


_LegendDraw = Callable[[_Ctx, ET.Element], None]


def _legend_layer(ctx: _Ctx, x0: float, y0: float, width: float) -> tuple[ET.Element, float]:
    """``<g id="layer-legend">``: a swatch and a short label per feature present on this map, in rows from
    ``(x0, y0)`` wrapped to ``width``; also returns its height.

    Each swatch is drawn by the map's own layer functions around a reference hex, on a copy of ``ctx``
    holding only that hex, then scaled down. The swatches carry no feature classes or ``data-`` attributes
    (a query for ``class="wall"`` finds the map's walls only); each item is ``<g class="legend-item"
    data-feature=...>`` with a ``legend-label`` text.
    """
    s, k = ctx.s, 0.5
    font = 0.3 * s
    ref = Hex(1, 1)
    rc = ctx.centre(ref)
    left, right = (rc[0] - s, rc[1]), (rc[0] + s, rc[1])  # the hex's side vertices: a line across it
    down = (rc[0], rc[1] + s)  # toward the swatch's lower half (slope marks)
    terrains = [ctx.terrain[h] for h in ctx.hexes]
    hsts = ctx.hexsides
    counters = list(dict.fromkeys(c.type for c in ctx.m.counters))
    # (feature, label, the reference hex's terrain (None: no hex), extra drawing)
    items: list[tuple[str, str, HexTerrain | None, _LegendDraw]] = []

    def nothing(sw: _Ctx, g: ET.Element) -> None:
        pass

    def side(**kw: object) -> HexsideTerrain:
        return HexsideTerrain(ref.hexside(0), **kw)  # type: ignore[arg-type]

    for level in sorted({t.level for t in terrains}):
        items.append((f"level-{level}", f"level {level}", HexTerrain(ref, level=level), nothing))
    for kind, label in (("woods", "woods"), ("pine-woods", "pine woods"), ("brush", "brush"),
                        ("orchard", "orchard"), ("grain", "grain")):
        if any(t.terrain == kind for t in terrains):
            items.append((kind, label, HexTerrain(ref, terrain=kind), nothing))
    for material in ("stone", "wooden"):
        if any(t.is_building and (t.building == "wooden") == (material == "wooden") for t in terrains):
            items.append((f"building-{material}", f"{material} building",
                          HexTerrain(ref, terrain="building", building=material), nothing))
    for kind in ("rubble", "graveyard", "marsh", "shellholes", "water"):
        if any(t.terrain == kind for t in terrains):
            items.append((kind, kind, HexTerrain(ref, terrain=kind), nothing))
    for kind in ("dry", "shallow", "deep", "flooded"):
        if any(t.stream == kind for t in terrains):
            t = HexTerrain(ref, stream=kind)


            def band(sw: _Ctx, g: ET.Element, t: HexTerrain = t) -> None:
                _draw_stream_band(sw, (g, g, g), t, rc, [left, right])
            items.append((f"stream-{kind}", f"{kind} stream", t, band))
    if any(t.culvert for t in terrains):
        t = HexTerrain(ref, stream="shallow", culvert=True)
        items.append(("culvert", "Stream Culvert", t,
                      lambda sw, g, t=t: _draw_stream_band(sw, (g, g, g), t, rc, [left, right])))  # type: ignore[misc]
    if any(t.ford for t in terrains):
        t = HexTerrain(ref, stream="shallow", ford=True)

        def ford(sw: _Ctx, g: ET.Element, t: HexTerrain = t) -> None:
            _draw_stream_band(sw, (g, g, g), t, rc, [left, right])
            _draw_ford(sw, g, rc, [left, right])
        items.append(("ford", "ford", t, ford))
    for kind in ("paved", "dirt"):
        if any(hst.road == kind for hst in hsts):

            def road(sw: _Ctx, g: ET.Element, kind: str = kind) -> None:
                _draw_road_hex(sw, g, g, rc, [(kind, left), (kind, right)])
            items.append((f"road-{kind}", f"{kind} road", HexTerrain(ref), road))
    if any(hst.narrow_street is not None for hst in hsts):
        items.append(("narrow-street", "Narrow Street", None,
                      lambda sw, g: _draw_narrow_street(sw, g, g, side(narrow_street="paved"), left, right)))
    for attr, label in (("wall", "wall"), ("hedge", "hedge"), ("bocage", "bocage"), ("cliff", "cliff"),
                        ("fence", "barbed-wire fence")):
        if any(getattr(hst, attr) for hst in hsts):
            items.append((attr, label, None, lambda sw, g, attr=attr: _draw_hexside_features(  # type: ignore[misc]
                sw, g, side(**{attr: True}), left, right, None)))
    if any(hst.slope is not None for hst in hsts):
        items.append(("slope", "slope: marks on the Down-Slope side", None,
                      lambda sw, g: _draw_hexside_features(sw, g, side(slope=ref), left, right, down)))
    if any(hst.crest for hst in hsts):
        items.append(("crest", "Crest Line", None, lambda sw, g: _draw_crest(sw, g, left, right)))
    if any(t.is_building and t.steeple for t in terrains):
        items.append(("steeple", "steeple", HexTerrain(ref, terrain="building", building="stone", steeple=True),
                      nothing))
    if any(t.is_building and t.building_type == "single-hex-two-story-house" for t in terrains):
        items.append(("two-story-house", "single-hex two-story house",
                      HexTerrain(ref, terrain="building", building="stone",
                                 building_type="single-hex-two-story-house"), nothing))
    if any(t.offboard for t in terrains):
        items.append(("offboard", "offboard", HexTerrain(ref, offboard=True), nothing))
    for kind in counters:
        c = next(c for c in ctx.m.counters if c.type == kind)
        label = "residual FP" if kind == "residual-fp" else kind.replace("-", " ")
        if kind == "roadblock":
            def roadblock(sw: _Ctx, g: ET.Element) -> None:  # as on an ordinary hexside (B29)
                _el(g, "line", x1=left[0] + 0.2 * s, y1=rc[1], x2=right[0] - 0.2 * s, y2=rc[1],
                    stroke=sw.c["roadblock"], stroke_width=0.2 * s)
            items.append((kind, label, None, roadblock))
        else:
            items.append((f"counter-{kind}", label, None,
                          lambda sw, g, c=c: _draw_counter(sw, g, c, rc)))  # type: ignore[misc]

    layer = ET.Element("g", {"id": "layer-legend", "class": "layer"})
    sw_w, sw_h = 2 * s * k, _SQRT3 * s * k
    row_h = sw_h + 0.2 * s
    x, y = x0, y0
    for feature, label, ground, draw in items:
        item_w = sw_w + 0.15 * s + len(label) * font * 0.58
        if x > x0 and x + item_w > x0 + width:  # wrap to the next row
            x, y = x0, y + row_h
        item = _el(layer, "g", class_="legend-item", **{"data-feature": feature})
        swatch = _el(item, "g", transform=f"translate({_num(x + sw_w / 2)},{_num(y + sw_h / 2)}) scale({k}) "
                                          f"translate({_num(-rc[0])},{_num(-rc[1])})")
        sw = copy.copy(ctx)
        sw.terrain = {ref: ground} if ground is not None else {}
        sw.hexes = [ref] if ground is not None else []
        if ground is not None:
            _draw_levels(sw, swatch)
        draw(sw, swatch)
        if ground is not None:
            _draw_terrain(sw, swatch)
            _draw_grid(sw, swatch)
        for e in swatch.iter():  # the swatch is no map feature
            for key in [a for a in e.attrib if a == "class" or a.startswith("data-")]:
                del e.attrib[key]
        _el(item, "text", x=x + sw_w + 0.15 * s, y=y + sw_h / 2 + font * 0.36, font_size=font, font_family=FONT,
            fill=ctx.c["caption"], class_="legend-label").text = label
        x += item_w + 0.45 * s
    return layer, y + sw_h - y0


def _defs(ctx: _Ctx, root: ET.Element) -> None:
    """Fill patterns: brush stipple and grain hatching."""
    s = ctx.s
    defs = _el(root, "defs")
    t = 0.2 * s
    p = _el(defs, "pattern", id="pattern-brush", width=t, height=t, patternUnits="userSpaceOnUse")
    _el(p, "circle", cx=t * 0.25, cy=t * 0.3, r=0.03 * s, fill=ctx.c["brush-dot"])
    _el(p, "circle", cx=t * 0.75, cy=t * 0.8, r=0.03 * s, fill=ctx.c["brush-dot"])
    t = 0.16 * s
    p = _el(defs, "pattern", id="pattern-grain", width=t, height=t, patternUnits="userSpaceOnUse")
    _el(p, "line", x1=0, y1=t, x2=t, y2=0, stroke=ctx.c["grain-hatch"], stroke_width=0.035 * s)


# ------------------------------------------------------------------------------------------ public


def map_svg(
    m: Map,
    *,
    size: float = 36.0,
    fills: Mapping[Hex, str] | None = None,
    labels: Mapping[Hex, str] | None = None,
    threads: Sequence[Thread] = (),
    paths: Sequence[Sequence[XY]] = (),
    marks: Sequence[Mark] = (),
    caption: str | None = None,
    board_image: bytes | None = None,
    colors: Mapping[str, str] | None = None,
    show_names: bool = True,
    legend: bool = True,
) -> str:
    """The map as an SVG document, with overlays the caller computed.

    Parameters
    ----------
    m : Map
        The map to draw: levels, terrain, streams, roads, hexside features and counters.
    size : float
        Hex size in pixels (centre to vertex).
    fills : mapping of Hex to colour, optional
        Hexes tinted (at :data:`FILL_OPACITY`), e.g. a reach map or a viewshed.
    labels : mapping of Hex to str, optional
        Text at hex centres, e.g. movement costs.
    threads : sequence of Thread
        LOS threads: green when clear, red when blocked (an X at ``block``), hindrance hexes circled.
    paths : sequence of sequences of points
        Polylines through scaled points (e.g. hex centres of a movement path), with an arrowhead.
    marks : sequence of Mark
        Notes at scaled points.
    caption : str, optional
        Text in a box under the map, wrapped to the map's width.
    board_image : bytes, optional
        A board picture (PNG, JPEG, GIF or SVG) stretched over the map's extent; the levels, streams,
        terrain, roads and hexside layers are then left empty (the picture shows them).
    colors : mapping of str to str, optional
        Overrides of :data:`DEFAULT_COLORS`, key by key.
    show_names : bool
        Draw the hex names.
    legend : bool
        Draw a legend under the map (above the caption): a small swatch and a label for each feature
        present on this map. Never drawn over a ``board_image``.

    Returns
    -------
    str
        The SVG document.

    Examples
    --------
    >>> from asl_terrain.model import Map
    >>> m = Map.from_data({"format": "asl-terrain/1", "name": "t", "columns": ["A", "C"], "rows": [1, 3]})
    >>> svg = map_svg(m, fills={Hex.parse("B2"): "#ff0000"})
    >>> '<g id="layer-fills"' in svg and 'class="fill"' in svg
    True
    """
    ctx = _Ctx(m, size, {**DEFAULT_COLORS, **(colors or {})})
    margin = 0.5 * size
    bx0, by0, bx1, by1 = _bounds(ctx)
    x0, y0 = bx0 - margin, by0 - margin
    width = bx1 - bx0 + 2 * margin
    height = by1 - by0 + 2 * margin
    font = 0.34 * size
    lines = _caption_lines(caption, width - 2 * margin, font) if caption else []
    below = by1 + margin  # the top of what comes under the map: legend, then caption
    legend_g: ET.Element | None = None
    if legend and board_image is None:
        legend_g, legend_h = _legend_layer(ctx, bx0, below, bx1 - bx0)
        height += legend_h + margin
        below += legend_h + margin
    cap_box = (bx0, below, bx1, below + font * (0.7 + 1.3 * len(lines)))
    if lines:
        height += cap_box[3] - cap_box[1] + margin
    root = ET.Element("svg", {
        "xmlns": "http://www.w3.org/2000/svg",
        "xmlns:xlink": "http://www.w3.org/1999/xlink",
        "version": "1.1",
        "width": _num(width),
        "height": _num(height),
        "viewBox": " ".join(_num(v) for v in (x0, y0, width, height)),
    })
    desc = f"{m.name}" + (f" (prefix {m.prefix})" if m.prefix else "") + f": {m.grid.describe()}"
    _el(root, "desc").text = desc
    _defs(ctx, root)
    _el(root, "rect", x=x0, y=y0, width=width, height=height, fill=ctx.c["background"], class_="background")

    board = _layer(root, "board")
    if board_image is not None:
        _draw_board(ctx, board, board_image, (bx0, by0, bx1, by1))
    for name, draw in (("levels", _draw_levels), ("streams", _draw_streams), ("terrain", _draw_terrain),
                       ("roads", _draw_roads), ("hexsides", _draw_hexsides)):
        g = _layer(root, name)
        if board_image is None:
            draw(ctx, g)
    _draw_grid(ctx, _layer(root, "grid"))
    g = _layer(root, "names")
    if show_names:
        _draw_names(ctx, g)
    _draw_counters(ctx, _layer(root, "counters"))
    _draw_fills(ctx, _layer(root, "fills"), fills or {})
    _draw_labels(ctx, _layer(root, "labels"), labels or {})
    _draw_paths(ctx, _layer(root, "paths"), paths)
    _draw_threads(ctx, _layer(root, "threads"), threads)
    _draw_marks(ctx, _layer(root, "marks"), marks)
    if legend_g is not None:
        root.append(legend_g)
    g = _layer(root, "caption")
    if lines:
        _draw_caption(ctx, g, lines, cap_box, font)
    return _XML_INVALID.sub("\ufffd", ET.tostring(root, encoding="unicode"))


# characters XML 1.0 does not allow (a control character in a map's name would make the SVG malformed and the
# PNG fail): they come only from the user's text and are drawn as U+FFFD
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def picture_bytes(svg: str, path: str | Path) -> bytes:
    """The bytes of a picture file named ``path``: the SVG text for ``.svg``, a PNG (via cairosvg) for ``.png``.

    Raises
    ------
    ValueError
        For any other suffix.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".svg":
        return svg.encode("utf-8")
    if suffix == ".png":
        head = re.search(r'<svg[^>]*?width="([\d.]+)"[^>]*?height="([\d.]+)"', svg[:2000])
        if head is not None:
            w, h = float(head.group(1)), float(head.group(2))
            if w * h > MAX_PNG_PIXELS:
                raise UserError(f"{p.name}: the picture would be {w:,.0f} x {h:,.0f} pixels; a PNG has at most "
                                f"{MAX_PNG_PIXELS:,} (README, Limits): use a smaller --size or write .svg")
        import cairosvg  # type: ignore[import-untyped]  # only here: nothing else needs it

        return bytes(cairosvg.svg2png(bytestring=svg.encode("utf-8")))
    raise ValueError(f"cannot save a map picture as {p.name!r}: expected a '.svg' or '.png' suffix")


def save(svg: str, path: str | Path) -> None:
    """Write ``svg`` to ``path``: text for ``.svg``, a PNG (via cairosvg) for ``.png``, through a temporary
    file renamed into place (an interrupted write leaves any old file whole).

    Raises
    ------
    ValueError
        For any other suffix.
    """
    import os
    import tempfile

    p = Path(path)
    data = picture_bytes(svg, p)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent if str(p.parent) else ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, p)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
