"""Where the VASL data lives: the VASL data directory (``SharedBoardMetadata.xml``, ``boards/``,
``oracle/``) and the boards folders of an installed VASL."""

from __future__ import annotations

import os
from pathlib import Path

from asl_terrain.errors import MapError

_ENV_VAR = "ASL_TERRAIN_VASL"




def vasl_data_dir() -> Path | None:
    """The directory holding VASL's data (``SharedBoardMetadata.xml``, ``boards/``, ``oracle/``), or None.

    Looked for, in order: the directory named by the environment variable ``ASL_TERRAIN_VASL``;
    ``../shared/vasl`` from the current directory; ``shared/vasl`` beside the repository this module
    was loaded from.
    """
    candidates: list[Path] = []
    env = os.environ.get(_ENV_VAR)
    if env:
        candidates.append(Path(env))
    candidates.append(Path.cwd().parent / "shared" / "vasl")
    here = Path(__file__).resolve()  # src/asl_terrain/vasl/data.py: the repository is parents[3]
    if len(here.parents) > 4:
        candidates.append(here.parents[4] / "shared" / "vasl")
    for candidate in candidates:
        if (candidate / "SharedBoardMetadata.xml").is_file() or (candidate / "boards").is_dir():
            return candidate
    return None


def vasl_board_dirs() -> list[Path]:
    """The usual boards folders of an installed VASL. VASL keeps its board archives in the folder of its
    "Board Directory" preference, by default a ``boards`` folder beside the VASL module file
    (``vasl-6.x.vmod``); players usually install that in a ``VASL`` folder in their home or Documents
    folder (Windows, macOS and Linux alike)."""
    home = Path.home()
    return [home / "VASL" / "boards", home / "Documents" / "VASL" / "boards", home / "vasl" / "boards"]


def find_board(archive: str, boards_dir: str | Path | None = None) -> Path:
    """The board archive ``archive`` (``"bd02"``), looked for, in order: in ``boards_dir`` (``--boards``);
    in ``$ASL_TERRAIN_VASL`` (the folder itself, or its ``boards/``); in the usual VASL boards folders
    (:func:`vasl_board_dirs`); in the VASL data directory beside the repository (``../shared/vasl``).

    :raises MapError: not found anywhere, naming every place looked in.
    """
    places: list[Path] = []
    if boards_dir is not None:
        places.append(Path(boards_dir))
    env = os.environ.get(_ENV_VAR)
    if env:
        places += [Path(env), Path(env) / "boards"]
    places += vasl_board_dirs()
    data = vasl_data_dir()
    if data is not None:
        places.append(data / "boards")
    for d in places:
        if (d / archive).is_file():
            return d / archive
    raise MapError(f"board archive {archive} not found: looked in "
                   + ", ".join(str(d) for d in dict.fromkeys(places))
                   + f"; pass --boards DIR (the folder holding {archive}), set {_ENV_VAR}, or install the board in "
                   "VASL's boards folder")


def _require_data_dir(what: str) -> Path:
    found = vasl_data_dir()
    if found is None:
        raise MapError(
            f"cannot find the VASL data for {what}: set {_ENV_VAR} to the directory holding "
            "SharedBoardMetadata.xml, boards/ and oracle/"
        )
    return found
