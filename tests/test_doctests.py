"""The examples in the API's docstrings run and print what they say (doctest), module by module."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import asl_terrain

# __main__ runs the CLI when imported
MODULES = sorted(m.name for m in pkgutil.walk_packages(asl_terrain.__path__, "asl_terrain.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {name} failed"


def test_the_engines_have_examples() -> None:
    """The modules a user calls first carry runnable examples (so the test above is not vacuous)."""
    attempted = {n: doctest.testmod(importlib.import_module(f"asl_terrain.{n}"), verbose=False).attempted
                 for n in ("movement", "setup")}
    assert all(attempted.values()), attempted
