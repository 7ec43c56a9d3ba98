"""The compiled walk of a LOS thread (``_walk.c``): :func:`asl_terrain.los._walk` for a compiled shape."""

from typing import Any

def walk(L: Any, contacts: tuple[tuple[Any, ...], ...], packed: bytes, base: int, ia: int, ib: int, out: Any,
         recs: list[Any] | None, reader: Any, env: tuple[Any, ...], dep: dict[int, bool] | None) -> Any: ...
