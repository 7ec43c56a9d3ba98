"""The command line for people: ``asl-terrain move|path|reach|los|viewshed|tem|setup|render|ask ...``.

One short function per subcommand, in the submodules (``cli.core``, ``cli.movement``, ``cli.los``,
``cli.effects``). Each builds the same query object the batch ``ask`` takes and prints the ruling, so the
three faces give the same answer. Errors the user can fix print one line and exit with status 2; a bug
says so, exits with status 3 (in every subcommand alike) and shows its traceback only with ``--debug``.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ..chart import Chart, ChartDeprecationWarning, load_chart
from ..errors import UserError
from ..model import Map, demo_map_path
from ..rulings import fmt

if TYPE_CHECKING:
    from rich.console import Console

    from ._app import FORCE_OPT as FORCE_OPT
    from ._app import SIZE_OPT as SIZE_OPT
    from ._app import app as app
    from ._app import what_if_options as what_if_options

    console: Console  # made by _console() when first asked for
    err_console: Console

#: what cli._app defines (typer, its options): imported when first asked for, so that a command line the
#: quick path answers (cli.quick) never imports typer (start-up, issue 13)
_APP_NAMES = ("app", "SIZE_OPT", "FORCE_OPT", "what_if_options", "_LazyTyper", "_root")


def __getattr__(name: str) -> Any:
    if name in _APP_NAMES:
        from . import _app

        return getattr(_app, name)
    if name in ("console", "err_console"):
        return _console(name == "err_console")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _console(stderr: bool = False) -> Any:
    """The CLI's rich console for stdout (``console``) or stderr (``err_console``), made when first asked
    for: an answer written as plain text (cli.plain) never imports rich's console (start-up, issue 13)."""
    name = "err_console" if stderr else "console"
    c = globals().get(name)
    if c is None:
        from rich.console import Console

        c = globals()[name] = Console(stderr=stderr, highlight=False)
    return c


def escape(text: str) -> str:
    """rich's markup escape (rich.markup imported when first needed)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


#: the submodule that defines each command: a run of one command imports and builds only that module's
#: commands (start-up, issue 13); `--help`, an unknown name or any other use of ``app`` loads them all
#: (tests/test_cli.py checks this table against the registrations)
COMMAND_MODULES = {
    **dict.fromkeys(("render", "ask", "schema", "chart", "check"), "core"),
    **dict.fromkeys(("move", "path", "reach", "vca-change"), "movement"),
    **dict.fromkeys(("los", "viewshed"), "los"),
    **dict.fromkeys(("tem", "setup", "stacking", "bypass-effects", "tca-change", "place-rubble", "remove",
                     "street-fighting", "unload", "load", "unhook", "sniper-target", "end-of-player-turn",
                     "rubble-drm"), "effects"),
    **dict.fromkeys(("import-vasl", "vasl-check"), "vasl"),
    "serve": "web",
    "los-table": "lostable",
}
_MODULES = ("core", "movement", "los", "effects", "vasl", "web", "lostable")


def _import_commands(name: str) -> None:
    try:
        importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise


def _name_of(command: Any) -> str:
    """A registered command's name, as typer names it (the function's name with dashes)."""
    return str(command.name or command.callback.__name__.lower().replace("_", "-"))


def _command_of(argv: list[str]) -> str | None:
    """The command ``argv`` runs, past the root options, when it is one of :data:`COMMAND_MODULES`; None
    when unsure."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--debug" or a.startswith("--chart="):
            i += 1
        elif a == "--chart":
            i += 2
        else:
            return a if a in COMMAND_MODULES else None
    return None


class State:
    debug: bool = False
    chart_path: Optional[str] = None
    retired_said: bool = False


def get_chart() -> Chart:
    """The chart in force; a value of the user's chart that no rule reads any more is said once, on stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChartDeprecationWarning)  # said below, once, without a source line
        chart = load_chart(State.chart_path)
    if chart.retired and not State.retired_said:
        State.retired_said = True
        for note in chart.retired:
            _console(True).print(f"[bold yellow]warning:[/] {escape(note)}", soft_wrap=True)
    return chart


def is_map_arg(text: str) -> bool:
    """Whether a positional argument names a map file rather than a hex or Location."""
    if text.lower().endswith((".toml", ".json", ".vsav")):
        return True
    try:
        return ("/" in text and Path(text).exists()) or Path(text).is_file()
    except (OSError, ValueError):  # a name too long for a file name (or with a NUL) names no file
        return False


def load_map(path: Optional[str]) -> Map:
    """The map at ``path`` (a VASL saved game ``.vsav`` is imported on the fly), or the bundled demo map."""
    if path and path.lower().endswith(".vsav"):
        from .. import vsav

        return Map.from_data(vsav.import_save(path, chart=get_chart()).map, source=path)
    return Map.load(path if path else demo_map_path())


@dataclass(frozen=True)
class WhatIf:
    """The counters a command line adds (``--smoke/--wreck/--vehicle/--rubble HEX``) and the SSR switches it
    puts in force (``--ssr``)."""

    smoke: tuple[str, ...] = ()
    wreck: tuple[str, ...] = ()
    vehicle: tuple[str, ...] = ()
    rubble: tuple[str, ...] = ()
    ssr: tuple[str, ...] = ()

    def on(self, m: Map) -> Map:
        """``m`` as this what-if makes it."""
        return what_if(m, list(self.smoke), list(self.wreck), list(self.vehicle), list(self.rubble), list(self.ssr))


def what_if(m: Map, smoke: Optional[list[str]] = None, wreck: Optional[list[str]] = None,
            vehicle: Optional[list[str]] = None, rubble: Optional[list[str]] = None,
            ssr: Optional[list[str]] = None) -> Map:
    """``m`` with the counters of ``--smoke/--wreck/--vehicle/--rubble HEX`` added and the ``--ssr`` switches in
    force, for a quick question without editing the map file."""
    from ..model import Counter

    added = []
    for kind, hexes in (("smoke", smoke), ("wreck", wreck), ("vehicle", vehicle), ("rubble", rubble)):
        for text in hexes or ():
            try:
                h = m.parse_hex(text)
            except UserError as e:
                raise UserError(f"--{kind} {text}: {e}") from None
            strength = int(get_chart().param("smoke_counter_hindrance").value) if kind == "smoke" else 0
            added.append(Counter(kind, at=h, strength=strength, smoke_kind="smoke" if kind == "smoke" else None))
    if added:
        m = m.with_counters(m.counters + tuple(added))
    if ssr:
        from ..errors import MapError

        try:
            m = m.with_ssr(ssr)
        except MapError as e:
            raise UserError(f"--ssr: {e}") from None
    return m


def board_image(m: Map) -> bytes | None:
    """The board artwork of an imported VASL map, as a PNG for ``render.map_svg(board_image=...)``; None for
    a hand-made map (drawn from its terrain)."""
    if not m.depiction.follows_artwork:
        return None
    from .. import vasl

    raster = vasl.map_artwork(m)
    g = m.grid
    return vasl.artwork_png(raster.archives, (g.col_first, g.col_last), (g.row_first, g.row_last), 1.0)


def split_map(args: list[str], n: int, names: str) -> tuple[Map, list[str]]:
    """Split ``[MAP] A B ...``: the first argument is a map when it names one (a ``.toml``/``.json`` name or
    an existing file) and ``n`` arguments follow it."""
    if len(args) == n + 1 and is_map_arg(args[0]):
        return load_map(args[0]), args[1:]
    if len(args) == n and not (n and is_map_arg(args[0])):
        return load_map(None), args
    got = " ".join(args)
    if n == 0:
        raise UserError(f"expected at most a map file (.toml or .json), got {got!r}")
    plural = "s" if n != 1 else ""
    if args and is_map_arg(args[0]):
        rest = args[1:]
        raise UserError(f"expected {names} after the map file {args[0]} ({n} argument{plural}), got {len(rest)}: "
                        f"{' '.join(rest) or '(none)'}")
    hint = (" (one too many, unless the first is a map file ending in .toml or .json)" if len(args) == n + 1
            else " (too many)" if len(args) > n else "")
    raise UserError(f"expected [MAP] {names} ({n} argument{plural} after the optional map file), got {len(args)}: "
                    f"{got or '(none)'}{hint}")


def check_output(output: Optional[Path], force: bool = False, inputs: Any = ()) -> None:
    """Refuse a picture file ``-o`` that cannot be written before any work is done: it must end in .svg or
    .png, its directory must exist, it must not be one of the command's ``inputs`` (even with ``--force``)
    and must not exist unless ``force`` (see :func:`asl_terrain.cli.core.check_new_file`)."""
    if output is None:
        return
    if output.suffix.lower() not in (".svg", ".png"):
        raise UserError(f"-o {output}: expected a picture file ending in .svg or .png")
    from .core import check_new_file

    check_new_file(output, "-o", force, inputs)


def save_picture(svg: str, output: Path, force: bool = False, inputs: Any = ()) -> None:
    """Write a picture atomically (``render.picture_bytes``); a file that cannot be written is a user error."""
    from ..render import picture_bytes
    from .core import write_new_file

    check_output(output, force, inputs)
    write_new_file(output, picture_bytes(svg, output), "-o", force, inputs)


_ITEM_COLUMNS = {"amount": "TEM/DRM", "drm": "DRM", "cost": "COST"}


def print_answer(ans: dict[str, Any], keys: list[str] | None = None, item_key: str = "cost",
                 more: Sequence[tuple[str, str]] = (), first: Sequence[tuple[str, str]] = ()) -> int:
    """Print one answer for a person (``first`` lines before it and ``more`` lines after it, as (plain text,
    rich markup)); returns 1 for an error answer, else 0."""
    if "error" in ans:
        _console(True).print(f"[bold red]error:[/] {escape(str(ans['error']))}")
        return 1
    from .plain import Printed

    out = Printed()
    for text, markup in first:
        out.line(text, partial(str, markup))
    skip = {"kind", "rules", "explain", "items", "steps", "paths", "costs", "visible", "hindrances"}
    for k in keys or [k for k in ans if k not in skip]:
        if k in ans:
            v = format_value(ans[k])
            out.line(f"{k}: {v}", partial(_bold, k, v))
    items = ans.get("items")
    if items:
        key = next((k for k in _ITEM_COLUMNS if k in items[0]), item_key)
        header = _ITEM_COLUMNS.get(key, key.upper())
        if key == "cost" and ans.get("units"):
            header = str(ans["units"])
        signed = key in ("amount", "drm")  # a DRM is written with its sign: +1, -1
        rows = []
        for it in items:
            v = it.get(key)
            text = format_value(v)
            if signed and isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
                text = "+" + text
            rows.append((text, str(it.get("why", "")), str(it.get("rule", ""))))
        out.table((header, "why", "rule"), ("right", "left", "left"), rows)
    rules = ", ".join(ans.get("rules", [])) or "-"
    out.line(f"rules: {rules}", partial(_bold, "rules", rules))
    explain = str(ans.get("explain", ""))
    out.line(explain, lambda: f"[italic]{escape(explain)}[/]")
    for line in ans.get("ssr") or ():  # the SSR switches the answer was ruled under
        out.line(str(line), partial(escape, str(line)))
    for text, markup in more:
        out.line(text, partial(str, markup))
    out.emit()
    return 0


def _bold(key: str, value: str) -> str:
    return f"[bold]{key}[/]: {escape(value)}"


def format_value(v: Any) -> str:
    """A value of an answer as a player reads it: yes/no, ``-`` for none, fractions as ½ ¾, a LOS's
    ``blocked_by`` as ``woods at HrC3 (A6.2)``, other objects as ``from yes, to no`` and lists as ``a, b``."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "-"
    if isinstance(v, (int, float, Fraction)):
        return fmt(v)
    if isinstance(v, dict):
        if "terrain" in v and "rule" in v and ("hex" in v or "hexside" in v):
            what = str(v["terrain"])
            if what.endswith(": Blind Hex"):  # the hex named is the obstacle casting it, not the Blind Hex
                what = "a Blind Hex behind the " + what[:-len(": Blind Hex")]
            return f"{what} at {v.get('hexside') or v.get('hex')} ({v['rule']})"
        return ", ".join(f"{k} {format_value(x)}" for k, x in v.items()) or "none"
    if isinstance(v, (list, tuple)):
        if not v:
            return "none"
        sep = "; " if any(isinstance(x, (dict, list, tuple)) for x in v) else ", "
        return sep.join(format_value(x) for x in v)
    return str(v)


def _quick_of(argv: list[str]) -> Callable[[list[str]], Any] | None:
    """The plain answer of a ``los``/``move`` command line of Locations (and a map file) only, no options,
    or of a ``reach`` command line with at most the options :func:`_reach_options` reads: answered without
    building the typer app (cli.quick, the same function the typer commands call; start-up, issue 13).
    None: typer parses it."""
    if len(argv) >= 2 and argv[0] == "reach":
        return _reach_options(argv[1:])
    if len(argv) < 2 or argv[0] not in ("los", "move") or any(a.startswith("-") for a in argv[1:]):
        return None
    from . import quick

    return quick.run_los if argv[0] == "los" else quick.run_move


#: the ``reach`` options the quick path reads (each with a value, as typer converts it); any other option,
#: ``--name=value``, a value that looks like an option or one typer would refuse leaves the line to typer
_REACH_OPTIONS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "--unit": ("unit", str), "-u": ("unit", str), "--allowance": ("allowance", float), "--mf": ("mf", float),
    "--mp": ("mp", float), "--limit": ("limit", int)}


def _reach_options(args: list[str]) -> Callable[[list[str]], Any] | None:
    """``reach``'s arguments read as typer reads them, as the quick answer of the command line, or None."""
    given: dict[str, Any] = {}
    plain: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if not a.startswith("-"):
            plain.append(a)
            i += 1
            continue
        opt = _REACH_OPTIONS.get(a)
        if opt is None or i + 1 == len(args) or args[i + 1].startswith("-"):
            return None
        try:
            given[opt[0]] = opt[1](args[i + 1])
        except ValueError:
            return None
        i += 2
    if not plain:
        return None
    from . import quick

    return lambda _: quick.run_reach(plain, **given)


def _run_app(argv: list[str]) -> None:
    from ._app import app

    command = _command_of(argv)
    if command is not None and not app._all_loaded:
        app._narrowed = True
        _import_commands(COMMAND_MODULES[command])
        app._only = command
    try:
        rv = app(standalone_mode=False, prog_name="asl-terrain")
    finally:
        app._narrowed = False
        app._only = None
    if isinstance(rv, int) and rv:
        sys.exit(rv)


#: the commands that answer one bounded question and end
ONE_SHOT = frozenset({"los", "viewshed", "move", "reach"})


@contextlib.contextmanager
def one_shot(ends_process: bool = False) -> Iterator[None]:
    """A command that loads a map, answers and ends: no cyclic garbage collection while it runs. The map, its
    LOS tables and the engine's records are tens of thousands of acyclic objects that every pass walks again
    (a tenth of a ``los`` or ``viewshed`` on a 3-board layout, a quarter of a ``reach``'s search, issue 13).
    The process's one counted pause (:data:`asl_terrain.collector.paused`: a search's own nests inside);
    ``ends_process``: the interpreter exits next (the console entry point), so what the command built is first
    left out of the exit's collection (gc.freeze), never in a program that goes on."""
    from ..collector import paused

    with paused():
        try:
            yield
        finally:
            if ends_process:
                gc.freeze()


def main(*, ends_process: bool = False) -> None:
    """Console entry point: run the app, turning user errors into one line and exit status 2.
    ``ends_process``: called by the entry point, :func:`asl_terrain.__main__.run` (see :func:`one_shot`)."""
    argv = sys.argv[1:]
    with one_shot(ends_process) if _command_of(argv) in ONE_SHOT else contextlib.nullcontext():
        _main(argv)


def _main(argv: list[str]) -> None:
    quick = _quick_of(argv)
    try:
        if quick is not None:
            State.debug, State.chart_path = False, None  # what the root callback sets without root options
            quick(argv[1:])
        else:
            _run_app(argv)
    except UserError as e:
        _console(True).print(f"[bold red]error:[/] {escape(str(e))}", soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        _console(True).print("aborted")
        sys.exit(130)
    except Exception as e:
        typer = sys.modules.get("typer")  # only a command line typer parsed can raise its exceptions
        if typer is not None and isinstance(e, typer.Exit):
            sys.exit(e.exit_code)
        if typer is not None and isinstance(e, typer.Abort):
            _console(True).print("aborted")
            sys.exit(130)
        # click's own errors (typer may ship its own click) carry an exit code: a usage error is one line
        # naming what is wrong and where the help is; "no arguments" shows the help
        code = getattr(e, "exit_code", None)
        if isinstance(code, int) and hasattr(e, "show"):
            if hasattr(e, "format_message") and type(e).__name__ != "NoArgsIsHelpError":
                ctx = getattr(e, "ctx", None)
                where = getattr(ctx, "command_path", None) or "asl-terrain"
                _console(True).print(f"[bold red]error:[/] {escape(e.format_message())} (see '{where} --help')",
                                  soft_wrap=True)
            else:
                e.show()
            sys.exit(code)
        if isinstance(code, int) and type(e).__name__ == "Exit":
            sys.exit(code)
        if State.debug:
            raise
        _console(True).print(f"[bold red]internal error:[/] {type(e).__name__}: {escape(str(e))}\n"
                          "This is a bug in asl-terrain; please report it with the command line and the map. "
                          "Run with --debug for the traceback.")
        sys.exit(3)
