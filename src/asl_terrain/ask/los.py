"""The ``los`` and ``viewshed`` kinds of the batch (queries.md): thin readers over :mod:`asl_terrain.los`."""

from __future__ import annotations

from typing import Any

from ..errors import QueryError
from ..los import LosRuling, ViewshedRuling, los, viewshed
from . import Context, Query, handler, keyed


def _entrenched(q: Query) -> tuple[bool, bool]:
    v: Any = q.raw("entrenched")
    if v is None:
        return (False, False)
    if not isinstance(v, dict) or not set(v) <= {"from", "to"} or not all(isinstance(x, bool) for x in v.values()):
        raise QueryError(f"entrenched: expected an object such as {{\"from\": true}} (keys 'from', 'to', "
                         f"booleans), got {v!r}")
    return (bool(v.get("from", False)), bool(v.get("to", False)))


@handler("los")
def answer_los(ctx: Context, q: Query) -> LosRuling:
    """A6: line of sight between ``from`` and ``to`` (Locations or Bypass positions at a vertex).

    Optional keys: ``entrenched`` ({"from": bool, "to": bool}, B9.21) and ``fire_lane`` (true: a Fire
    Lane's LOS, where "same-level" means Same-Base-Level, P2.31)."""
    q.only("from", "to", "entrenched", "fire_lane")
    a = q.location("from")
    b = q.location("to")
    ent, fire_lane = _entrenched(q), q.flag("fire_lane")
    with keyed(ctx.map, (("from", a), ("to", b))):
        return los(ctx.map, a, b, chart=ctx.chart, conditions=ctx.conditions, entrenched=ent, fire_lane=fire_lane)


@handler("viewshed")
def answer_viewshed(ctx: Context, q: Query) -> ViewshedRuling:
    """Every Location ``from`` sees, with its Hindrance DRM; ``level`` picks building level n."""
    q.only("from", "level", "entrenched")
    a = q.location("from")
    level = q.number("level", minimum=0)
    if level is not None and (isinstance(level, float) and not level.is_integer()):
        raise QueryError(f"level: expected a whole building level (0, 1, 2 ...), got {level!r}")
    ent = _entrenched(q)[0]
    with keyed(ctx.map, (("from", a),)):
        return viewshed(ctx.map, a, level=int(level) if level is not None else None, chart=ctx.chart,
                        conditions=ctx.conditions, entrenched=ent, progress=ctx.progress)
