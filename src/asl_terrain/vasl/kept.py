"""Arrays kept in the user's cache (:mod:`asl_terrain.cache`) and read back by mapping the file: a map's
combined artwork raster and its pixel ids are megabytes, of which one LOS reads a few pages (start-up,
issue 13).

An entry is one file: a magic line, the length of a JSON header, the header (plain values, and each array's
dtype, shape, offset and CRC-32), then each array at a page boundary. A missing, short or damaged entry (any
array whose bytes fail their CRC) reads as None (the caller derives it again); a write that fails is ignored. Entries are replaced atomically
(:func:`asl_terrain.cache.write`), so a mapping never sees a file change under it.
"""

from __future__ import annotations

import json
import mmap
import os
import zlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from asl_terrain import cache

_MAGIC = b"asl-terrain arrays 2\n"  # 2: each array with its CRC-32
_PAGE = 4096
_SUFFIX = ".arrays"


def read(kind: str, k: str) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
    """The header and the arrays (read-only, backed by the mapped file) kept for ``k``, or None."""
    root = cache.cache_dir()
    if root is None:
        return None
    path = root / kind / f"{k}{_SUFFIX}"
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < len(_MAGIC) + 8:
                return None
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    try:
        os.utime(path)  # read now: the last to go when the kind's entries are trimmed
    except (OSError, TypeError, NotImplementedError):
        pass  # a cache it may not write to: read all the same
    try:
        n = len(_MAGIC)
        if mapped[:n] != _MAGIC:
            return None
        length = int.from_bytes(mapped[n:n + 8], "little")
        head = json.loads(mapped[n + 8:n + 8 + length])
        arrays = {}
        for name, (dtype, shape, offset, crc) in head.pop("arrays").items():
            dt = np.dtype(dtype)
            count = int(np.prod(shape, dtype=np.int64))
            end = offset + count * dt.itemsize
            if offset % _PAGE or end > size:
                return None
            # every byte is checked (a few ms for a 3-board layout): a damaged raster would change rulings
            if zlib.crc32(memoryview(mapped)[offset:end]) != crc:
                return None
            arrays[name] = np.frombuffer(mapped, dtype=dt, count=count, offset=offset).reshape(shape)
        return head, arrays
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None


def write(kind: str, k: str, head: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
    """Keep ``arrays`` (C-contiguous after conversion) with the JSON-able ``head`` for ``k``."""
    root = cache.cache_dir()
    if root is None:
        return
    layout: dict[str, Any] = {}
    blobs = []
    for name, a in arrays.items():
        blob = np.ascontiguousarray(a).tobytes()
        layout[name] = (a.dtype.str, list(a.shape), 0, zlib.crc32(blob))
        blobs.append(blob)
    # the header's length depends on the offsets it holds: room for them is made by a first pass
    text = json.dumps({**head, "arrays": {n: (d, s, 10**15, c) for n, (d, s, _, c) in layout.items()}})
    offset = -(-(len(_MAGIC) + 8 + len(text)) // _PAGE) * _PAGE
    for (name, (dt, shape, _, crc)), blob in zip(layout.items(), blobs):
        layout[name] = (dt, shape, offset, crc)
        offset += -(-len(blob) // _PAGE) * _PAGE
    body = json.dumps({**head, "arrays": layout}).encode()
    parts = [_MAGIC, len(body).to_bytes(8, "little"), body]
    at = len(_MAGIC) + 8 + len(body)
    for (_, _, off, _), blob in zip(layout.values(), blobs):
        parts += [bytes(off - at), blob]
        at = off + len(blob)
    cache.write(kind, k, b"".join(parts), _SUFFIX)  # (which trims the kind's entries to cache.LIMIT_BYTES)

