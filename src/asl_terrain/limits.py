"""The stated limits of asl-terrain (README "Limits") and the guard every file boundary runs before decoding.

A file over a limit is refused with one clear line naming the limit, never a hang, a memory blow-up or a
RecursionError / int-conversion ValueError from deep inside a parser.

Imports: errors only.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .errors import UserError

#: map size: columns, rows and hexes of one map (the largest VASL multi-board maps fit)
MAX_COLUMNS = 200
MAX_ROWS = 200
MAX_HEXES = 40_000
#: the highest row number
MAX_ROW_NUMBER = 9_999
#: Base Level (hill level) of a hex, and building levels above it
MIN_LEVEL = -10
MAX_LEVEL = 50
#: characters of a map's name, of a building_id or board archive name, and of a hex/Location name
MAX_MAP_NAME = 200
MAX_ID = 100
MAX_LOCATION_NAME = 80
MAX_HEX_NAME = 24
#: a movement allowance (MF/MP) in a query or on the command line
MAX_ALLOWANCE = 1000
#: pixels of a PNG picture (width x height)
MAX_PNG_PIXELS = 50_000_000
#: queries in one ``ask`` batch
MAX_BATCH = 10_000
#: bytes of a map, query or chart file
MAX_FILE_BYTES = 20_000_000
#: nesting of tables/lists/objects in a map, query or chart file
MAX_DEPTH = 32
#: digits of one number (an integer or a hex row) anywhere in a file
MAX_DIGITS = 30

# strings and comments are taken out before brackets are counted ('#' starts a TOML comment; JSON has none
# outside strings)
_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*')
_BRACKETS = re.compile(r"[\[\]{}]")
_LONG_NUMBER = re.compile(r"\d{%d,}" % (MAX_DIGITS + 1))


def guard_text(text: str, where: str, error: Callable[[str], UserError]) -> None:
    """Refuse a decoded file over the nesting or number-length limits before a parser sees it.

    ``error`` builds the exception to raise from a message (it already names ``where``).
    """
    m = _LONG_NUMBER.search(text)
    if m is not None:
        line = text.count("\n", 0, m.start()) + 1
        raise error(f"{where}: line {line}: a number of {m.end() - m.start()} digits; numbers (and hex rows) "
                    f"are limited to {MAX_DIGITS} digits")
    depth = deepest = 0
    for b in _BRACKETS.findall(_QUOTED.sub("", text)):
        depth += 1 if b in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > MAX_DEPTH:
                raise error(f"{where}: nested more than {MAX_DEPTH} levels deep (tables, lists or objects); "
                            f"the limit is {MAX_DEPTH}")


def decode_bytes(raw: bytes, where: str, what: str, error: Callable[[str], UserError]) -> str:
    """UTF-8 text of a file (a byte-order mark dropped), guarded; anything else is ``error``."""
    if len(raw) > MAX_FILE_BYTES:
        raise error(f"{where}: the {what} is {len(raw):,} bytes; the limit is {MAX_FILE_BYTES:,}")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        hint = " (it looks like UTF-16)" if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise error(f"{where}: the {what} is not UTF-8 text{hint}; expected a UTF-8 text file") from None
    if "\x00" in text:
        raise error(f"{where}: the {what} holds NUL bytes (a binary file?); expected a UTF-8 text file")
    guard_text(text, where, error)
    return text
