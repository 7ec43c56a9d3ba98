"""Rulings are values: the answer, the items that make it up, the rules that decided it, an explanation.

Costs come in halves and heights in quarters, so amounts are :class:`fractions.Fraction` inside and
JSON numbers only at the edge (:func:`num`). Every ruling has ``rules()``, ``explain()`` and
``to_json()`` (the queries.md keys, and more).

Imports nothing from the package but ``model`` names for typing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable

Number = int | float


def num(x: Fraction | int | float | None) -> Number | None:
    """A JSON number for a Fraction: an int when whole, else a float (2.5, not "5/2")."""
    if x is None:
        return None
    if isinstance(x, Fraction):
        return int(x) if x.denominator == 1 else float(x)
    return x


#: the fractions a player writes as one glyph
_GLYPHS = {Fraction(1, 2): "½", Fraction(1, 4): "¼", Fraction(3, 4): "¾", Fraction(1, 3): "⅓", Fraction(2, 3): "⅔",
           Fraction(1, 6): "⅙", Fraction(5, 6): "⅚", Fraction(1, 8): "⅛", Fraction(3, 8): "⅜", Fraction(5, 8): "⅝",
           Fraction(7, 8): "⅞"}


def fmt(x: Fraction | int | float | None) -> str:
    """A number as a player writes it: 2½, ¾, 3½, -½, ⅓; whole numbers without a point, ``-`` for none. A
    float (a JSON number) is read as the fraction it stands for, within 1/24; one that stands for none is
    shown as it is (0.1234)."""
    if x is None:
        return "-"
    if isinstance(x, int):
        return str(int(x))
    if isinstance(x, float):
        f = Fraction(x).limit_denominator(24)
        if abs(float(f) - x) > 1e-6:
            return f"{x:g}"
    else:
        f = Fraction(x)
    sign = "-" if f < 0 else ""
    whole, rest = divmod(abs(f), 1)
    if rest == 0:
        return f"{sign}{whole}"
    glyph = _GLYPHS.get(rest)
    if glyph is None:
        return f"{x:g}" if isinstance(x, float) else sign + str(float(abs(f)))
    return f"{sign}{whole or ''}{glyph}"


def distinct(rules: Iterable[str]) -> tuple[str, ...]:
    """Rule references in first-seen order, each once."""
    seen: dict[str, None] = {}
    for r in rules:
        for part in r.split(","):
            p = part.strip()
            if p:
                seen.setdefault(p, None)
    return tuple(seen)


class Explained:
    """``rules()`` and ``explain()`` for a ruling that keeps ``rule_refs`` and ``sentences`` (a mixin for
    slotted dataclasses)."""

    __slots__ = ()
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def rules(self) -> tuple[str, ...]:
        return distinct(self.rule_refs)

    def explain(self) -> str:
        return " ".join(self.sentences)


class ItemsExplained(Explained):
    """:class:`Explained` for a ruling whose ``items`` add up to its DRM: its rules are its items' rules
    and its own ``rule_refs``."""

    __slots__ = ()
    items: tuple[Item, ...]

    @property
    def drm(self) -> Fraction:
        return total(self.items)

    def rules(self) -> tuple[str, ...]:
        return distinct([*(i.rule for i in self.items), *self.rule_refs])


@dataclass(frozen=True, slots=True)
class Item:
    """One contribution to a ruling: an MF/MP cost, a TEM or a DRM, with why and the rule."""

    amount: Fraction
    why: str
    rule: str

    def to_json(self, key: str = "cost") -> dict[str, Any]:
        return {key: num(self.amount), "why": self.why, "rule": self.rule}


@dataclass(frozen=True, slots=True)
class Ruling:
    """A general ruling: an answer (``values``), items, extra rules and sentences.

    The specific rulings of the engines subclass it or build it; ``to_json`` gives the queries.md keys
    from ``values`` plus ``rules`` and ``explain``.
    """

    kind: str
    values: dict[str, Any] = field(default_factory=dict)
    items: tuple[Item, ...] = ()
    extra_rules: tuple[str, ...] = ()
    sentences: tuple[str, ...] = ()
    item_key: str = "cost"

    def rules(self) -> tuple[str, ...]:
        return distinct([*(i.rule for i in self.items), *self.extra_rules])

    def explain(self) -> str:
        parts = list(self.sentences)
        if self.items:
            parts.append("; ".join(f"{fmt(i.amount)} {i.why} ({i.rule})" for i in self.items) + ".")
        return " ".join(parts) if parts else "No rule applies."

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for k, v in self.values.items():
            out[k] = _jsonable(v)
        if self.items and "items" not in out:
            out["items"] = [i.to_json(self.item_key) for i in self.items]
        out["rules"] = list(self.rules())
        out["explain"] = self.explain()
        return out


def _jsonable(v: Any) -> Any:
    if isinstance(v, Fraction):
        return num(v)
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if hasattr(v, "to_json"):
        return v.to_json()
    return v


def total(items: Iterable[Item]) -> Fraction:
    return sum((i.amount for i in items), Fraction(0))
