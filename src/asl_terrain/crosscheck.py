"""The VASL cross-check: every ordered pair of hex centres of a VASL oracle file run through the LOS
engine, the blocked/clear agreement with VASL (overall, on the pairs VASL sees as clear, per VASL reason),
and each disagreement put in a class of cause with the rule that decides it and who is right by that rule.

It runs the LOS engine and draws with :mod:`asl_terrain.render`, so it sits above both (the board reading
is :mod:`asl_terrain.vasl`'s); ``asl-terrain vasl-check`` (``cli/vasl.py``) prints it and writes its
report files.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from asl_terrain import vasl
from asl_terrain.chart import Chart
from asl_terrain.errors import UserError
from asl_terrain.forked import can_fork, forked_map
from asl_terrain.grid import Hex, Hexside, trace
from asl_terrain.los import location_point, los, los_verdicts
from asl_terrain.model import Location, Map, settled
from asl_terrain.render import Mark, Thread, map_svg, picture_bytes

__all__ = ["CAUSES", "Cause", "CrossCheck", "Group", "board_picture", "classify", "cross_check", "example_svg",
           "report_files"]

@dataclass(frozen=True)
class Cause:
    """A class of disagreement with VASL, the rule that decides it, and who is right by that rule."""

    key: str
    title: str
    rule: str
    verdict: str  # a key of _VERDICTS
    explanation: str


CAUSES: dict[str, Cause] = {c.key: c for c in (
    Cause("hindrance-count", "Hindrances counted per hex, not per range", "A6.7", "VASL",
          "Each Hindrance hex the thread crosses adds its DRM, and a total of six blocks (A6.7, B.10). VASL keeps "
          "only the largest Hindrance at each range from the viewer, so two Hindrance hexes at one range (a "
          "thread along a hexside, or through hexes the same distance away) count once in VASL."),
    Cause("graze", "The thread grazes a depiction's edge", "A6.1", "borderline",
          "The deciding terrain lies within a pixel or two of the thread: VASL's walk (two pixels wide on steep "
          "threads, and with a slightly shallower slope) touches it where asl-terrain's one-pixel thread does "
          "not, or the reverse. A6.1 traces a thread from centre dot to centre dot; a thread that only grazes "
          "the edge of the artwork is the borderline case the engine reports as `borderline`."),
    Cause("hexside-vertex", "Wall or hedge touched at a vertex", "B9.2", "judgment",
          "The thread passes through a vertex where wall or hedge hexsides end (or runs along one), touching "
          "the wall's corner without crossing from one side of the wall to the other. asl-terrain rules a wall "
          "as hexside terrain that blocks a same-level thread crossing its hexside (B9.2), not one of the "
          "firer's or target's own hexsides, and a wall run along lengthwise only if it does not touch their "
          "hexes; a thread that only touches a lone wall at its end vertex does not cross it "
          "(judgment.wall_vertex_both_sides). VASL blocks wherever its walk meets the wall's pixels, which are "
          "drawn across the vertex. VASL's documentation lists vertex cases among its known gaps."),
    Cause("hexside-near-end", "Walls near the firer or target", "B9.2", "asl-terrain",
          "The thread crosses a wall or hedge hexside one hex away from the firer or the target, or its drawing "
          "(B9.1: the thick depiction as well as the hexside is the wall) where it runs on past the hexside's "
          "end. B9.2 exempts only the hexsides of the firer's and the target's own hexes; VASL also passes over "
          "wall and hedge pixels whose nearest hexside location is in a hex adjacent to them, or on a hexspine "
          "of their hexes."),
    Cause("hexside-level", "Walls on hills", "B9.2", "judgment",
          "A wall or hedge on a hexside between two Base Levels, crossed by a LOS between two Locations at the "
          "higher level. asl-terrain stands the wall half a level above the higher of its two hexes, so it "
          "blocks that same-level LOS (B9.2; KGP's Hillside Walls, P6, are not among the rules it decides); "
          "VASL tests wall pixels only when both ends are at the ground level drawn under the pixel, here the "
          "lower side, so it never blocks."),
    Cause("hexside-spill", "Wall or hedge artwork beside the thread", "A6.1", "judgment",
          "VASL blocks where its walk touches wall or hedge pixels. asl-terrain rules the thick drawing as the "
          "wall as well as its hexside (B9.1), but where the thread crosses the drawing and not the hexside, "
          "only if the drawing lies on both sides of it (A6.1: the obstruction visible on both sides of the "
          "thread; read as pixels more than one pixel off the thread on each side): a thread through the corner "
          "where two walls' drawings join, or over a drawing's tip, is not blocked by it. Pixels by no wall "
          "hexside of the map (too little of a hexside drawn to make it a wall hexside) are not a wall."),
    Cause("bocage-spill", "Bocage artwork off its hexside", "B9.5", "asl-terrain",
          "VASL blocks with 'Cannot see through/over bocage' where its walk meets bocage pixels, but the thread "
          "crosses no bocage hexside of the map: the bocage drawn on a hexside of the firer's or target's own "
          "hex (never an obstacle to its own hex, B9.2 as B9.5 applies it) or spilling past a bocage "
          "hexside's end onto a hexside that carries none. Bocage is hexside terrain (B9.5 with B9.1)."),
    Cause("bocage-vertex", "Bocage run along or passed at its end", "B9.52", "judgment",
          "The thread runs along a bocage hexside that touches both end hexes, or passes just beside a bocage "
          "hexside's end, without crossing it. asl-terrain follows B9.2's lengthwise rule for bocage as for a "
          "hedge (B9.5) and blocks a thread exactly through a bocage hexside's end vertex "
          "(judgment.bocage_vertex, B9.1's 'inclusive of vertices'); VASL blocks wherever its two-pixel walk "
          "meets bocage pixels drawn across the vertex."),
    Cause("crest", "Hill crest between Base Levels", "B10.2", "borderline",
          "A hill's crest line is drawn a few pixels inside one of its hexes; VASL's walk and asl-terrain's "
          "thread meet the higher ground over a different handful of pixels (B10.2: the thread is blocked by "
          "higher ground it crosses as drawn)."),
    Cause("blind-hex", "Blind Hexes behind a building", "B23.2", "asl-terrain",
          "Both see the same building between a higher and a lower Location and differ on whether the lower "
          "one lies in its Blind Hexes (A6.4). A multi-level building stands its top Location's level + ½ "
          "(B23.2: a building with a 1st level is a 1½-level obstacle); VASL's Blind Hex formula uses whole-"
          "level heights (1 for that building), so it finds one Blind Hex fewer behind it."),
    Cause("cliff", "Blind Hexes behind a cliff", "B11.21", "judgment",
          "The thread passes a cliff hexside (`cliff`, carried since issue 11). Both count the Blind Hexes a "
          "cliff casts without the Crest Line's reduction (B11.21, not B10.23), but they differ on which "
          "Blind Hexes a cliff causes: asl-terrain takes those of a hill hex with a cliff hexside whose other "
          "hex is nearer the lower end (the chart's note on [hexside.cliff]); VASL tests the cliff pixels its "
          "walk meets."),
    Cause("water", "A Water Obstacle end, not otherwise explained", "B21", "unexplained",
          "One end is a Water Obstacle hex (a lake or pond, `terrain = \"water\"`, at the level drawn: bd08's lake "
          "at -1 below its cliffs) and no other class explains the difference. Water itself has no LOS effect "
          "(B21); the shore drawn inside an adjacent lower hex is passed as B10.2 allows. What is left is "
          "mostly VASL meeting wall or cliff artwork at the shore; no rule was found that decides it."),
    Cause("rowhouse", "Rowhouse wall met beside or at a vertex", "B23.71", "judgment",
          "VASL blocks with 'Cannot see through rowhouse wall' where its walk meets the wall's black bar, but "
          "the thread crosses no rowhouse-wall hexside of the map (it passes the wall's end vertex, or VASL's "
          "two-pixel walk touches the bar beside the hexside it crosses). asl-terrain rules a rowhouse wall "
          "(`rowhouse_wall`, B23.71) by its hexside, as B9.1 rules a wall."),
    Cause("rowhouse-hexside", "Rowhouse wall: the hexside or the drawn bar", "B23.71", "judgment",
          "asl-terrain blocks where the thread crosses a rowhouse-wall hexside, its whole length, even into its "
          "own hex (B23.71: a rowhouse's walls block LOS and movement); the bar VASL reads is drawn along the "
          "middle of the hexside only (bd10 W4-W5: about 55 % of it), and VASL lets a thread crossing near "
          "the hexside's ends pass. The chart's `[hexside.rowhouse-wall]` notes this reading."),
    Cause("adjacent-lower-crest", "A crest drawn in the adjacent lower hex", "B10.2", "asl-terrain",
          "The higher end looks down through ground of its own level drawn inside an ADJACENT hex of lower Base "
          "Level (bd13: the embankment of the elevated road drawn in the bridge hex K6 or Y8, seen from J6 or "
          "L5; bd08: the lake shore). B10.2's exception lets a LOS always pass through a Crest Line in an "
          "adjacent hex of lower elevation; VASL applies no such exception and blocks ('Must have a height "
          "advantage')."),
    Cause("bridge-embankment", "An embankment drawn inside a bridge hex", "B6.2", "judgment",
          "asl-terrain blocks a lower LOS at the elevated road's embankment as drawn inside the bridge hex "
          "(level-1 ground on either side of the stream in bd13 K6 and Y8: the depiction, A6.1, B10.1); VASL "
          "lets the thread through. B6.2 makes the bridge itself no obstacle (its deck and road, drawn at level "
          "1, are lowered to the stream: J4 fires beneath 13K6 to L7), but says nothing of the embankment "
          "that carries the road up to it."),
    Cause("bridge", "Bridges (B6.2)", "B6.2", "judgment",
          "One end is on a bridge (the base Location of a bridge hex, at the level of the road it carries, "
          "B6.2) or the thread crosses a bridge hex, and no other class explains it. asl-terrain rules the "
          "bridge as B6.2 says (no obstacle; +1 Hindrance through its hex off its road, unless all ends are "
          "beneath or above it); VASL counts its bridge Hindrance only between two Locations at the bridge's "
          "road level, tests the bridge and road pixels of its walk, and applies its depression test under "
          "the deck."),
    Cause("depression", "Depression rules (A6.3)", "A6.3", "asl-terrain",
          "A Location IN a gully or stream: asl-terrain applies A6.3 hex by hex (the elevation difference must "
          "be at least the range from the last hex within the depression); VASL tests pixel ground levels along "
          "the walk."),
    Cause("slope", "Slopes (P2.3)", "P2.3", "judgment",
          "One end is Up-Slope (¾ level higher, P2.3), or VASL applies its slope rule. VASL treats a slope like "
          "a hillock (its documented gap): it makes an orchard block LOS to an Up-Slope Location and skips its "
          "bocage test where slopes are involved. asl-terrain keeps an orchard a Hindrance between Locations "
          "of one Base Level (judgment.orchard_same_base_level, B14.2 with P2.3) and rules bocage by B9.52 "
          "with the Up-Slope elevation."),
    Cause("inherent-vertex", "Inherent terrain touched at a vertex", "B.6", "judgment",
          "asl-terrain blocks where the thread passes exactly through a vertex of an inherent-terrain hex (an "
          "orchard in season, a one-level obstacle to a LOS from higher): inherent terrain fills its hex "
          "(B.6) and a thread through a vertex touches all three hexes there (the rules digest, 3.9); VASL "
          "meets only the pixels its walk crosses. A6.1's exception names a LOS exactly along an inherent "
          "hex's hexside, not through its vertex, so this reading is a judgment."),
    Cause("orchard-hex", "An orchard hex met where no trees are drawn", "B14.1", "asl-terrain",
          "asl-terrain blocks a LOS to or from a higher elevation at an in-season orchard hex (a one-level obstacle, "
          "B14.2) that the thread crosses; VASL passes, its walk meeting none of the hex's orchard pixels (the "
          "thread crosses the hex along its road or over a corner without trees: bd08 R8, Z1, whose centre dots "
          "lie on the road; bdBFPF R3, V4). B14.1: it is not the orchard symbols but the entire orchard hex "
          "(B.6), hexsides included, that affects any LOS drawn into or through it."),
    Cause("crest-along", "Higher ground on one side of a hexside run along", "A6.1", "asl-terrain",
          "The thread runs exactly along a hexside with ground as high as the LOS's higher end on one side and a "
          "lower hex on the other (bd08 J5-I4 along I5-J4, the shore drawn in I5). A6.1 blocks a LOS only where "
          "the obstruction is visible on both sides of the thread (the lower side is passed by B10.2's "
          "adjacent-hex exception); VASL's two-pixel walk meets the higher ground of the one side and blocks."),
    Cause("unexplained", "Unexplained", "A6.1", "unexplained",
          "Not classified by any rule above; see the examples."),
)}


_VERDICTS = {"VASL": "VASL is wrong", "asl-terrain": "asl-terrain follows the rule",
             "borderline": "borderline: either answer within a pixel of the artwork (A6.1)",
             "judgment": "a documented judgment call",
             "asl-terrain wrong": "asl-terrain is wrong: the terrain is not carried or not modelled yet",
             "unexplained": "unexplained"}


@dataclass
class Group:
    """Disagreements of one cause and one pair of verdicts."""
    cause: str
    vasl: str
    asl: str
    count: int = 0
    examples: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class CrossCheck:
    """The agreement of the LOS engine with a VASL oracle file."""

    board: str
    pairs: int = 0
    agree: int = 0
    vasl_clear: int = 0
    vasl_clear_agree: int = 0
    skipped_error: int = 0
    skipped_same: int = 0
    per_reason: dict[str, list[int]] = field(default_factory=dict)  # reason → [pairs, agree]
    groups: dict[tuple[str, str, str], Group] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def agreement(self) -> float:
        return self.agree / self.pairs if self.pairs else 1.0

    @property
    def clear_agreement(self) -> float:
        return self.vasl_clear_agree / self.vasl_clear if self.vasl_clear else 1.0

    def per_cause(self) -> Counter[str]:
        c: Counter[str] = Counter()
        for g in self.groups.values():
            c[g.cause] += g.count
        return c

    def per_verdict(self) -> Counter[str]:
        """Disagreements by who is right by the deciding rule (a key of ``_VERDICTS``)."""
        c: Counter[str] = Counter()
        for g in self.groups.values():
            c[CAUSES[g.cause].verdict] += g.count
        return c

    def to_json(self) -> dict[str, Any]:
        return {
            "board": self.board,
            "pairs": self.pairs,
            "agreement": round(self.agreement, 5),
            "vasl_clear_pairs": self.vasl_clear,
            "vasl_clear_agreement": round(self.clear_agreement, 5),
            "skipped": {"vasl_error": self.skipped_error, "same_hex": self.skipped_same},
            "per_reason": {r: {"pairs": n, "agree": a, "agreement": round(a / n, 5)}
                           for r, (n, a) in sorted(self.per_reason.items(), key=lambda kv: -kv[1][0])},
            "per_cause": dict(self.per_cause().most_common()),
            "per_verdict": dict(self.per_verdict().most_common()),
            "asl_terrain_wrong": self.per_verdict()["asl-terrain wrong"],
            "unexplained": self.per_verdict()["unexplained"],
            "causes": {k: {"title": c.title, "rule": c.rule, "verdict": c.verdict, "explanation": c.explanation}
                       for k, c in CAUSES.items() if k in self.per_cause()},
            "disagreements": [
                {"cause": g.cause, "vasl": g.vasl, "asl_terrain": g.asl, "count": g.count,
                 "examples": [f"{a} {b}" for a, b in g.examples]}
                for g in sorted(self.groups.values(), key=lambda g: -g.count)
            ],
            "seconds": round(self.seconds, 2),
        }


def _oracle_paths(oracle: str) -> tuple[Path, str]:
    """The oracle file and its board's archive name (``bd01``) from ``ORACLE`` (a file or a name)."""
    p = Path(oracle)
    if p.is_file():
        stem = p.name[: -len(".los.gz")] if p.name.endswith(".los.gz") else p.stem
        return p, stem
    data = vasl.vasl_data_dir()
    if data is not None and (data / "oracle" / f"{oracle}.los.gz").is_file():
        return data / "oracle" / f"{oracle}.los.gz", oracle
    raise UserError(f"{oracle}: no such oracle file (give BOARD.los.gz, or a board name such as bd01 found in "
                    "the VASL data directory's oracle/)")


def _placement(m: Map, board: str) -> tuple[int, int]:
    """The column and row offsets of ``board`` on the map (0, 0 for a single-board map)."""
    boards = m.depiction.boards
    for b in boards:
        if Path(b.archive).name == board:
            return b.column, b.row
    if len(boards) <= 1:
        return 0, 0
    raise UserError(f"the map's boards are {', '.join(Path(b.archive).name for b in boards)}; the oracle is for "
                    f"{board}")


def _verdict(r: Any) -> str:
    if r.clear:
        return "clear"
    bb = r.blocked_by
    return f"{bb.terrain} ({bb.rule})" if bb is not None else "blocked"


#: the pairs a worker of ``jobs`` > 1 rules at a time (about 40 ms of work; progress is said per chunk)
_CHUNK = 2000


def _clears(m: Map, locs: dict[str, Location], lines: Sequence[Any], chart: Chart | None) -> bytes:
    """Whether each line's pair is clear by the engine (1) or blocked (0)."""
    pairs = ((locs[x.from_hex], locs[x.to_hex]) for x in lines)
    return bytes(v[0] for v in los_verdicts(m, pairs, chart=chart))


def _clears_forked(m: Map, locs: dict[str, Location], lines: list[Any], chart: Chart | None, jobs: int,
                   progress: Callable[[int, int], None] | None) -> bytes:
    """:func:`_clears` of every line, on ``jobs`` processes forked from this one: the first chunk is ruled
    here, so that the LOS tables and artwork it builds are built once and shared by the workers."""
    n = len(lines)
    parts: dict[int, bytes] = {}
    done = 0

    def finished(start: int, got: bytes) -> None:
        nonlocal done
        parts[start] = got
        done += len(got)
        if progress is not None:
            progress(done, n)

    forked_map(lambda start: _clears(m, locs, lines[start:start + _CHUNK], chart), 0, range(_CHUNK, n, _CHUNK), jobs,
               finished)
    return b"".join(parts[i] for i in sorted(parts))


def cross_check(m: Map, oracle: str, chart: Chart | None = None, *, examples: int = 8,
                limit: int | None = None, every: int = 1, jobs: int = 1,
                progress: Callable[[int, int], None] | None = None) -> CrossCheck:
    """Run every ordered pair of ``oracle`` (VASL's ERROR and same-hex pairs left out) through the LOS
    engine and compare blocked/clear; ``progress(done, total)`` is called as pairs are ruled. ``jobs`` > 1
    rules them on that many processes where the system forks (they share this one's map, tables and
    artwork), else on this one; the result is the same.

    Each pair is ruled exactly as a user's plain ``los FROM TO`` is: from the base Location of one hex to
    the base Location of the other (on a bridge hex, the bridge, B6), which is what VASL's centre
    Location is.
    """
    oracle_file, board = _oracle_paths(oracle)
    dc, dr = _placement(m, board)
    raster = vasl.map_artwork(m) if m.depiction.follows_artwork else None
    locs: dict[str, Location] = {}

    def location(name: str) -> Location:
        loc = locs.get(name)
        if loc is None:
            col, row = vasl._parse_hex(name)
            loc = locs[name] = Location(Hex(col + dc, row + dr))  # what `los FROM TO` names
        return loc

    res = CrossCheck(board)
    start = time.perf_counter()
    # the lines kept, not (line, a, b) tuples: tuples of plain values are untracked by the cyclic collector,
    # so its full passes do not scan 120,000 more objects (about 0.2 s of a board's check, issue 13)
    todo: list[Any] = []
    for n, line in enumerate(vasl.read_oracle(oracle_file)):
        if limit is not None and n >= limit:
            break
        if every > 1 and n % every:
            continue
        if line.blocked is None:
            res.skipped_error += 1
            continue
        f, t = line.from_hex, line.to_hex
        if f == t:
            res.skipped_same += 1
            continue
        if f not in locs:  # (a call less for each of a board's 120,000 lines)
            location(f)
        if t not in locs:
            location(t)
        todo.append(line)
    # the plain verdicts first (the engine's batch path), tallied by (VASL blocked, reason, agreed); the full
    # ruling only where VASL disagrees, after the tally
    # the heap built so far (map, tables, artwork, the oracle's lines) left out of the collector's passes
    clears: bytes
    if jobs > 1 and len(todo) > _CHUNK and can_fork():
        if progress is not None:
            progress(0, len(todo))
        with settled():
            clears = _clears_forked(m, locs, todo, chart, jobs, progress)
    else:
        parts = []
        with settled():
            for i in range(0, len(todo), _CHUNK):
                if progress is not None:
                    progress(i, len(todo))
                parts.append(_clears(m, locs, todo[i:i + _CHUNK], chart))
        clears = b"".join(parts)
    tally: dict[tuple[bool, str, bool], int] = {}
    wrong: list[Any] = []
    for line, clear in zip(todo, clears):
        blocked = line.blocked
        ok = (not clear) == blocked
        key = (blocked, line.reason if blocked else "clear", ok)
        tally[key] = tally.get(key, 0) + 1
        if not ok:
            wrong.append(line)
    for (blocked, reason, ok), count in tally.items():  # the reasons in the order first met
        res.pairs += count
        slot = res.per_reason.setdefault(reason, [0, 0])
        slot[0] += count
        if ok:
            res.agree += count
            slot[1] += count
        if not blocked:
            res.vasl_clear += count
            res.vasl_clear_agree += count if ok else 0
    for line in wrong:
        a, b = locs[line.from_hex], locs[line.to_hex]
        r = los(m, a, b, chart=chart, borderline=False)
        cause = classify(m, raster, line, los(m, a, b, chart=chart, borderline=True))
        vasl_says = f"blocked: {line.reason}" if line.blocked else f"clear (hindrance {line.hindrance})"
        key3 = (cause, vasl_says, _verdict(r))
        g = res.groups.get(key3)
        if g is None:
            g = res.groups[key3] = Group(cause, vasl_says, _verdict(r))
        g.count += 1
        if len(g.examples) < examples:
            g.examples.append((line.from_hex, line.to_hex))
    if progress is not None:
        progress(len(todo), len(todo))
    res.seconds = time.perf_counter() - start
    return res


_OBSTACLE_REASONS = ("Terrain is higher", "Must have a height advantage", "blind hex", "Ground level is higher",
                     "Half level terrain")


def _vasl_terrain_met(raster: vasl.ArtworkRaster, r: Any) -> tuple[set[str], set[str]]:
    """The VASL terrain names under the two end hexes' centre dots, and those VASL's own walk of this
    ruling's thread meets (end hexes included)."""
    start = tuple(int(v) for v in raster.los_point(location_point(r.a)))
    end = tuple(int(v) for v in raster.los_point(location_point(r.b)))
    ends: set[str] = set()
    met: set[str] = set()
    walk = vasl.vasl_walk(start, end)  # type: ignore[arg-type]
    for archive, dc, dr in raster.archives:
        x0, y0 = int(dc * vasl.HEX_WIDTH), int(dr * vasl.HEX_HEIGHT)
        codes = set()
        for x, y in walk:
            lx, ly = x - x0, y - y0
            if 0 <= lx < archive.grid_width and 0 <= ly < archive.grid_height:
                codes.add(int(archive.terrain[lx, ly]))
        for x, y in (start, end):
            lx, ly = x - x0, y - y0
            if 0 <= lx < archive.grid_width and 0 <= ly < archive.grid_height:
                ends.add(raster.table.name(int(archive.terrain[lx, ly])))
        met |= {raster.table.name(c) for c in codes}
    return ends, met


def classify(m: Map, raster: vasl.ArtworkRaster | None, line: vasl.OracleLine, r: Any) -> str:
    """The cause (a key of :data:`CAUSES`) of one disagreement with VASL; ``r`` is the engine's ruling
    with its A6.1 ``borderline`` flag computed. Terrain the map does not carry is named first: where it
    lies on the thread, asl-terrain's answer is not the rules' answer whatever else is met."""
    bb = r.blocked_by
    vasl_reason = line.reason if line.blocked else ""
    if not r.clear and bb is not None and bb.terrain.startswith("Hindrance total"):
        return "hindrance-count"
    if "up-slope" in vasl_reason.lower() or r.up_slope[0] or r.up_slope[1]:
        return "slope"
    if "rowhouse" in vasl_reason.lower() and r.clear:
        return "graze" if r.borderline else "rowhouse"
    if not r.clear and bb is not None and bb.rule == "B23.71" and not line.blocked:
        return "rowhouse-hexside"
    ends, met = _vasl_terrain_met(raster, r) if raster is not None else (set(), set())
    if raster is not None and r.clear and line.blocked and not r.borderline and _adjacent_lower_crest(m, raster, r):
        return "adjacent-lower-crest"
    if not r.clear and not line.blocked and bb is not None and bb.hex is not None and \
            m.terrain(bb.hex).bridge is not None and bb.terrain.startswith("level ") and not r.borderline:
        return "bridge-embankment"
    if not r.borderline and (m.terrain(r.a.hex).bridge or m.terrain(r.b.hex).bridge or any(
            n.endswith("Bridge") and not n.startswith(("Pontoon", "Foot")) for n in met)):
        return "bridge"
    if not r.clear and not line.blocked and bb is not None and bb.hex is not None and not r.borderline and \
            _inherent_at_vertex_only(m, r, bb.hex):
        return "inherent-vertex"
    if not r.clear and not line.blocked and bb is not None and bb.hex is not None and not r.borderline and \
            m.terrain(bb.hex).terrain == "orchard" and bb.terrain.startswith("orchard") and raster is not None and \
            not _walk_meets_in_hex(raster, r, bb.hex, ("Orchard", "Orchard, Out of Season")):
        return "orchard-hex"
    if line.blocked and "Hindrance total" in vasl_reason:  # VASL met one more Hindrance hex's artwork
        wider = raster is not None and bool(_walk_only_meets(raster, r, lambda t: t.hindrance))
        return "graze" if r.borderline or wider else "unexplained"
    if "bocage" in vasl_reason.lower() and r.clear:
        if r.borderline:
            return "graze"
        if raster is None:
            return "bocage-vertex"
        sides = _wall_pixel_hexsides(raster, _walk(raster, r), {r.a.hex, r.b.hex}, ("Bocage",))
        return "bocage-vertex" if any(m.hexside(hs).bocage for hs in sides) else "bocage-spill"
    if "hexside terrain" in vasl_reason and r.clear:
        if r.borderline:
            return "graze"
        if raster is None:
            return "hexside-vertex"
        sides = _wall_pixel_hexsides(raster, _walk(raster, r), {r.a.hex, r.b.hex})
        if any(not (m.hexside(hs).wall or m.hexside(hs).hedge or m.hexside(hs).bocage) for hs in sides):
            return "hexside-spill"
        return "hexside-vertex"
    if not r.clear and bb is not None and bb.hexside is not None and not line.blocked:
        if bb.rule == "B9.1" and r.borderline:  # the drawn wall within a pixel or two of the thread
            return "graze"
        hs = bb.hexside
        base = max(m.terrain(h).level for h in hs.hexes)
        if r.elevations[0] != base or r.elevations[1] != base or \
                any(m.terrain(h).level != base for h in hs.hexes):
            return "hexside-level"
        if any(h == e or h.is_adjacent(e) for h in hs.hexes for e in (r.a.hex, r.b.hex)):
            return "hexside-near-end"
        return "bocage-vertex" if m.hexside(hs).bocage else "hexside-vertex"
    if r.borderline or (raster is not None and not r.clear and not line.blocked and bb is not None and
                        bb.hex is not None and bb.rule == "A6.2" and _obstacle_one_side(raster, r, bb.hex)):
        return "graze"  # flagged by the engine, or the blocking obstacle grazed: drawn on one side of the thread
    if "depression" in vasl_reason.lower() or r.a.place == "crest" or r.b.place == "crest" or \
            m.terrain(r.a.hex).is_stream or m.terrain(r.b.hex).is_stream:
        return "depression"
    if raster is not None and _meets_cliff(raster, r):
        return "cliff"
    if "blind hex" in vasl_reason or (bb is not None and r.blind):
        return "blind-hex"
    if r.clear and line.blocked and _along_one_sided_ground(m, r):
        return "crest-along"
    if r.clear and line.blocked and raster is not None and "Terrain is higher" in vasl_reason and \
            _walk_only_meets(raster, r, lambda t: t.obstacle and not t.is_hexside and t.height > 0):
        return "graze"  # VASL's two-pixel walk meets an obstacle's edge the one-pixel thread passes
    if m.terrain(r.a.hex).terrain == "water" or m.terrain(r.b.hex).terrain == "water":
        return "water"
    if "Ground level" in vasl_reason or "height advantage" in vasl_reason or \
            (bb is not None and bb.rule in ("B10.2", "B10.23")):
        return "crest"
    return "unexplained"


def _walk(raster: vasl.ArtworkRaster, r: Any) -> list[tuple[int, int]]:
    """VASL's own walk of this ruling's thread, in pixels."""
    start = tuple(int(v) for v in raster.los_point(location_point(r.a)))
    end = tuple(int(v) for v in raster.los_point(location_point(r.b)))
    return list(vasl.vasl_walk(start, end))  # type: ignore[arg-type]


def _pixels_where(raster: vasl.ArtworkRaster, pixels: Iterable[tuple[int, int]],
                  test: Callable[[Any, int, int], bool]) -> list[tuple[int, int]]:
    """The pixels (of the combined frame) for which ``test(archive, x, y)`` holds at the board's own pixel
    (x, y), on each board archive of the raster that holds them."""
    pixels = list(pixels)
    hits = []
    for archive, dc, dr in raster.archives:
        x0, y0 = int(dc * vasl.HEX_WIDTH), int(dr * vasl.HEX_HEIGHT)
        for x, y in pixels:
            lx, ly = x - x0, y - y0
            if 0 <= lx < archive.grid_width and 0 <= ly < archive.grid_height and test(archive, lx, ly):
                hits.append((x, y))
    return hits


def _adjacent_lower_crest(m: Map, raster: vasl.ArtworkRaster, r: Any) -> bool:
    """Whether every pixel of VASL's walk drawn as high as this LOS's higher end (outside the two end hexes)
    lies in a hex ADJACENT to that end whose Base Level is lower: the crest B10.2's exception passes. Tried on
    asl-terrain's own one-pixel thread too: VASL's two-pixel walk may touch a neighbour's ground beside it."""
    hi = max(r.elevations)
    if r.elevations[0] == r.elevations[1] or hi != int(hi):
        return False
    top = r.a if r.elevations[0] > r.elevations[1] else r.b
    if top.place not in ("", "crest") or top.level:
        return False
    ends = {(r.a.hex.col, r.a.hex.row), (r.b.hex.col, r.b.hex.row)}
    for pixels in (_walk(raster, r), raster.thread_pixels(location_point(r.a), location_point(r.b))):
        high = _pixels_where(raster, pixels, lambda a, x, y: int(a.elevation[x, y]) >= hi)
        held = Counter(h for h in (raster.hexes_of_pixels(high) if high else []) if h is not None and h not in ends)
        # the engine reads a hex's pixels a step in from where the thread enters and leaves it (ThreadSample)
        hexes = {h for h, n in held.items() if n >= 3} or set(held)
        if hexes and all(Hex(*h).is_adjacent(top.hex) and m.terrain(Hex(*h)).level < hi for h in hexes):
            return True
    low = r.b if top is r.a else r.a
    # adjacent ends: the crest VASL meets is drawn inside the lower end's own hex (bd08's lake shore)
    return bool(top.hex.is_adjacent(low.hex) and m.terrain(low.hex).level < hi)


def _obstacle_one_side(raster: vasl.ArtworkRaster, r: Any, h: Hex) -> bool:
    """Whether the obstacle drawn in hex ``h`` (VASL terrain that is a LOS obstacle with a height, not hexside
    terrain) lies on one side of asl-terrain's thread: fewer than two of its pixels more than a pixel to the
    other side (A6.1: an obstruction blocks when visible on both sides of the thread)."""
    codes = [c for c, t in raster.table.types.items() if t.obstacle and not t.is_hexside and t.height > 0]
    (x0, y0), (x1, y1) = raster.los_point(location_point(r.a)), raster.los_point(location_point(r.b))
    dx, dy = x1 - x0, y1 - y0
    length = math.hypot(dx, dy) or 1.0
    cx, cy = vasl.grid_pixel(h.centre())
    left = right = 0
    for archive, dc, dr in raster.archives:
        ox, oy = int(dc * vasl.HEX_WIDTH), int(dr * vasl.HEX_HEIGHT)
        xa, xb = max(int(cx - 40) - ox, 0), min(int(cx + 40) - ox, archive.grid_width)
        ya, yb = max(int(cy - 40) - oy, 0), min(int(cy + 40) - oy, archive.grid_height)
        if xa >= xb or ya >= yb:
            continue
        xs, ys = np.nonzero(np.isin(archive.terrain[xa:xb, ya:yb], codes))
        if not len(xs):
            continue
        px, py = xs + xa + ox, ys + ya + oy
        mine = raster.geometry._hex_indices(px, py) == raster.geometry.hexes.index((h.col, h.row))
        side = ((px[mine] + 0.5 - x0) * dy - (py[mine] + 0.5 - y0) * dx) / length
        left += int((side < -1.0).sum())
        right += int((side > 1.0).sum())
    return min(left, right) < 2


def _walk_only_meets(raster: vasl.ArtworkRaster, r: Any, kind: Callable[[Any], bool]) -> set[Hex]:
    """The hexes (not the two ends) where VASL's walk of this ruling's thread meets pixels of a VASL terrain of
    ``kind`` and asl-terrain's one-pixel thread meets none."""
    codes = {c for c, t in raster.table.types.items() if kind(t)}
    ends = {(r.a.hex.col, r.a.hex.row), (r.b.hex.col, r.b.hex.row)}

    def hexes(pixels: Sequence[tuple[int, int]]) -> set[tuple[int, int]]:
        hits = _pixels_where(raster, pixels, lambda a, x, y: int(a.terrain[x, y]) in codes)
        return {h for h in (raster.hexes_of_pixels(hits) if hits else []) if h is not None and h not in ends}

    mine = hexes(raster.thread_pixels(location_point(r.a), location_point(r.b)))
    return {Hex(*h) for h in hexes(_walk(raster, r)) - mine}


def _along_one_sided_ground(m: Map, r: Any) -> bool:
    """Whether the thread runs exactly along a hexside with ground as high as the LOS's higher end on one
    side only (the other hex lower)."""
    hi = max(r.elevations)
    tr = trace(location_point(r.a), location_point(r.b))
    for _, _, hs in tr.along:
        levels = [m.terrain(h).level for h in hs.hexes]
        if max(levels) >= hi > min(levels):
            return True
    return False


def _walk_meets_in_hex(raster: vasl.ArtworkRaster, r: Any, h: Hex, names: Sequence[str]) -> bool:
    """Whether VASL's walk of this ruling's thread meets pixels of VASL terrain ``names`` inside hex ``h``."""
    codes = {c for c, t in raster.table.types.items() if t.name in names}
    hits = _pixels_where(raster, _walk(raster, r), lambda a, x, y: int(a.terrain[x, y]) in codes)
    return any(p == (h.col, h.row) for p in (raster.hexes_of_pixels(hits) if hits else []))


def _inherent_at_vertex_only(m: Map, r: Any, h: Hex) -> bool:
    """Whether the blocking hex ``h`` holds inherent terrain (orchard) and the thread only passes through one
    of its vertices (neither its interior nor along its hexsides)."""
    if m.terrain(h).terrain not in ("orchard",):
        return False
    tr = trace(location_point(r.a), location_point(r.b))
    if any(sp.hex == h for sp in tr.spans) or any(h in hs.hexes for _, _, hs in tr.along):
        return False
    return any(h in v.hexes for _, v in tr.vertices)


def _meets_cliff(raster: vasl.ArtworkRaster, r: Any) -> bool:
    """Whether VASL's walk for this ruling's thread crosses cliff pixels outside the two end hexes."""
    cliffs = {c for c, t in raster.table.types.items() if t.name == "Cliff"}
    start = tuple(int(v) for v in raster.los_point(location_point(r.a)))
    end = tuple(int(v) for v in raster.los_point(location_point(r.b)))
    hits = []
    for archive, dc, dr in raster.archives:
        x0, y0 = int(dc * vasl.HEX_WIDTH), int(dr * vasl.HEX_HEIGHT)
        for x, y in vasl.vasl_walk(start, end):  # type: ignore[arg-type]
            lx, ly = x - x0, y - y0
            if 0 <= lx < archive.grid_width and 0 <= ly < archive.grid_height and int(archive.terrain[lx, ly]) in cliffs:
                hits.append((x, y))
    ends = {(r.a.hex.col, r.a.hex.row), (r.b.hex.col, r.b.hex.row)}
    return any(h is not None and h not in ends for h in (raster.hexes_of_pixels(hits) if hits else []))


def _wall_pixel_hexsides(raster: vasl.ArtworkRaster, pixels: Sequence[tuple[int, int]],
                         ends: set[Hex], names: Sequence[str] | None = None) -> set[Any]:
    """The hexsides nearest to the wall, hedge (and other hexside-terrain; only ``names`` if given) pixels
    among ``pixels``, leaving out pixels in the hexes ``ends``."""
    geo = raster.geometry
    codes = {c for c, t in raster.table.types.items() if t.is_hexside and t.name != "Cliff"
             and (names is None or t.name in names)}
    hits: list[tuple[int, int]] = []
    for archive, dc, dr in raster.archives:
        x0, y0 = int(dc * vasl.HEX_WIDTH), int(dr * vasl.HEX_HEIGHT)
        for x, y in pixels:
            lx, ly = x - x0, y - y0
            if 0 <= lx < archive.grid_width and 0 <= ly < archive.grid_height and int(archive.terrain[lx, ly]) in codes:
                hits.append((x, y))
    out: set[Any] = set()
    skip = {(h.col, h.row) for h in ends}
    for (x, y), h in zip(hits, raster.hexes_of_pixels(hits) if hits else []):
        if h is None or h in skip:
            continue
        best = min(range(6), key=lambda k: sum(((a + b) / 2 - v) ** 2 for a, b, v in zip(*geo.hexside_segment(h[0], h[1], k), (x, y))))
        nb = geo.neighbour(h[0], h[1], best)
        if nb is not None:
            out.add(Hexside.of(Hex(*h), Hex(*nb)))
    return out


# ------------------------------------------------------------------------------------------- pictures


def example_svg(m: Map, a: str, b: str, *, dc: int = 0, dr: int = 0, chart: Chart | None = None,
                vasl_says: str = "", size: float = 40.0, image: bytes | None = None) -> str:
    """The thread between two hexes (named on the board, offset by its placement) drawn on the board's
    artwork with the engine's verdict, cropped to the thread with a hex and a half around it and room to the
    right for the labels."""
    def loc(name: str) -> Location:
        col, row = vasl._parse_hex(name)
        return Location(Hex(col + dc, row + dr))

    r = los(m, loc(a), loc(b), chart=chart, borderline=True)
    block = r.block_point
    marks = []
    if block is not None and r.blocked_by is not None:
        marks.append(Mark(block, f"asl-terrain: {r.blocked_by.terrain} ({r.blocked_by.rule})", "error"))
    if vasl_says:
        marks.append(Mark(r.start, f"VASL: {vasl_says}", "note"))
    label = ("clear" if r.clear else "blocked") + (" (borderline)" if r.borderline else "")
    thread = Thread(r.start, r.end, r.clear, block, tuple(h.hex for h in r.hindrances), label)
    svg = map_svg(m, size=size, threads=[thread], marks=marks, board_image=image, show_names=True)
    # crop to the thread: scaled points → pixels as render draws them (grid.to_pixel)
    gx = (r.start[0], r.end[0])
    gy = (r.start[1], r.end[1])
    left, right = (min(gx) - 6) * size / 2, (max(gx) + 16) * size / 2
    top, bottom = (min(gy) - 3) * size * math.sqrt(3) / 2, (max(gy) + 3) * size * math.sqrt(3) / 2
    w, h = right - left, bottom - top
    head = re.search(r"<svg[^>]*>", svg)
    assert head is not None
    tag = head.group(0)
    tag = re.sub(r'width="[^"]*"', f'width="{w:.1f}"', tag, count=1)
    tag = re.sub(r'height="[^"]*"', f'height="{h:.1f}"', tag, count=1)
    tag = re.sub(r'viewBox="[^"]*"', f'viewBox="{left:.1f} {top:.1f} {w:.1f} {h:.1f}"', tag, count=1)
    return svg[: head.start()] + tag + svg[head.end():]


def board_picture(m: Map, scale: float = 1.0) -> bytes | None:
    """The map's board artwork as a PNG aligned with :func:`asl_terrain.render.map_svg`, or None."""
    if not m.depiction.follows_artwork:
        return None
    raster = vasl.map_artwork(m)
    g = m.grid
    return vasl.artwork_png(raster.archives, (g.col_first, g.col_last), (g.row_first, g.row_last), scale)


def report_files(m: Map, res: CrossCheck, chart: Chart | None = None,
                 pictures: bool = True) -> Iterator[tuple[str, bytes]]:
    """The files of a cross-check report, in the order they are made: one example picture per
    disagreement group (``01-graze.png``, ...), then ``summary.json`` and ``summary.md``."""
    data = res.to_json()
    image = board_picture(m) if pictures else None
    dc, dr = _placement(m, res.board)
    groups = sorted(res.groups.values(), key=lambda g: -g.count)
    for i, (g, entry) in enumerate(zip(groups, data["disagreements"])):
        if not pictures or not g.examples:
            continue
        a, b = g.examples[0]
        cause = CAUSES[g.cause]
        name = f"{i + 1:02d}-{g.cause}.png"
        svg = example_svg(m, a, b, dc=dc, dr=dr, chart=chart, vasl_says=g.vasl, image=image)
        yield name, picture_bytes(svg, name)
        entry["picture"] = name
        entry["picture_caption"] = (f"{res.board} {a} → {b}. VASL: {g.vasl}. asl-terrain: {g.asl}. Cause: "
                                    f"{cause.title} ({cause.rule}); {g.count} pair{'s' if g.count != 1 else ''} "
                                    "like this.")
    yield "summary.json", (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    yield "summary.md", ("\n".join(summary_lines(res, data)) + "\n").encode("utf-8")


def summary_lines(res: CrossCheck, data: dict[str, Any]) -> list[str]:
    """``summary.md``: the figures, the disagreements by verdict, per VASL reason and by cause."""
    lines = [f"# VASL cross-check: {res.board}", "",
             f"- pairs compared: {res.pairs} (left out: {res.skipped_error} VASL ERROR, {res.skipped_same} same hex)",
             f"- agreement: {100 * res.agreement:.2f} %",
             f"- on the pairs VASL sees as clear ({res.vasl_clear}): {100 * res.clear_agreement:.2f} %",
             f"- disagreements where asl-terrain is wrong: {data['asl_terrain_wrong']}; unexplained: "
             f"{data['unexplained']}", "",
             "## Disagreements by who is right", "", "| by the rule | pairs |", "| --- | ---: |",
             *(f"| {_VERDICTS[v]} | {n} |" for v, n in res.per_verdict().most_common()), "",
             "## Per VASL reason", "", "| VASL reason | pairs | agreement |", "| --- | ---: | ---: |"]
    for reason, v in data["per_reason"].items():
        lines.append(f"| {reason} | {v['pairs']} | {100 * v['agreement']:.2f} % |")
    lines += ["", "## Disagreements by cause", ""]
    for key, n in res.per_cause().most_common():
        c = CAUSES[key]
        lines += [f"### {c.title} ({c.rule}): {n} pairs", "", c.explanation, "",
                  f"By the rule: {_VERDICTS[c.verdict]}.",
                  "", "| VASL | asl-terrain | pairs | examples | picture |", "| --- | --- | ---: | --- | --- |"]
        for entry in data["disagreements"]:
            if entry["cause"] != key:
                continue
            pic = f"![]({entry['picture']})" if "picture" in entry else ""
            lines.append(f"| {entry['vasl']} | {entry['asl_terrain']} | {entry['count']} | "
                         f"{', '.join(entry['examples'][:4])} | {pic} |")
        lines.append("")
    return lines
