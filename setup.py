"""The one thing pyproject.toml does not say: the compiled walk of a LOS thread (issue 13, src/asl_terrain/_walk.c).

It is optional: where it cannot be built (no C compiler) the install goes on and the pure Python walk is the
only one. Contraction is off, so that its float arithmetic is Python's to the bit (A6.1's pixel stretches).
"""

import sys

from setuptools import Extension, setup

flags = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off"]
setup(ext_modules=[Extension("asl_terrain._walk", ["src/asl_terrain/_walk.c"], extra_compile_args=flags,
                             optional=True)])
