"""Core subcommands: render, ask, schema, chart, check."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from . import State, app, board_image, check_output, console, get_chart, load_map, save_picture


@app.command()
def render(
    map_file: Optional[Path] = typer.Argument(None, metavar="[MAP]", help="Map file (default: the demo map)."),
    output: Path = typer.Option(Path("map.svg"), "-o", "--output", help="Output file: .svg or .png."),
    size: float = typer.Option(36.0, help="Hex size in pixels (centre to vertex)."),
) -> None:
    """Draw a map as SVG or PNG, as an ASL player draws it: terrain, hexside features, counters, hex names.

    Example:
    asl-terrain render -o demo.png            (the bundled demo map)
    """
    from ..render import map_svg

    check_output(output)
    m = load_map(str(map_file) if map_file else None)
    save_picture(map_svg(m, size=size, board_image=board_image(m)), output)
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

    Exit status: 0 every query answered, 1 some answer is an error, 2 the map or query file cannot be read.
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
    answers, status = answer_all(m, queries, get_chart(), debug=State.debug)
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
    m = load_map(str(map_file) if map_file else None)
    n_hexsides = len(m._written_hexsides)
    console.print(f"{m.source}: map {m.name!r}, prefix {m.prefix!r}, {m.grid.describe()}, {len(m)} hexes, "
                  f"{n_hexsides} hexsides written, {len(m.counters)} counters: OK")
