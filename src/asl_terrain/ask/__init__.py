"""The batch entry point for programs (../shared/docs/queries.md): a JSON list of queries in, a JSON list of
answers out, one per query, in order.

Each kind has one handler, registered with :func:`handler` by the submodules (``ask.movement``,
``ask.los``, ``ask.effects``). A handler reads its query through :class:`Query` (which raises
:class:`~asl_terrain.errors.QueryError` naming the key and what was expected) and returns a ruling with
``to_json()``. A query that cannot be answered becomes ``{"kind": ..., "error": ...}``; the others are
still answered.

Imports: the engines, model, chart, rulings, units. Never cli or render.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

_T = TypeVar("_T")
_S = TypeVar("_S", bound=str)

from .. import limits
from ..chart import Chart, default_chart
from ..errors import AslTerrainError, QueryError, UserError, refuse_unknown_keys
from ..grid import Hex, Hexside, Vertex
from ..model import Conditions, Location, Map
from ..units import Unit

#: every kind of queries.md, in its order
CONTRACT_KINDS = (
    "move", "path", "reach", "los", "viewshed", "tem", "setup", "stacking", "bypass-effects", "tca-change",
    "vca-change", "place-rubble", "remove", "street-fighting", "load", "unload", "unhook", "sniper-target",
    "end-of-player-turn", "rubble-drm",
)


class QueryFileError(UserError):
    """The query file itself cannot be read (exit status 2)."""


@dataclass(frozen=True)
class Context:
    """What every handler gets: the map, the chart and the conditions in force for this query, and where a
    long answer (a viewshed) reports its progress (``progress(done, total)``; None: nowhere)."""

    map: Map
    chart: Chart
    conditions: Conditions
    progress: Callable[[int, int], None] | None = None


class Query:
    """A query object with typed, checked access to its keys."""

    def __init__(self, data: dict[str, Any], m: Map) -> None:
        self.data = data
        self.map = m
        self.kind: str = data["kind"]

    def only(self, *keys: str) -> None:
        """Reject keys this kind does not read, so that a misspelt key (``"hiden": true``) is an error naming it,
        never silently left out of the ruling. ``kind``, ``conditions`` and ``counters`` are always allowed."""
        allowed = {"kind", "conditions", "counters", *keys}
        refuse_unknown_keys(self.data, allowed, what=f" for a {self.kind!r} query", shown=sorted(allowed - {"kind"}))

    def has(self, key: str) -> bool:
        return key in self.data and self.data[key] is not None

    def raw(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def _req(self, key: str) -> Any:
        if key not in self.data or self.data[key] is None:
            raise QueryError(f"missing key {key!r}")
        return self.data[key]

    def _str(self, key: str, what: str) -> str:
        v = self._req(key)
        if not isinstance(v, str):
            raise QueryError(f"{key}: expected {what} as a string, got {v!r}")
        return v

    def location(self, key: str) -> Location:
        """A Location or Bypass position named by ``key``."""
        return self._wrap(key, lambda: self.map.parse_location(self._str(key, "a Location such as 'N17'")))

    def hex(self, key: str) -> Hex:
        return self._wrap(key, lambda: self.map.parse_hex(self._str(key, "a hex such as 'N17'")))

    def hexside(self, key: str) -> Hexside:
        return self._wrap(key, lambda: self.map.parse_hexside(self._str(key, "a hexside such as 'N17-O17'")))

    def vertex(self, key: str) -> Vertex:
        return self._wrap(key, lambda: self.map.parse_vertex(self._str(key, "a vertex such as 'O17-O18-P17'")))

    def unit(self, default: Any = "infantry") -> Unit:
        try:
            return Unit.from_json(self.data.get("unit", default))
        except QueryError:
            raise
        except AslTerrainError as e:
            raise QueryError(f"unit: {e}") from None

    def flag(self, key: str, default: bool = False) -> bool:
        v = self.data.get(key, default)
        if v is None:
            return default
        if not isinstance(v, bool):
            raise QueryError(f"{key}: expected true or false, got {v!r}")
        return v

    def optional_flag(self, key: str) -> bool | None:
        v = self.data.get(key)
        if v is not None and not isinstance(v, bool):
            raise QueryError(f"{key}: expected true, false or null, got {v!r}")
        return v

    def number(self, key: str, default: Any = None, minimum: float | None = None) -> Any:
        v = self.data.get(key, default)
        if v is None:
            if default is None and key not in self.data:
                return None
            return default
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise QueryError(f"{key}: expected a number, got {v!r}")
        if isinstance(v, float) and not math.isfinite(v):  # JSON's NaN, Infinity, 1e999
            raise QueryError(f"{key}: expected a finite number, got {v!r}")
        if minimum is not None and v < minimum:
            raise QueryError(f"{key}: expected a number >= {minimum}, got {v!r}")
        return v

    def choice(self, key: str, choices: Iterable[_S], default: _S | None = None) -> _S | None:
        """The query's ``key``, one of ``choices`` (typed as they are: a Literal choice comes back as one)."""
        v = self.data.get(key, default)
        opts = tuple(choices)
        if v is None:
            return default
        if v not in opts:
            raise QueryError(f"{key}: {v!r} is not one of {', '.join(repr(c) for c in opts)}")
        return opts[opts.index(v)]

    def _wrap(self, key: str, fn: Callable[[], _T]) -> _T:
        try:
            return fn()
        except QueryError as e:
            msg = str(e)
            raise type(e)(msg if msg.startswith(key + ":") or msg.startswith("missing key") else f"{key}: {msg}") \
                from None


_KEYED = re.compile(r"^(missing key|[\w-]+(\[\d+\])?(\.\w+)?:)")


@contextmanager
def keyed(m: Map, names: Iterable[tuple[str, Location | None]]) -> Iterator[None]:
    """Name the query's key in an engine QueryError that names only a Location (the LOS engine's "N17@N17-O17
    is a Bypass position along a hexside ..." for a LOS end): ``names`` pairs each key with the Location it
    gave; the first whose name opens the message is prefixed, the engine's words kept."""
    try:
        yield
    except QueryError as e:
        msg = str(e)
        if not _KEYED.match(msg):
            for key, loc in names:
                if loc is not None and msg.startswith(m.name_of(loc) + " "):
                    raise type(e)(f"{key}: {msg}") from None
        raise


Handler = Callable[[Context, Query], Any]

#: the handler module of each kind: imported only when a query of one of its kinds comes (a ``los`` does not
#: import the movement or effects engines)
_HANDLER_MODULES: dict[str, str] = {
    **dict.fromkeys(("move", "path", "reach", "vca-change"), "movement"),
    **dict.fromkeys(("los", "viewshed"), "los"),
    **dict.fromkeys(("tem", "setup", "stacking", "bypass-effects", "tca-change", "place-rubble", "remove",
                     "street-fighting", "load", "unload", "unhook", "sniper-target", "end-of-player-turn",
                     "rubble-drm"), "effects"),
}


class _Handlers(Mapping[str, "Handler"]):
    """The registered handlers by kind. Looking a kind up imports its handler module on first use; listing
    them imports every handler module (a missing one simply leaves its kinds unserved)."""

    def __init__(self) -> None:
        self._fns: dict[str, Handler] = {}

    def register(self, kind: str, fn: Handler) -> None:
        self._fns[kind] = fn

    def _load(self, module: str) -> None:
        # import_module is thread-safe: a second thread waits for a module another is importing
        import importlib

        try:
            importlib.import_module(f"{__name__}.{module}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{module}":
                raise

    def __getitem__(self, kind: str) -> Handler:
        fn = self._fns.get(kind)
        if fn is None and kind in _HANDLER_MODULES:
            self._load(_HANDLER_MODULES[kind])
            fn = self._fns.get(kind)
        if fn is None:
            raise KeyError(kind)
        return fn

    def _all(self) -> dict[str, Handler]:
        for module in dict.fromkeys(_HANDLER_MODULES.values()):
            self._load(module)
        return self._fns

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._all()))

    def __len__(self) -> int:
        return len(self._all())


HANDLERS = _Handlers()


def handler(kind: str) -> Callable[[Handler], Handler]:
    """Register the handler of one query kind."""

    def deco(fn: Handler) -> Handler:
        HANDLERS.register(kind, fn)
        return fn

    return deco


def answer_one(m: Map, q: Any, chart: Chart | None = None, debug: bool = False,
               progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The answer to one query object (an error object when it cannot be answered); a long one (a viewshed)
    calls ``progress(done, total)`` as it goes."""
    chart = chart or default_chart()
    if not isinstance(q, dict):
        return {"kind": None, "error": f"a query must be a JSON object with a \"kind\", got {json.dumps(q)[:60]}"}
    kind = q.get("kind")
    if not isinstance(kind, str):
        return {"kind": kind, "error": "missing key 'kind'; expected one of " + ", ".join(CONTRACT_KINDS)}
    fn = HANDLERS.get(kind)
    if fn is None:
        if kind in CONTRACT_KINDS:
            return {"kind": kind, "error": f"kind {kind!r} is in the query contract but no engine of this "
                                           "version answers it yet"}
        return {"kind": kind, "error": f"unknown kind {kind!r}; expected one of " + ", ".join(CONTRACT_KINDS)}
    try:
        if "counters" in q:  # what-if counters for this query alone (ask.whatif)
            from .whatif import what_if_map

            m = what_if_map(m, q["counters"])
        cond = m.conditions.updated(_conditions(q.get("conditions")))
        if cond.ssr != m.conditions.ssr:  # a query's SSR switches change the terrain every engine reads
            m = m.with_ssr(cond.ssr)
        ruling = fn(Context(m, chart, cond, progress), Query(q, m))
        out: dict[str, Any] = ruling.to_json() if hasattr(ruling, "to_json") else dict(ruling)
        out["kind"] = kind
        if cond.ssr:  # the SSR switches in force, each with its rule (docs/map-format-extensions.md)
            from ..ssr import describe

            out["ssr"] = describe(cond.ssr)
        return out
    except UserError as e:
        return {"kind": kind, "error": str(e)}
    except Exception as e:  # a bug: reported as such, never dressed up as a user error
        if debug:
            raise
        return {"kind": kind, "error": f"{INTERNAL_ERROR} ({type(e).__name__}: {e}); please report this query "
                                       "with the map (run with --debug for the traceback)"}


#: how the answer to a query that hit a bug begins
INTERNAL_ERROR = "internal error"


#: the JSON type each key of a query's "conditions" must have (the model would coerce "10" or true silently)
_CONDITION_TYPES: dict[str, tuple[type, str]] = {"month": (int, "a whole number 1-12"),
                                                 "weather": (str, "a string such as \"mud\""),
                                                 "frigid": (bool, "true or false"),
                                                 "ssr": (list, "a list of SSR switches such as [\"no-roads\"]")}


def _conditions(overrides: Any) -> dict[str, Any] | None:
    """A query's ``conditions`` object, its values checked for their JSON type (queries.md: JSON numbers, not
    strings); the values themselves are checked by :meth:`Conditions.updated`."""
    if overrides is None:
        return None
    if not isinstance(overrides, dict):
        raise QueryError("conditions: expected an object such as {\"month\": 10, \"weather\": \"mud\"}")
    for k, v in overrides.items():
        refuse_unknown_keys((k,), _CONDITION_TYPES, "conditions.", shown=_CONDITION_TYPES)
        typ, words = _CONDITION_TYPES[k]
        if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
            raise QueryError(f"conditions.{k}: expected {words}, got {json.dumps(v)}")
    return overrides


def answer_all(m: Map, queries: list[Any], chart: Chart | None = None,
               debug: bool = False, progress: Callable[[int, int], None] | None = None
               ) -> tuple[list[dict[str, Any]], int]:
    """Answer a batch; returns (answers, exit status): 0 all answered, 1 when any answer is an error, 3 when
    any is an internal error (a bug: the same status as every other internal error of the CLI).
    ``progress(done, total)`` is called every 100 answers and at the end."""
    answers = []
    for q in queries:
        answers.append(answer_one(m, q, chart, debug))
        if progress is not None and (len(answers) % 100 == 0 or len(answers) == len(queries)):
            progress(len(answers), len(queries))
    if any(str(a.get("error", "")).startswith(INTERNAL_ERROR) for a in answers):
        return answers, 3
    return answers, (1 if any("error" in a for a in answers) else 0)


def read_queries(source: str) -> list[Any]:
    """A query file (or ``-`` for stdin) decoded: a JSON list of query objects (a lone object is a list of one).

    :raises QueryFileError: when it cannot be read or is not JSON.
    """
    where = "stdin" if source == "-" else source
    try:
        if source == "-":
            text = sys.stdin.read()
            if len(text) > limits.MAX_FILE_BYTES:
                raise QueryFileError(f"stdin: the query file is over {limits.MAX_FILE_BYTES:,} characters")
            limits.guard_text(text, where, QueryFileError)
        else:
            text = limits.decode_bytes(Path(source).read_bytes(), where, "query file", QueryFileError)
    except OSError as e:
        raise QueryFileError(f"{source}: cannot read the query file ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise QueryFileError(f"{source}: the query file is not UTF-8 text") from None
    return parse_queries(text, "stdin" if source == "-" else source)


def parse_queries(text: str, source: str) -> list[Any]:
    """Query text decoded: a JSON list of query objects (a lone object is a list of one); ``source`` names
    where the text came from in the error (a file, ``stdin``, ``the request body``).

    :raises QueryFileError: when it is not JSON or not a list of queries.
    """
    where = source
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise QueryFileError(f"{where}: not valid JSON ({e}); expected a JSON list of query objects") from None
    except (RecursionError, ValueError) as e:  # the guard should have refused it first
        raise QueryFileError(f"{where}: cannot be read as JSON ({type(e).__name__}: {e})") from None
    if isinstance(data, dict):
        return [data]
    if not isinstance(data, list):
        raise QueryFileError(f"{where}: expected a JSON list of query objects, got {type(data).__name__}")
    if len(data) > limits.MAX_BATCH:
        raise QueryFileError(f"{where}: {len(data):,} queries; a batch has at most {limits.MAX_BATCH:,} "
                             "(README, Limits): split it")
    return data
