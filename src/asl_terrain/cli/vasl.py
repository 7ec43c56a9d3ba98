"""VASL subcommands: ``import-vasl ARCHIVE... -o MAP.toml`` and ``vasl-check MAP ORACLE [--out DIR]``.

``import-vasl`` turns VASL board archives (one board, or several in a ``--layout``) into a map file whose
``[depiction]`` names the archives, so that LOS follows the boards' artwork (A6.1); what the map format
cannot carry is listed on stderr and in a comment block at the top of the file.

``vasl-check`` prints the cross-check of the LOS engine against a VASL oracle file
(:mod:`asl_terrain.crosscheck`: the blocked/clear agreement with VASL, overall, on the pairs VASL sees as
clear and per VASL reason) and writes the disagreements grouped by cause, each cause with the rule that
decides it and an example picture of the thread on the board (``--out DIR``).

The board reading is :mod:`asl_terrain.vasl`'s and the cross-check :mod:`asl_terrain.crosscheck`'s; both are
imported when a command runs (a CLI start imports neither).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer
from rich.table import Table

from ..chart import Chart
from ..errors import UserError
from ..model import Map
from . import app, console, err_console, get_chart

if TYPE_CHECKING:
    from .. import vasl
    from ..crosscheck import CrossCheck

# ------------------------------------------------------------------------------------------- import


def _archive_ref(arg: str, out_dir: Path) -> str:
    """How the map file names an archive given on the command line: a bare archive name stays a name
    (looked up in the VASL data directory); a path is written relative to the map file."""
    p = Path(arg)
    if os.sep not in arg and "/" not in arg and not p.exists():
        return arg
    try:
        return os.path.relpath(p.resolve(), out_dir.resolve())
    except ValueError:  # another drive (Windows)
        return str(p.resolve())


def map_toml(data: dict[str, Any], notes: Sequence[str]) -> str:
    """The map as TOML text (written by tomli-w), with ``notes`` as a comment block at the top."""
    import tomli_w

    head = "".join(f"# {line}\n" for line in notes)
    return head + ("\n" if head else "") + tomli_w.dumps(data)


@app.command("import-vasl")
def import_vasl(
    archives: list[str] = typer.Argument(None, metavar="ARCHIVE...", help="VASL board archives: paths, or archive "
                                         "names (bd01) looked up as --boards says; or a VASL saved game "
                                         "(GAME.vsav): its layout, flips, SSRs and counters (also as "
                                         "--layout GAME.vsav)."),
    output: Path = typer.Option(..., "-o", "--output", help="The map file to write (TOML)."),
    terrain_table: Optional[Path] = typer.Option(None, "--terrain-table", help="VASL's SharedBoardMetadata.xml "
                                                 "(default: the VASL data directory's)."),
    layout: Optional[str] = typer.Option(None, "--layout", help='Rows of boards, e.g. "bd01,bd02;bd03,bd04" (left '
                                         "to right, rows top to bottom); default: side by side."),
    name: Optional[str] = typer.Option(None, "--name", help="The map's name."),
    force: bool = typer.Option(False, "--force", help="Replace the -o file if it exists (never an input)."),
    overlay: list[str] = typer.Option([], "--overlay", help='A VASL overlay laid on a board as VASL places it: '
                                      '"ovr1 F5 F4" (its origin on F5, turned as F4 lies from F5), or '
                                      '"bd01:ovr1 F5 F4" to name the board; repeatable.'),
    boards: Optional[Path] = typer.Option(None, "--boards", help="The folder holding the board archives (else "
                                          "$ASL_TERRAIN_VASL, then VASL's boards folder, ~/VASL/boards)."),
) -> None:
    """Import VASL boards, or a VASL saved game, as a map: Base Levels, hex and hexside terrain, slopes,
    and the artwork as the hexes' depiction for LOS (A6.1); from a save also its layout (boards rotated
    180° where VASL turned them), the terrain SSRs it records and its counters and units. Lists what
    the map format cannot carry.

    Examples:
    asl-terrain import-vasl bd01 -o bd01.toml                       (one board)
    asl-terrain import-vasl bd01 bd02 --layout "bd01;bd02" -o two.toml   (bd02 below bd01)
    asl-terrain import-vasl bdST -o st.toml                          (a KGP map, read from its artwork)
    asl-terrain import-vasl bd01 --overlay "ovr1 F5 F4" -o o.toml    (overlay 1 laid on board 1)
    asl-terrain import-vasl bd02 bd04 --layout "bd02;rbd04" -o t.toml   (bd04 turned 180°, VASL's r04)
    asl-terrain import-vasl "Hill 621 (Scenario E).vsav" -o hill.toml   (a saved game; --boards DIR: its boards)
    """
    from .. import vasl

    if output.suffix.lower() != ".toml":
        raise UserError(f"-o {output}: expected a map file ending in .toml")
    from .core import check_new_file, write_new_file

    archives = list(archives or [])
    if not archives and not (layout or "").lower().endswith(".vsav"):
        raise UserError("expected board archives (bd01 ...) or a VASL saved game (GAME.vsav, or --layout GAME.vsav)")
    # every file the command reads is never written over (an overlay's archive among its words)
    inputs = [*archives, layout if (layout or "").lower().endswith(".vsav") else None, terrain_table, *(w for text in overlay for w in text.replace(":", " ").split())]
    check_new_file(output, "-o", force, inputs)
    start = time.perf_counter()
    save = next((a for a in archives if a.lower().endswith(".vsav")), None)
    if save is None and layout is not None and layout.lower().endswith(".vsav"):
        save = layout  # a save gives the layout
    if save is not None:
        _import_save(save, output, boards, name, force, inputs, start)
        return
    from .progress import progress

    table = vasl.load_terrain_table(terrain_table) if terrain_table else vasl.load_terrain_table()
    out_dir = output.parent if str(output.parent) else Path(".")
    # a bar on a terminal's stderr: each board read, the boards derived, the map checked, the file written
    with progress("import-vasl", len(archives) + 3, "steps") as update:
        read = []
        for a in archives:
            read.append(vasl.read_board(vasl.find_board(a, boards) if boards is not None and not Path(a).exists()
                                        else a))
            update(len(read))
        if overlay:
            read = _with_overlays(read, archives, overlay, out_dir, table)
        refs = {b.archive_name: _archive_ref(a, out_dir) for a, b in zip(archives, read)}
        table_ref = _archive_ref(str(terrain_table), out_dir) if terrain_table else None
        result = vasl.import_boards(read, table, layout=layout, name=name, archive_refs=refs,
                                    terrain_table_ref=table_ref)
        update(len(read) + 1)
        Map.from_data(result.map, source=str(output))  # what we write must load
        update(len(read) + 2)
        write_new_file(output, map_toml(result.map, _import_notes(read, result)).encode("utf-8"), "-o", force,
                       inputs)
        update(len(read) + 3)
    for line in result.unsupported:
        err_console.print(f"not carried: {line}", soft_wrap=True)
    placed = ", ".join(f"{b.archive_name} (prefix {p or '-'}, column {dc}, row {dr})"
                       for b, dc, dr, p in result.placements)
    n = len(result.unsupported)
    console.print(f"wrote {output}: {placed}; {n} kind{'' if n == 1 else 's'} of feature not carried "
                  f"({time.perf_counter() - start:.2f} s)")


def _with_overlays(read: list[vasl.BoardArchive], archives: Sequence[str], overlay: Sequence[str], out_dir: Path,
                   table: vasl.TerrainTable) -> list[vasl.BoardArchive]:
    """The boards with the ``--overlay`` placements laid on them (``"ovr1 F5 F4"`` on the first board,
    ``"bd01:ovr1 F5 F4"`` on the board named), each overlay's archive named relative to the map file."""
    from ..overlays import lay_overlays, parse_placement

    laid: dict[int, list[str]] = {}
    for text in overlay:
        board_name, sep, rest = text.partition(":")
        if not sep:
            board_name, rest = read[0].archive_name, text
        which = [i for i, b in enumerate(read) if board_name in (b.archive_name, archives[i])]
        if not which:
            raise UserError(f"--overlay {text!r}: no board {board_name!r} among "
                            f"{', '.join(b.archive_name for b in read)}")
        place = parse_placement(rest)
        ref = _archive_ref(place.archive, out_dir)
        laid.setdefault(which[0], []).append(f"{ref} {place.hex1} {place.hex2}")
    return [lay_overlays(b, laid.get(i, []), str(out_dir), table) for i, b in enumerate(read)]


def _import_notes(read: Sequence[vasl.BoardArchive], result: vasl.BoardImport) -> list[str]:
    """The map file's comment block: where it came from, what was not carried, what the artwork added."""
    notes = [f"Imported from VASL board archive{'s' if len(read) > 1 else ''} "
             f"{', '.join(b.archive_name for b in read)} by asl-terrain import-vasl."]
    if result.unsupported:
        notes.append("Not carried (the map format cannot express these; they are left out):")
        notes.extend(f"  - {line}" for line in result.unsupported)
    else:
        notes.append("Everything on the boards was carried.")
    if result.annotations:
        notes.append("Read from the artwork and the map's annotation file (what the colours alone do not give):")
        notes.extend(f"  - {line}" for line in result.annotations)
    return notes


def _import_save(save: str, output: Path, boards: Path | None, name: str | None, force: bool,
                 inputs: Sequence[object], start: float) -> None:
    """``import-vasl GAME.vsav``: the saved game's layout, SSRs, counters and units as a map file."""
    from .. import vsav
    from .core import write_new_file

    r = vsav.import_save(save, boards_dir=boards, name=name, chart=get_chart())
    Map.from_data(r.map, source=str(output))  # what we write must load
    layout = "; ".join(", ".join(("r" if b.flipped else "") + b.name for b in row) for row in r.game.layout)
    notes = [f"Imported from VASL saved game {Path(save).name} by asl-terrain import-vasl.",
             f"Boards (rows top to bottom; r = turned 180°): {layout}. Board archives are named, not pathed: they "
             "are found through $ASL_TERRAIN_VASL or VASL's boards folder wherever this file is copied."]
    cond = r.map.get("conditions")
    if isinstance(cond, dict) and cond.get("ssr"):
        from ..ssr import describe

        notes.append("SSR terrain switches applied ([conditions] ssr):")
        notes.extend(f"  - {line}" for line in describe(cond["ssr"]))
    on = [p for p in r.placed if p.entry is not None and "at" in p.entry]
    notes.append(f"On the map: {len(on)} counters and units, each in its hex.")
    off = r.offmap_by_side()
    if off:
        notes.append("Off the map (waiting to enter), by side ([[unit]] entries without 'at'):")
        notes.extend(f"  - {side}: {len(names)}: {', '.join(names)}" for side, names in sorted(off.items()))
    if r.unsupported:
        notes.append("Not carried:")
        notes.extend(f"  - {line}" for line in r.unsupported)
    write_new_file(output, map_toml(r.map, notes).encode("utf-8"), "-o", force, inputs)
    for line in r.unsupported:
        err_console.print(f"not carried: {line}", soft_wrap=True)
    n_off = sum(len(v) for v in off.values())
    console.print(f"wrote {output}: boards {layout}; {len(on)} pieces on the map, {n_off} off it "
                  f"({time.perf_counter() - start:.2f} s)")


def __getattr__(name: str) -> Any:
    # the cross-check engine lived here before it moved to asl_terrain.crosscheck: its names still resolve
    if name in ("CAUSES", "Cause", "CrossCheck", "Group", "_VERDICTS", "board_picture", "classify", "cross_check",
                "example_svg"):
        from .. import crosscheck

        return getattr(crosscheck, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------------------------------- cross-check


def write_report(m: Map, res: CrossCheck, out: Path, chart: Chart | None = None, pictures: bool = True,
                 force: bool = False, inputs: list[Any] | None = None) -> None:
    """``summary.json``, ``summary.md`` and one example picture per disagreement group, in ``out``; an
    existing file there is kept unless ``force``, an input never written over."""
    from ..crosscheck import report_files
    from .core import check_new_file, write_new_file

    for fixed in ("summary.json", "summary.md"):
        if out.is_dir():
            check_new_file(out / fixed, "--out", force, inputs or [])
    out.mkdir(parents=True, exist_ok=True)
    for name, data in report_files(m, res, chart, pictures):
        write_new_file(out / name, data, "--out", force, inputs or [])


@app.command("vasl-check")
def vasl_check(
    map_file: Path = typer.Argument(..., metavar="MAP", help="A map imported with import-vasl."),
    oracle: str = typer.Argument(..., metavar="ORACLE", help="VASL's oracle file BOARD.los.gz (or a board name, "
                                 "e.g. bd01, in the VASL data directory)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write summary.json, summary.md and example pictures "
                                       "here."),
    pictures: bool = typer.Option(True, "--pictures/--no-pictures", help="Draw one example per group."),
    force: bool = typer.Option(False, "--force", help="Replace files of an earlier report in --out."),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, help="Worker processes ruling the pairs (0: every core), "
                             "where the system forks; the figures are the same."),
) -> None:
    """Compare the LOS engine with VASL's answers on every pair of an oracle file (blocked/clear).

    Example:
    asl-terrain import-vasl bd01 -o bd01.toml --force   (--force: replace an earlier import)
    asl-terrain vasl-check bd01.toml bd01 --out check/   (check/summary.md: each disagreement with its rule)
    """
    if out is not None and out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: expected a directory, and this is a file")
    if out is not None and out.is_dir() and not force:
        from .core import check_new_file

        for fixed in ("summary.json", "summary.md"):
            check_new_file(out / fixed, "--out", force, [map_file, oracle])
    from ..crosscheck import _VERDICTS, CAUSES, cross_check
    from .progress import progress

    m = Map.load(map_file)
    chart = get_chart()
    with progress(f"vasl-check {oracle}", 0, "pairs") as update:
        res = cross_check(m, oracle, chart, jobs=jobs or os.cpu_count() or 1, progress=update)
    console.print(f"[bold]{res.board}[/]: {res.pairs} pairs ({res.skipped_error} VASL ERROR and "
                  f"{res.skipped_same} same-hex pairs left out), {res.seconds:.1f} s")
    console.print(f"agreement: [bold]{100 * res.agreement:.2f} %[/]; on the {res.vasl_clear} pairs VASL sees as "
                  f"clear: [bold]{100 * res.clear_agreement:.2f} %[/]")
    t = Table(header_style="bold")
    t.add_column("VASL reason")
    t.add_column("pairs", justify="right")
    t.add_column("agreement", justify="right")
    for reason, (n, a) in sorted(res.per_reason.items(), key=lambda kv: -kv[1][0]):
        t.add_row(reason, str(n), f"{100 * a / n:.2f} %")
    console.print(t)
    verdicts = res.per_verdict()
    console.print(f"disagreements where asl-terrain is wrong: [bold]{verdicts['asl-terrain wrong']}[/]; "
                  f"unexplained: [bold]{verdicts['unexplained']}[/]")
    if res.groups:
        t = Table(title="disagreements by cause", header_style="bold")
        for col in ("cause", "rule", "by the rule", "pairs"):
            t.add_column(col)
        for key, n in res.per_cause().most_common():
            c = CAUSES[key]
            t.add_row(c.title, c.rule, _VERDICTS[c.verdict], str(n))
        console.print(t)
    if out is not None:
        write_report(m, res, out, chart, pictures, force, [map_file, oracle])
        console.print(f"wrote {out / 'summary.md'}, {out / 'summary.json'}")
