"""Shared pytest set-up: make the src layout importable when the package is not installed."""

from __future__ import annotations

import sys
from pathlib import Path

_SRC = str(Path(__file__).resolve().parent.parent / "src")
if _SRC not in sys.path:
    sys.path.insert(0, _SRC)

# The user cache (asl_terrain.cache) of a test run is its own, shared by its xdist workers (they inherit the
# environment) and deleted at the end: tests never read a developer's cache, nor leave one behind.
import atexit
import os
import shutil
import tempfile

if "ASL_TERRAIN_CACHE" not in os.environ:
    _CACHE = tempfile.mkdtemp(prefix="asl-terrain-test-cache-")
    os.environ["ASL_TERRAIN_CACHE"] = _CACHE
    atexit.register(shutil.rmtree, _CACHE, True)

# CI runs the property tests on a fixed seed, so a landing never depends on the luck of the draw; on a
# developer's machine they search afresh each run (and hypothesis keeps what it finds).

from hypothesis import settings

# No per-example deadline: the tests assert rulings, not speed (benchmarks/ measures that), and a loaded
# machine made a 200 ms deadline fail where the ruling was right.
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


# The all-pairs checks on the VASL boards and the KGP maps' artwork readings take most of the suite's time:
# handed out first, they run beside the many quick tests instead of after them (xdist's workers collect
# the same order, so the order is theirs too).
_HEAVY_FIRST = ("test_vasl_check.py", "test_los_history.py", "test_vasl_terrain.py", "test_artwork_colors.py", "test_kgp_maps.py",
                "test_flip.py", "test_vsav.py")


def pytest_collection_modifyitems(config: object, items: list) -> None:  # type: ignore[type-arg]
    def weight(item: object) -> int:
        path = str(getattr(item, "path", ""))
        return 0 if path.endswith(_HEAVY_FIRST) else 1

    items.sort(key=weight)  # stable: each group keeps its own order
