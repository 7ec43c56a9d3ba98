"""Board images: GIFs read and PNGs written with Pillow, and the boards' artwork as one picture aligned
with :func:`asl_terrain.render.map_svg`'s drawing of the map."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from asl_terrain.errors import MapError

from .geometry import _GRID_X, _GRID_Y, HEX_HEIGHT, HEX_WIDTH

if TYPE_CHECKING:
    from .archive import BoardArchive


def _decode_gif(data: bytes, source: str) -> tuple[np.ndarray, np.ndarray, int | None]:
    """First frame of a GIF on its logical screen: (palette indices shaped (w, h) x-major, palette, transparent)."""
    if data[:6] not in (b"GIF87a", b"GIF89a"):
        raise MapError(f"{source}: not a GIF image")
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as im:
            im.seek(0)
            if im.mode not in ("P", "L"):
                raise MapError(f"{source}: a GIF frame in mode {im.mode}, expected palette indices")
            indices = np.asarray(im, dtype=np.uint8)
            flat = im.getpalette() if im.mode == "P" else None
            transparent = im.info.get("transparency")
    except (OSError, SyntaxError, ValueError) as exc:
        raise MapError(f"{source}: malformed GIF: {exc}") from None
    if flat is not None:
        palette = np.array(flat, dtype=np.uint8).reshape(-1, 3)
    else:  # Pillow reads a grey palette as mode L: the indices are the grey values
        count = 2 << (data[10] & 7) if data[10] & 0x80 else 256
        palette = np.repeat(np.arange(count, dtype=np.uint8)[:, None], 3, axis=1)
    return indices.T.copy(), palette, transparent if isinstance(transparent, int) else None


def _png(rgba: np.ndarray) -> bytes:
    """A PNG file of an RGBA image shaped (height, width, 4), uint8."""
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgba, dtype=np.uint8), "RGBA").save(out, format="PNG", compress_level=6)
    return out.getvalue()


def artwork_png(
    boards: Sequence[tuple[BoardArchive, int, int]],
    columns: tuple[int, int],
    rows: tuple[int, int],
    scale: float = 1.0,
) -> bytes:
    """The boards' images as one PNG covering exactly the extent :func:`asl_terrain.render.map_svg`
    draws for a map of these columns and rows (from the W vertex of the first column to the E vertex
    of the last, from the top of the highest hex to the bottom of the lowest), so that it can be passed
    as ``board_image``. Outside the boards the picture is transparent.

    :param boards: ``(archive, column offset, row offset)`` per board, as placed on the map.
    :param columns: the map's first and last column index; ``rows``: its first and last row.
    :param scale: the picture's size relative to the boards' own pixels (0.5 halves it).
    """
    from .archive import TurnedBoard  # archive reads its overlays with this module's decoder

    c0, c1 = columns
    r0, r1 = rows
    parities = {c % 2 for c in range(c0, c1 + 1)}
    gx0, gx1 = 3 * c0 - 2, 3 * c1 + 2
    gy0 = 2 * r0 + min(parities) - 1
    gy1 = 2 * r1 + max(parities) + 1
    px0, py0 = gx0 * _GRID_X, (gy0 - 1) * _GRID_Y
    px1, py1 = gx1 * _GRID_X, (gy1 - 1) * _GRID_Y
    out_w = max(int(round((px1 - px0) * scale)), 1)
    out_h = max(int(round((py1 - py0) * scale)), 1)
    canvas = np.zeros((out_h, out_w, 4), dtype=np.uint8)
    # source pixel of each output pixel (nearest), in the combined boards' frame
    sx = np.floor(px0 + (np.arange(out_w) + 0.5) / scale).astype(np.int64)
    sy = np.floor(py0 + (np.arange(out_h) + 0.5) / scale).astype(np.int64)
    for b, dc, dr in boards:
        indices, palette, transparent = _decode_gif(b.image_bytes(), f"{b.path}:{b.image_name}")
        if isinstance(b, TurnedBoard):  # the image of a board rotated 180° (its raster is turned already)
            indices = indices[: b.grid_width, : b.grid_height][::-1, ::-1]
        x0, y0 = int(dc * HEX_WIDTH), int(dr * HEX_HEIGHT)
        lx, ly = sx - x0, sy - y0
        okx = (lx >= 0) & (lx < indices.shape[0])
        oky = (ly >= 0) & (ly < indices.shape[1])
        if not okx.any() or not oky.any():
            continue
        cols, rws = np.nonzero(okx)[0], np.nonzero(oky)[0]
        idx = indices[np.ix_(lx[cols], ly[rws])].T  # (rows, cols)
        rgb = palette[np.minimum(idx, len(palette) - 1)] if len(palette) else np.zeros(idx.shape + (3,), np.uint8)
        alpha = np.where(idx == transparent, 0, 255).astype(np.uint8) if transparent is not None else \
            np.full(idx.shape, 255, np.uint8)
        block = canvas[rws[0] : rws[-1] + 1, cols[0] : cols[-1] + 1]
        block[..., :3] = np.where(alpha[..., None] > 0, rgb, block[..., :3])
        block[..., 3] = np.maximum(block[..., 3], alpha)
    return _png(canvas)
