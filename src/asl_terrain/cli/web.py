"""``asl-terrain serve [MAP] [--port N] [--host H] [--open] [--boards LAYOUT]``: the map in a browser.

The web stack (Starlette, uvicorn) is imported inside the command, so that the other commands start
without it.
"""

from __future__ import annotations

from typing import Optional

import typer

from ..errors import UserError
from ..model import Map
from . import app, console, get_chart, load_map


@app.command("serve")
def serve(
    map_file: Optional[str] = typer.Argument(None, metavar="[MAP|GAME.vsav]", help="Map file (default: the demo "
                                             "map) or a VASL saved game; an imported VASL map is drawn on its "
                                             "boards' artwork."),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port (0: any free port)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (default: this machine only)."),
    open_browser: bool = typer.Option(False, "--open", help="Open the page in the default browser."),
    boards: Optional[str] = typer.Option(None, "--boards", metavar="LAYOUT",
                                         help="Instead of a map file, VASL boards imported on the fly, laid out "
                                              "as import-vasl --layout writes it: \"bd01,bd02;bd03\" (or "
                                              "a VASL saved game, GAME.vsav)."),
) -> None:
    """Serve an interactive page for the map: drag a LOS thread, see where a unit can go, what a Location
    sees, the TEM of an attack, move costs, set-up and stacking, with what-if counters and conditions.
    The page asks the engine through POST /api/ask, which answers exactly as `asl-terrain ask` does.

    With no MAP it serves the demo map at http://127.0.0.1:8765/ until Ctrl-C.

    VASL boards laid out on the fly: --boards "bd01,bd02;bd03" (rows separated by ";"), on their artwork.

    Example:
    asl-terrain serve mymap.toml --open --port 0   (your map, on any free port, opened in the browser)
    """
    if boards is not None:
        if map_file is not None:
            raise UserError("--boards: give either a map file or --boards, not both")
        # a saved game is accepted wherever a layout is: its layout, and its counters with it
        m = load_map(boards) if boards.lower().endswith(".vsav") else _import_boards(boards)
    else:
        m = load_map(map_file)  # a VASL saved game (.vsav) is imported on the fly, its counters with it

    import uvicorn  # noqa: F401  # the web stack, only for this command

    from ..web import bind, create_app, make_server

    try:
        sock = bind(host, port)
    except OSError as e:
        raise UserError(f"--port {port}: cannot listen on {host}:{port} ({e.strerror or e}); try another "
                        "--port, or --port 0 for any free one") from None
    real_port = sock.getsockname()[1]
    hosts = ["127.0.0.1", "localhost", "::1", "[::1]"] + ([host] if host not in ("0.0.0.0", "::") else ["*"])
    web_app = create_app(m, get_chart(), allowed_hosts=hosts)
    url = f"http://{'[' + host + ']' if ':' in host else host}:{real_port}/"
    console.print(f"serving {m.name} ({len(m)} hexes) at {url}  (Ctrl-C stops)", soft_wrap=True)
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    server = make_server(web_app, host, real_port)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn has shut down and passes the Ctrl-C on: a clean stop, not an abort
        pass
    console.print("stopped")


def _import_boards(layout: str) -> Map:
    from .. import vasl

    rows = vasl.parse_layout(layout)
    names = [b for row in rows for b in row]
    r = vasl.import_boards(names, layout=layout)
    return Map.from_data(r.map, source=f"<boards {layout}>")
