"""Core subcommands: render, ask, schema, chart, check."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from ..errors import UserError
from . import State, app, board_image, check_output, console, get_chart, load_map, save_picture


def _inputs(inputs: Iterable[Any]) -> list[Path]:
    paths = [Path(str(x)) for x in inputs if x]
    if State.chart_path:
        paths.append(Path(State.chart_path))
    return paths


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def check_new_file(path: Path, option: str, force: bool, inputs: Iterable[Any] = ()) -> None:
    """Refuse to write ``path`` before any work is done: its directory must exist; it must not be one of the
    command's ``inputs`` (the map, archives, the chart: never, even with ``--force``); an existing file is
    refused unless ``force``."""
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UserError(f"{option} {path}: no such directory {parent}")
    for p in _inputs(inputs):
        if _same_file(path, p):
            raise UserError(f"{option} {path}: this is one of the command's input files ({p}); it is never "
                            "written over: choose another output file")
    if path.is_dir():
        raise UserError(f"{option} {path}: this is a directory; expected a file name")
    if path.exists() and not force:
        raise UserError(f"{option} {path}: the file exists; pass --force to replace it")


def write_new_file(path: Path, data: bytes, option: str, force: bool, inputs: Iterable[Any] = ()) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same directory, flushed, then renamed
    over ``path``, so an interrupted command leaves any old file whole. Checks :func:`check_new_file` again
    just before the rename (the file may have appeared while the command worked)."""
    check_new_file(path, option, force, inputs)
    parent = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        check_new_file(path, option, force, inputs)
        os.replace(tmp, path)
    except OSError as e:
        raise UserError(f"{option} {path}: cannot write the file ({e.strerror or e})") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@app.command()
def render(
    map_file: Optional[Path] = typer.Argument(None, metavar="[MAP]", help="Map file (default: the demo map)."),
    output: Path = typer.Option(Path("map.svg"), "-o", "--output", help="Output file: .svg or .png."),
    size: float = typer.Option(36.0, min=4.0, max=200.0, help="Hex size in pixels (centre to vertex)."),
    force: bool = typer.Option(False, "--force", help="Replace the output file if it exists."),
) -> None:
    """Draw a map as SVG or PNG, as an ASL player draws it: terrain, hexside features, counters, hex names.
    An existing output file is kept unless --force; the map file itself is never written over.

    Example:
    asl-terrain render -o demo.png            (the bundled demo map)
    """
    from ..render import map_svg

    check_output(output, force, [map_file])
    m = load_map(str(map_file) if map_file else None)
    save_picture(map_svg(m, size=size, board_image=board_image(m)), output, force, [map_file])
    console.print(f"wrote {output} ({m.name}: {len(m)} hexes)")


@app.command()
def ask(
    args: list[str] = typer.Argument(..., metavar="[MAP] QUERIES",
                                     help="Map file (default: the demo map) and a JSON query file, or - for stdin."),
    indent: Optional[int] = typer.Option(2, help="JSON indent (0 for one line)."),
) -> None:
    """Answer a JSON list of queries (the batch contract, ../shared/docs/queries.md); prints a JSON list of
    answers, one per query, in order.

    Examples:
    asl-terrain ask examples/demo-queries.json > answers.json
    echo '[{"kind": "los", "from": "W2", "to": "W6"}]' | asl-terrain ask -

    Exit status: 0 every query answered, 1 some answer is an error, 2 the map or query file cannot be read,
    3 some answer is an internal error (a bug).
    """
    from ..ask import answer_all, read_queries
    from ..errors import UserError

    if len(args) == 1:
        map_path, qpath = None, args[0]
    elif len(args) == 2:
        map_path, qpath = args
    else:
        raise UserError(f"expected [MAP] QUERIES, got {len(args)} arguments")
    m = load_map(map_path)
    queries = read_queries(qpath)
    from .progress import progress

    with progress("ask", len(queries), "queries") as update:  # a bar on a terminal's stderr, never in the JSON
        answers, status = answer_all(m, queries, get_chart(), debug=State.debug, progress=update)
    sys.stdout.write(json.dumps(answers, indent=indent or None, ensure_ascii=False) + "\n")
    raise typer.Exit(status)


@app.command()
def schema() -> None:
    """Print the JSON Schema of the map file format (asl-terrain/1).

    Example:
    asl-terrain schema > map.schema.json
    """
    from ..mapfile import json_schema

    sys.stdout.write(json.dumps(json_schema(), indent=2) + "\n")


@app.command()
def chart(
    uncertain: bool = typer.Option(False, "--uncertain", help="Only the [U] values."),
) -> None:
    """List the terrain chart: every value with its rule and confidence tag (S/V/R/U).

    Examples:
    asl-terrain chart --uncertain             (the values that are only proposals)
    asl-terrain --chart mine.toml chart       (a corrected copy of the chart)
    """
    c = get_chart()
    t = Table(title=f"terrain chart ({c.source})", header_style="bold")
    for col in ("where", "value", "rule", "tag"):
        t.add_column(col)
    for where, value, rule, tag in c.all_values():
        if uncertain and tag != "U":
            continue
        t.add_row(where, value, rule, tag)
    console.print(t)


@app.command()
def check(
    map_file: Optional[Path] = typer.Argument(None, metavar="[MAP]", help="Map file (default: the demo map)."),
) -> None:
    """Load a map file and report what it holds (or every problem in it).

    Example:
    asl-terrain check mymap.toml
    """
    from rich.markup import escape

    from ..mapfile import map_warnings, read_map_document
    if map_file is not None and map_file.suffix.lower() == ".vsav":  # a saved game: the map it imports as
        from .. import vsav
        from ..model import Map

        document = vsav.import_save(map_file, chart=get_chart()).map
        m = Map.from_data(document, source=str(map_file))
    else:
        m = load_map(str(map_file) if map_file else None)
        document = read_map_document(m.source)
    warnings = map_warnings(document, m.source)
    for w in warnings:
        console.print(f"[bold yellow]warning:[/] {escape(w)}", soft_wrap=True)
    n_hexsides = len(m._written_hexsides)
    for line in m.not_carried:  # what import-vasl could not carry (the file's not_carried)
        console.print(f"[bold yellow]not carried from the boards:[/] {escape(line)}", soft_wrap=True)
    console.print(f"{escape(m.source)}: map {escape(repr(m.name))}, prefix {m.prefix!r}, {m.grid.describe()}, "
                  f"{len(m)} hexes, {n_hexsides} hexsides written, {len(m.counters)} counters: OK"
                  + (f" ({len(warnings)} warning{'s' if len(warnings) != 1 else ''})" if warnings else ""))
