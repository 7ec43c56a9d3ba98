"""The VASL LOS oracle files: what VASL's own LOS engine answered on each board (``BOARD.los.gz``, one line
per ordered pair of hexes) and how it read each hex (``BOARD.hexes.tsv``)."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from asl_terrain.errors import MapError
from asl_terrain.grid import Hex as GridHex

from .archive import BoardArchive
from .data import _require_data_dir
from .geometry import _parse_hex



class OracleLine(NamedTuple):
    """One line of ``BOARD.los.gz``: VASL's LOS verdict between two hex centres at ground level."""

    from_hex: str
    to_hex: str
    blocked: bool | None  # None where VASL crashed (ERROR): no answer
    hindrance: int  # VASL's summed hindrance; 0 on ERROR lines
    range: int  # ASL range; computed from the hex names on ERROR lines
    reason: str  # VASL's text, underscores turned back into spaces; the error text on ERROR lines


class OracleHex(NamedTuple):
    """One line of ``BOARD.hexes.tsv``: how VASL reads a hex."""

    name: str
    column: int
    row_index: int  # VASL's row index within the column (A1 is 0, B0 is 0)
    centre: tuple[int, int]
    base_level: int
    terrain: str
    hexsides: tuple[str | None, ...]  # N, NE, SE, S, SW, NW; None for none


def _oracle_file(board: str | Path | BoardArchive, suffix: str, oracle_dir: str | Path | None) -> Path:
    if isinstance(board, BoardArchive):
        stem = board.archive_name
    else:
        p = Path(board)
        if p.name.endswith(suffix) and p.exists():
            return p
        stem = p.name
    directory = Path(oracle_dir) if oracle_dir is not None else _require_data_dir("the oracle") / "oracle"
    file = directory / f"{stem}{suffix}"
    if not file.exists():
        raise MapError(f"{file}: no such oracle file", source=str(file))
    return file


#: the hindrances and ranges a board's file writes, read by look-up (int() is most of a line's reading)
_SMALL_INTS = {str(i): i for i in range(100)}


def read_oracle(board: str | Path | BoardArchive, oracle_dir: str | Path | None = None) -> Iterator[OracleLine]:
    """Iterate over ``BOARD.los.gz``: one :class:`OracleLine` per ordered pair of hexes.

    :param board: a board archive name (``"bd01"``), a :class:`BoardArchive`, or the ``.los.gz`` file.
    :param oracle_dir: where the oracle files are; by default ``oracle/`` in :func:`vasl_data_dir`.
    """
    file = _oracle_file(board, ".los.gz", oracle_dir)
    with gzip.open(file, "rb") as f:
        text = f.read().decode("utf-8")
    if "\r" in text:  # the newlines a text-mode read translates
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    # a board's file has about 120,000 lines and a handful of distinct reasons: each reason's text is
    # cleaned once (reading is then a small part of a vasl-check, issue 13)
    reasons: dict[str, str] = {}
    ints = _SMALL_INTS
    new = tuple.__new__  # OracleLine's fields without its Python-level __new__
    for number, line in enumerate(text.split("\n"), 1):
        if not line:
            continue
        rest = line.split(" ", 5)
        if len(rest) < 3:
            raise MapError(f"{file}:{number}: expected FROM TO BLOCKED HINDRANCE RANGE REASON, got {line!r}")
        src, dst, verdict = rest[0], rest[1], rest[2]
        if verdict == "ERROR":
            a, b = _parse_hex(src), _parse_hex(dst)
            parts = line.split(" ", 3)
            yield OracleLine(src, dst, None, 0, GridHex(*a).distance(GridHex(*b)), parts[3] if len(parts) > 3 else "")
            continue
        if len(rest) < 5 or verdict not in ("true", "false"):
            raise MapError(f"{file}:{number}: expected FROM TO BLOCKED HINDRANCE RANGE REASON, got {line!r}")
        hindrance, rng = ints.get(rest[3]), ints.get(rest[4])
        if hindrance is None or rng is None:
            try:
                hindrance, rng = int(rest[3]), int(rest[4])
            except ValueError:
                raise MapError(f"{file}:{number}: HINDRANCE and RANGE must be integers: {line!r}") from None
        if len(rest) > 5:
            raw = rest[5]
            reason = reasons.get(raw)
            if reason is None:
                reason = reasons[raw] = raw.replace("_", " ").strip()
        else:
            reason = ""
        yield new(OracleLine, (src, dst, verdict == "true", hindrance, rng, reason))


def read_oracle_hexes(board: str | Path | BoardArchive, oracle_dir: str | Path | None = None) -> list[OracleHex]:
    """Read ``BOARD.hexes.tsv``: how VASL reads each hex (base level, centre terrain, six hexsides)."""
    file = _oracle_file(board, ".hexes.tsv", oracle_dir)
    out: list[OracleHex] = []
    with open(file, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.rstrip("\n").split("\t")
            if fields == [""]:
                continue
            if len(fields) != 12:
                raise MapError(f"{file}:{number}: expected 12 tab-separated fields, got {len(fields)}")
            try:
                x, y = (int(v) for v in fields[3].split(","))
                out.append(
                    OracleHex(
                        name=fields[0],
                        column=int(fields[1]),
                        row_index=int(fields[2]),
                        centre=(x, y),
                        base_level=int(fields[4]),
                        terrain=fields[5],
                        hexsides=tuple(None if v == "-" else v for v in fields[6:12]),
                    )
                )
            except ValueError:
                raise MapError(f"{file}:{number}: malformed line {line.rstrip()!r}") from None
    return out
