"""The exception hierarchy of asl-terrain.

A *ruling* that says "not allowed" is never an exception: exceptions are for input the engine cannot
read or a question that does not make sense (a hex off the map, two hexes that are not adjacent).
This module imports nothing from the package.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable


class AslTerrainError(Exception):
    """Root of every error asl-terrain raises on purpose."""


class UserError(AslTerrainError):
    """Something the user gave is wrong; the message says what and what was expected."""


class MapError(UserError, ValueError):
    """A map file (or map data) that cannot be loaded.

    ``problems`` holds every problem found, each already naming the key or hex.
    """

    def __init__(self, message: str, problems: list[str] | None = None, source: str | None = None) -> None:
        self.problems = problems or [message]
        self.source = source
        super().__init__(message)


class ChartError(UserError, ValueError):
    """The terrain chart (bundled or a user's override) is malformed."""


class QueryError(UserError, ValueError):
    """A query that cannot be answered as asked (not a rule forbidding it: that is a ruling)."""


class BadName(QueryError):
    """A hex, hexside, vertex or Location name that does not parse."""


class UnknownLocation(QueryError):
    """A well-formed name of a hex or Location that is not on this map."""


class NotAdjacent(QueryError):
    """Two hexes named as neighbours (a hexside, a move) that are not adjacent."""


def refuse_unknown_keys(given: Iterable[str], known: Collection[str], where: str = "", *, what: str = "",
                        shown: Iterable[str] | None = None) -> None:
    """The one unknown-key check of a query's objects: :raises QueryError: ``"<where><key>: unknown key<what>;
    expected some of <shown>"`` for the first key of ``given`` not in ``known`` (``shown``: the keys to list,
    in their order; ``known`` sorted when None), so a misspelt key is an error naming it, never ignored."""
    for k in given:
        if k not in known:
            listed = list(shown) if shown is not None else sorted(known)
            raise QueryError(f"{where}{k}: unknown key{what}; expected some of {', '.join(listed)}")
