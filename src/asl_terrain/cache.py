"""What a later command would derive again, kept in the user's cache directory.

A parsed chart, a validated map, an imported board's raster: each is derived from a file and from this
package's code, so each is stored under a key made of both (the file's bytes and :func:`code_stamp`) and is
safe to delete at any time. ``ASL_TERRAIN_CACHE`` names another directory, or turns the cache off with
``off`` (also ``0`` or ``none``); otherwise the platform's user cache directory is used (platformdirs).

The cache only ever saves time: a missing, unreadable or damaged entry is derived again, and a failure to
write one is ignored.

Imports: nothing of the package.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Mapping
    from hashlib import sha256
else:
    try:  # SHA-256 itself: importing hashlib loads OpenSSL and every algorithm (~3 ms of each start, issue 13)
        from _sha256 import sha256
    except ImportError:  # another Python (3.12 names it _sha2)
        from hashlib import sha256

_T = TypeVar("_T")

#: values of ASL_TERRAIN_CACHE that turn the cache off
_OFF = ("0", "off", "none", "")


def cache_dir() -> Path | None:
    """The cache directory, or None when the cache is off."""
    env = os.environ.get("ASL_TERRAIN_CACHE")
    if env is not None:
        return None if env.strip().lower() in _OFF else Path(env)
    if sys.platform.startswith("linux"):  # platformdirs' rule on Linux, without importing it (start-up)
        base = os.environ.get("XDG_CACHE_HOME", "")
        return Path(base if base.strip() else os.path.expanduser("~/.cache")) / "asl-terrain"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("asl-terrain", appauthor=False))


@lru_cache(maxsize=1)
def code_stamp() -> str:
    """A stamp of this package's code (every module's size and modification time): an entry derived by other
    code is never read back, so an upgrade or an edit in a development checkout needs no clean-up."""
    h = sha256()
    todo = [os.path.dirname(os.path.abspath(__file__))]
    while todo:  # os.scandir: a few stat calls, not pathlib's globbing (this runs at every start)
        with os.scandir(todo.pop()) as it:
            for e in sorted(it, key=lambda e: e.name):
                if e.is_dir() and e.name != "__pycache__":
                    todo.append(e.path)
                elif e.name.endswith(".py"):
                    st = e.stat()
                    h.update(f"{e.path}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()[:16]


def key(*parts: bytes | str) -> str:
    """A cache key for what is derived from ``parts`` (file bytes, options) by this package's code."""
    h = sha256(code_stamp().encode())
    for part in parts:
        b = part.encode() if isinstance(part, str) else part
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()[:32]


def file_key(path: str | Path, kind: str) -> str:
    """``key(the file's bytes, kind)``, worked out once for the file as it is now: remembered by its size,
    modification and change times, inode and device (a change to its bytes changes its change time), so an
    unchanged board archive (megabytes) is not read and hashed again at every start (issue 13).
    :raises OSError: the file cannot be read."""
    p = os.path.abspath(path)
    st = os.stat(p)
    memo = key(p, f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:{st.st_dev}", kind)
    got = read("file-keys", memo, ".key")
    if got is not None and len(got) == 32 and got.isalnum():
        return got.decode("ascii")
    with open(p, "rb") as f:
        k = key(f.read(), kind)
    write("file-keys", memo, k.encode("ascii"), ".key")
    return k


def toml_document(text: str, kind: str = "toml") -> dict[str, Any]:
    """``tomllib.loads(text)``, read back from the cache when this text was parsed before (a TOML of plain
    tables, strings, numbers and booleans, kept with :mod:`marshal`). :raises tomllib.TOMLDecodeError:"""
    import marshal

    k = key(text, kind)
    blob = read(kind, k, ".marshal")
    if blob is not None:
        try:
            doc = marshal.loads(blob)
            if isinstance(doc, dict):
                return doc
        except (EOFError, ValueError, TypeError):
            pass  # damaged: parse again
    import tomllib

    doc = tomllib.loads(text)
    try:
        write(kind, k, marshal.dumps(doc), ".marshal")
    except ValueError:  # a value marshal cannot keep (a TOML date): not kept
        pass
    return doc


def _path(kind: str, k: str, suffix: str) -> Path | None:
    root = cache_dir()
    return None if root is None else root / kind / f"{k}{suffix}"


def read(kind: str, k: str, suffix: str = ".bin") -> bytes | None:
    """The bytes stored for ``k`` among ``kind``'s entries, or None."""
    p = _path(kind, k, suffix)
    if p is None:
        return None
    try:
        return p.read_bytes()
    except OSError:
        return None


def write(kind: str, k: str, data: bytes, suffix: str = ".bin") -> None:
    """Store ``data`` for ``k`` (atomically: a reader sees the whole entry or none). Failures are ignored."""
    p = _path(kind, k, suffix)
    if p is None:
        return
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # only a command that writes an entry needs it

        # named apart from the entries (a kind's trim counts its entries by their suffix)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, p)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return
    _trim(p.parent, p.name)


#: the bytes one kind's entries may take (a 3-board layout's raster, walls and ids are ~21 MB; each code change
#: makes new entries): past it, the entries used least recently are deleted when another is written
LIMIT_BYTES = 512 * 2**20
#: a temporary file this old was left by a process that died while writing
_STALE_TMP_NS = 3600 * 10**9


def _trim(folder: Path, keep: str) -> None:
    """Delete the entries of ``folder`` used least recently (written, or marked read) while they take more than
    LIMIT_BYTES, never ``keep`` (the one just written); and temporary files left by a process that died."""
    import time

    try:
        entries, stale = [], time.time_ns() - _STALE_TMP_NS
        for e in os.scandir(folder):
            st = e.stat()
            if e.name.startswith(".tmp-"):
                if st.st_mtime_ns < stale:
                    os.unlink(e.path)
            elif e.name != keep:
                entries.append((st.st_mtime_ns, st.st_size, e.path))
        total = sum(size for _, size, _ in entries) + os.stat(folder / keep).st_size
        for _, size, path in sorted(entries):
            if total <= LIMIT_BYTES:
                break
            os.unlink(path)
            total -= size
    except OSError:
        pass  # another process trimming at once, or an entry gone: nothing to do


def read_object(kind: str, k: str, cls: type[_T]) -> _T | None:
    """The ``cls`` pickled for ``k`` among ``kind``'s entries, or None (none stored, damaged, or another type:
    the caller derives it again)."""
    blob = read(kind, k, ".pickle")
    if blob is None:
        return None
    import pickle  # only a command that finds an entry needs it

    try:
        got = pickle.loads(blob)
    except Exception:
        return None
    return got if isinstance(got, cls) else None


def write_object(kind: str, k: str, obj: object) -> None:
    """Keep ``obj`` pickled for ``k``; an object holding something that cannot be pickled is not kept."""
    import pickle

    try:
        blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return
    write(kind, k, blob, ".pickle")


# -- derived tables kept between processes: values read back one by one, each checked
# marshal's format may change between Python versions: an entry written by another Python is not read
_SHELF_MAGIC = f"ASLshelf1 py{sys.version_info[0]}.{sys.version_info[1]}\n".encode()
_VALUE_MAGIC = f"ASLvalue1 py{sys.version_info[0]}.{sys.version_info[1]}\n".encode()


class Shelf:
    """Values derived by key (tuples of ints and floats, frozensets, bytes: what :mod:`marshal` keeps exactly),
    kept in one cache entry for a later process: its index is read when the shelf is first asked, each value
    only when it is asked for (a batch reads what it needs, not the whole table). Each value and the index
    carry a CRC: a damaged entry gives None (derived again). ``limit`` bounds the entries a save keeps.
    Threads may ask at once: what was read is one tuple, replaced whole."""

    def __init__(self, kind: str, k: str, limit: int) -> None:
        self.kind, self.k, self.limit = kind, k, limit
        # the index (key -> the value's offset from the values' start, size, CRC), the entry's bytes (an mmap of
        # its file), where the values start
        self._read: tuple[dict[Any, tuple[int, int, int]], Any, int] | None = None

    def _open(self) -> tuple[dict[Any, tuple[int, int, int]], Any, int]:
        import marshal
        import zlib

        got: tuple[dict[Any, tuple[int, int, int]], Any, int] = ({}, b"", 0)
        p = _path(self.kind, self.k, ".shelf")
        if p is not None:
            try:
                import mmap

                with p.open("rb") as f:
                    data: Any = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                n = len(_SHELF_MAGIC)
                if data[:n] == _SHELF_MAGIC:
                    crc, size = int.from_bytes(data[n : n + 4], "little"), int.from_bytes(data[n + 4 : n + 12], "little")
                    raw = data[n + 12 : n + 12 + size]
                    if len(raw) == size and zlib.crc32(raw) == crc:
                        index = marshal.loads(raw)
                        if isinstance(index, dict):
                            got = (index, data, n + 12 + size)
            except (OSError, ValueError, EOFError, TypeError):
                pass
        self._read = got
        return got

    def __len__(self) -> int:
        return len((self._read or self._open())[0])

    def __contains__(self, key: Any) -> bool:
        return key in (self._read or self._open())[0]

    def get(self, key: Any) -> Any:
        """The value kept for ``key``, or None (none kept, or damaged)."""
        index, data, body = self._read or self._open()
        at = index.get(key)
        if at is None:
            return None
        import marshal
        import zlib

        try:  # (an index entry not of our making reads as none kept)
            start, size, crc = at
            raw = data[body + start : body + start + size]
            if zlib.crc32(raw) != crc:
                return None
            return marshal.loads(raw)
        except (ValueError, EOFError, TypeError):
            return None

    def save(self, values: Mapping[Any, Any], least: int = 1) -> None:
        """Keep the values already kept and ``values`` (the first ``limit`` of both), atomically, when
        ``values`` holds at least ``least`` new ones (and room is left for them). Failures are ignored."""
        import marshal
        import zlib

        index, data, body = self._read or self._open()
        new = [k for k in values if k not in index]
        room = self.limit - len(index)
        if len(new) < max(least, 1) or room <= 0 or _path(self.kind, self.k, ".shelf") is None:
            return
        blobs: list[bytes] = []
        out: dict[Any, tuple[int, int, int]] = {}
        at = 0
        try:
            for key, (start, size, crc) in index.items():
                blobs.append(data[body + start : body + start + size])
                out[key] = (at, size, crc)
                at += size
        except (ValueError, TypeError):  # an index not of our making: written anew with the values given
            blobs, out, at, new, room = [], {}, 0, list(values), self.limit
        for key in new[:room]:
            try:
                b = marshal.dumps(values[key])
            except ValueError:  # a value marshal cannot keep: not kept
                continue
            blobs.append(b)
            out[key] = (at, len(b), zlib.crc32(b))
            at += len(b)
        head = marshal.dumps(out)
        write(self.kind, self.k, _SHELF_MAGIC + zlib.crc32(head).to_bytes(4, "little")
              + len(head).to_bytes(8, "little") + head + b"".join(blobs), ".shelf")
        self._read = None  # read again when next asked: the entry written


def read_value(kind: str, k: str) -> Any:
    """The value :func:`write_value` kept for ``k`` among ``kind``'s entries, or None (none, or damaged)."""
    import marshal
    import zlib

    blob = read(kind, k, ".marshal")
    n = len(_VALUE_MAGIC) + 4
    if blob is None or blob[: n - 4] != _VALUE_MAGIC or zlib.crc32(blob[n:]) != int.from_bytes(blob[n - 4 : n], "little"):
        return None
    try:
        return marshal.loads(blob[n:])
    except (ValueError, EOFError, TypeError):
        return None


def write_value(kind: str, k: str, value: Any) -> None:
    """Keep ``value`` (plain values :mod:`marshal` keeps exactly) for ``k``, with a CRC; a value marshal
    cannot keep is not kept."""
    import marshal
    import zlib

    try:
        blob = marshal.dumps(value)
    except ValueError:
        return
    write(kind, k, _VALUE_MAGIC + zlib.crc32(blob).to_bytes(4, "little") + blob, ".marshal")
