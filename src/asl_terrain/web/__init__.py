"""``asl-terrain serve``: the map in a browser, as an ASGI app (Starlette, run by uvicorn).

The page (``static/``: one HTML file, its script and its style sheet, shipped inside the package) asks the
engine through two endpoints and nothing else:

``GET /api/map``      what the page draws: the hexes with their canonical names, centres and Locations, the
                      boards of a layout, the counters and units, the conditions (SSR switches included),
                      the choices a query may take;
``GET /api/map.svg``  the picture under it (render.py's drawing; an imported board's artwork);
``POST /api/ask``     the same JSON list of queries ``asl-terrain ask`` takes, answered by the same
                      :func:`asl_terrain.ask.answer_all`: the same answers, key for key.

No request path reaches the file system: the static files are read once, when the app is made, into a table
keyed by name; the map was loaded before the app existed and is never written. The engine runs in one worker
thread (its caches are per map, and two cores gain nothing under the GIL); requests queue for it up to
:data:`MAX_PENDING`, past which the server answers 503 at once rather than pile up work.

Imports: ask, render, model, chart (and vasl for a board's artwork). Only cli imports this package.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..ask import HANDLERS, QueryFileError, answer_all, parse_queries
from ..ask.whatif import counter_to_json
from .. import limits
from ..chart import WEATHERS, Chart, default_chart
from ..grid import Hex, to_pixel
from ..model import Location, Map

__all__ = ["MAX_BODY", "MAX_PENDING", "MAX_QUERIES", "BackgroundServer", "create_app", "map_description",
           "map_picture", "start_background"]

MAX_BODY = 1 << 20
"""The largest request body /api/ask reads, in bytes (1 MiB: some thousands of queries)."""
MAX_QUERIES = 500
"""The most queries one /api/ask request may hold."""
MAX_PENDING = 32
"""Requests waiting for the engine beyond which /api/ask answers 503 (busy) at once."""
HEX_SIZE = 36.0
"""Hex size in pixels (centre to vertex) of the picture and of the geometry /api/map gives."""

_STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".png": "image/png", ".svg": "image/svg+xml"}
_UNITS = ("infantry", "cavalry", "wagon", "vehicle", "half-track", "armored-car", "truck", "motorcycle")
"""Unit choices of the page; a vehicle class stands for ``{"type": "vehicle", "class": ...}`` (queries.md)."""
_NO_STORE = {"cache-control": "no-store"}


def _static_files() -> dict[str, tuple[bytes, str]]:
    """The page's own files, read once: name -> (bytes, media type). Nothing else is ever served."""
    out: dict[str, tuple[bytes, str]] = {}
    for entry in files(__name__).joinpath("static").iterdir():
        name = entry.name
        suffix = name[name.rfind("."):] if "." in name else ""
        if entry.is_file() and suffix in _STATIC_TYPES:
            out[name] = (entry.read_bytes(), _STATIC_TYPES[suffix])
    return out


def _board_name(m: Map, h: Hex) -> str | None:
    """The board-prefixed name of ``h`` on a layout of several boards (``2C3``), or None."""
    if m.prefix or len(m.depiction.boards) < 2:
        return None
    for b in m.depiction.boards:
        local = Hex(h.col - b.column, h.row - b.row)
        if b.prefix and local.col >= 0 and local.row >= 0 and b.contains(local):
            return b.prefix + local.name
    return None


def map_description(m: Map) -> dict[str, Any]:
    """What ``GET /api/map`` answers: the map as the page draws and queries it.

    Pixel coordinates are those of :func:`map_picture` (:func:`asl_terrain.grid.to_pixel` at
    :data:`HEX_SIZE`); each hex gives its canonical name (the name answers use), its Locations (the level
    choices of a LOS end) and, on a layout, its board-prefixed name.
    """
    hexes = []
    for h in m.hexes():
        x, y = to_pixel(h.centre(), HEX_SIZE)
        t = m.terrain(h)
        item: dict[str, Any] = {"name": m.name_of(h), "col": h.col, "row": h.row, "x": round(x, 2),
                                "y": round(y, 2), "terrain": m.describe_hex(h), "level": t.level,
                                "locations": [m.name_of(loc) for loc in m.locations(h)]}
        if t.offboard:
            item["offboard"] = True
        bn = _board_name(m, h)
        if bn is not None and bn != item["name"]:
            item["board_name"] = bn
        hexes.append(item)
    boards = []
    for b in m.depiction.boards:
        x0, y0 = to_pixel(Hex(b.column, b.row).centre(), HEX_SIZE)
        x1, y1 = to_pixel(Hex(b.column + b.columns - 1, b.row + b.rows).centre(), HEX_SIZE)
        boards.append({"archive": b.archive, "prefix": b.prefix, "column": b.column, "row": b.row,
                       "columns": b.columns, "rows": b.rows, "box": [round(v, 2) for v in (x0, y0, x1, y1)]})
    c = m.conditions
    from .. import ssr

    units = [{"name": u.name, "kind": u.kind, "side": u.side, "at": m.name_of(u.at) if u.at is not None else None}
             for u in getattr(m, "units", ())]
    from ..effects import ATTACKS  # the engines' own lists (listing HANDLERS imports them anyway)
    from ..setup import SETUP_ITEMS

    return {
        "name": m.name, "prefix": m.prefix, "grid": m.grid.describe(), "size": HEX_SIZE,
        "depiction": "artwork" if m.depiction.follows_artwork else "whole-hex",
        "hexes": hexes, "boards": boards,
        "counters": [counter_to_json(m, k) for k in m.counters], "units": units,
        "conditions": {"month": c.month, "weather": c.weather, "frigid": c.frigid, "ssr": list(c.ssr)},
        "choices": {"kinds": sorted(HANDLERS), "units": list(_UNITS), "weather": list(WEATHERS),
                    "attacks": list(ATTACKS), "setup_items": list(SETUP_ITEMS),
                    "ssr": [{"name": w.name, "rule": w.rule, "says": w.says} for w in ssr.SWITCHES.values()]},
    }


def map_picture(m: Map) -> str:
    """The SVG under the page: render.py's drawing of the map without its counters (the page draws those,
    so that a what-if can take one away), on the boards' artwork for an imported VASL map."""
    from ..render import map_svg

    image = None
    if m.depiction.follows_artwork:
        from .. import vasl

        raster = vasl.load_artwork(m.depiction)
        g = m.grid
        image = vasl.artwork_png(raster.archives, (g.col_first, g.col_last), (g.row_first, g.row_last), 1.0)
    return map_svg(m.with_counters(()), size=HEX_SIZE, board_image=image, legend=False)


def _error(status: int, text: str) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status, headers=_NO_STORE)


@dataclass
class _Engine:
    """The one worker thread that answers queries, and the count of requests waiting for it."""

    m: Map
    chart: Chart
    pool: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="engine"))
    pending: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, queries: list[Any]) -> tuple[list[dict[str, Any]], int]:
        return answer_all(self.m, queries, self.chart)


def create_app(m: Map, chart: Chart | None = None, *, max_body: int = MAX_BODY, max_queries: int = MAX_QUERIES,
               max_pending: int = MAX_PENDING, allowed_hosts: list[str] | None = None) -> Starlette:
    """The web app for map ``m`` (and ``chart``, default the bundled one). The picture is drawn in the
    background from the start, so that the first answer does not wait for it. ``allowed_hosts``: the Host
    names a request may carry (``serve`` gives 127.0.0.1, localhost and its ``--host``, so that a web site
    cannot reach the server through a name of its own, DNS rebinding); None allows any."""
    engine = _Engine(m, chart or default_chart())
    static = _static_files()
    description = json.dumps(map_description(m), ensure_ascii=False).encode("utf-8")
    picture_pool = ThreadPoolExecutor(1, thread_name_prefix="picture")
    picture: Future[str] = picture_pool.submit(map_picture, m)

    async def index(request: Request) -> Response:
        body, media = static["index.html"]
        return Response(body, media_type=media, headers=_NO_STORE)

    async def static_file(request: Request) -> Response:
        hit = static.get(str(request.path_params["name"]))  # a name in the table, never a path
        if hit is None:
            return _error(404, f"no such file {request.url.path!r}")
        return Response(hit[0], media_type=hit[1], headers=_NO_STORE)

    async def api_map(request: Request) -> Response:
        return Response(description, media_type="application/json", headers=_NO_STORE)

    async def api_picture(request: Request) -> Response:
        try:
            svg = await asyncio.wrap_future(picture)
        except Exception as e:  # the map answers queries even when its artwork cannot be drawn
            return _error(503, f"the map's picture cannot be drawn: {e}")
        return Response(svg, media_type="image/svg+xml")

    async def api_ask(request: Request) -> Response:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_body:
            return _error(413, f"the request body: {declared} bytes is more than the {max_body} this server reads; "
                               "expected a JSON list of query objects")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_body:
                return _error(413, f"the request body: more than the {max_body} bytes this server reads; expected "
                                   "a JSON list of query objects")
            chunks.append(chunk)
        try:
            text = b"".join(chunks).decode("utf-8")
        except UnicodeDecodeError:
            return _error(400, "the request body: not UTF-8 text; expected a JSON list of query objects")
        try:
            limits.guard_text(text, "the request body", QueryFileError)
            queries = parse_queries(text, "the request body")
        except QueryFileError as e:
            return _error(400, str(e))
        if len(queries) > max_queries:
            return _error(413, f"the request body: {len(queries)} queries are more than the {max_queries} one "
                               "request may hold; send them in several requests")
        with engine.lock:
            if engine.pending >= max_pending:
                busy = True
            else:
                busy = False
                engine.pending += 1
        if busy:
            return _error(503, f"busy: {max_pending} requests are waiting for the engine; try again")
        try:
            loop = asyncio.get_running_loop()
            answers, status = await loop.run_in_executor(engine.pool, engine.answer, queries)
        finally:
            with engine.lock:
                engine.pending -= 1
        # 422 when some query cannot be answered, 500 when one hit a bug (ask's exit 1 and 3): the answers are
        # still all there, as ask prints them, and no traceback
        return JSONResponse(answers, status_code={0: 200, 1: 422}.get(status, 500), headers=_NO_STORE)

    async def not_found(request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 404)
        return _error(code, f"{request.method} {request.url.path}: "
                            + ("no such page; the page is / and the API is /api/map, /api/map.svg and POST /api/ask"
                               if code == 404 else "not allowed here"))

    routes = [
        Route("/", index, methods=["GET"]),
        Route("/static/{name}", static_file, methods=["GET"]),
        Route("/api/map", api_map, methods=["GET"]),
        Route("/api/map.svg", api_picture, methods=["GET"]),
        Route("/api/ask", api_ask, methods=["POST"]),
    ]
    middleware = []
    if allowed_hosts is not None:
        from starlette.middleware import Middleware
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found}, middleware=middleware)
    app.state.map = m
    app.state.picture = picture
    return app


@dataclass
class BackgroundServer:
    """A uvicorn server running ``app`` in a thread (tests, benchmarks); :meth:`stop` ends it."""

    url: str
    server: Any
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def bind(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit it: without it, a response's headers and body wait on the client's
    # delayed ACK (40 ms a request on Linux)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


def make_server(app: Starlette, host: str, port: int) -> Any:
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                            limit_concurrency=256, timeout_keep_alive=5)
    return uvicorn.Server(config)


def start_background(app: Starlette, host: str = "127.0.0.1", port: int = 0) -> BackgroundServer:
    """Serve ``app`` on ``host`` (a free port unless ``port``) in a daemon thread; returns when it listens."""
    sock = bind(host, port)
    real_port = sock.getsockname()[1]
    server = make_server(app, host, real_port)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="asl-terrain-serve")
    thread.start()
    for _ in range(500):
        if server.started:
            break
        thread.join(0.01)
    if not server.started:
        raise RuntimeError("the web server did not start")
    return BackgroundServer(f"http://{host}:{real_port}", server, thread)
