"""The typer side of the command line: the app (every command registered on it), its root options and the
options several commands share. Imported when a command line needs typer (cli.__getattr__): a plain
``los``/``move`` question is answered without it (cli.quick; start-up, issue 13).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import typer

from . import _MODULES, State, WhatIf, _import_commands, _name_of


class _LazyTyper(typer.Typer):
    """A Typer whose command list imports every command module when it is first read, unless
    :func:`main` is running one command whose module it imported itself: then the list holds that one
    command, so typer inspects one signature, not every command's (start-up, issue 13)."""

    _narrowed = False
    _only: str | None = None
    _all_loaded = False

    @property
    def registered_commands(self) -> list[Any]:
        if self._only is not None:  # a copy: nothing registers while it is set
            return [c for c in self._commands if _name_of(c) == self._only] or self._commands
        if not (self._narrowed or self._all_loaded):
            self._all_loaded = True
            for name in _MODULES:
                _import_commands(name)
        return self._commands

    @registered_commands.setter
    def registered_commands(self, value: list[Any]) -> None:
        self._commands = value

    def command(self, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
        # a module imported while one command runs (cli.core by check_output) registers into the real list
        register = super().command(*args, **kwargs)

        def registered(f: Any) -> Any:
            only, self._only = self._only, None
            try:
                return register(f)
            finally:
                self._only = only

        return registered


app: _LazyTyper = _LazyTyper(
    name="asl-terrain",
    help="ASL terrain rulings that cite the rule: movement, LOS, TEM, set-up. "
         "Every command works on the bundled demo map when no MAP is given.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks of internal errors."),
    chart: Optional[Path] = typer.Option(None, "--chart", help="A terrain chart TOML merged over the "
                                         "bundled one (see `asl-terrain chart`)."),
) -> None:
    State.debug = debug
    State.chart_path = str(chart) if chart else None


# "what if" counters and SSR switches on los, viewshed, reach, tem and move (issue 12): one set of options,
# given to a command by @what_if_options and passed to it as one WhatIf value
_WHAT_IF_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("smoke", typer.Option(None, "--smoke", metavar="HEX", help="Add a SMOKE counter in HEX (A24; repeatable).")),
    ("wreck", typer.Option(None, "--wreck", metavar="HEX", help="Add a wreck in HEX (A6.8; repeatable).")),
    ("vehicle", typer.Option(None, "--vehicle", metavar="HEX", help="Add a vehicle in HEX (A6.8; repeatable).")),
    ("rubble", typer.Option(None, "--rubble", metavar="HEX", help="Add a Rubble counter in HEX (B24; repeatable).")),
    ("ssr", typer.Option(None, "--ssr", metavar="SWITCH", help="Put an SSR terrain switch in force, e.g. "
                         "woods-as-brush, no-roads, orchards-out-of-season (repeatable; see docs).")),
)
# the options of the picture a command draws with -o
SIZE_OPT: Any = typer.Option(36.0, min=4.0, max=200.0, help="Hex size in pixels for -o.")
FORCE_OPT: Any = typer.Option(False, "--force", help="Replace the -o file if it exists.")


def what_if_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give ``command`` (which takes ``what_if: WhatIf``) the what-if options, as typer reads options: from
    the signature, here the command's own parameters followed by the five options."""
    sig = inspect.signature(command, eval_str=True)
    own = [p for p in sig.parameters.values() if p.name != "what_if"]
    extra = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=opt, annotation=Optional[list[str]])
             for name, opt in _WHAT_IF_OPTIONS]

    @functools.wraps(command)
    def with_what_if(**kwargs: Any) -> None:
        given = {name: tuple(kwargs.pop(name, None) or ()) for name, _ in _WHAT_IF_OPTIONS}
        command(what_if=WhatIf(**given), **kwargs)

    params = own + extra
    with_what_if.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    with_what_if.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
    return with_what_if
