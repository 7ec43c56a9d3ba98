# Sourced by scripts/demo and scripts/test: make .venv (once) and install the project into it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.installed-$(cat pyproject.toml setup.py src/asl_terrain/_walk.c | sha1sum | cut -c1-12)
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
  touch "$stamp"
fi
