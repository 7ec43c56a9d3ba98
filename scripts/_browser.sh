# Sourced by scripts/test: the browser tests (tests/test_web_browser.py) drive Debian's Chromium by its path,
# /usr/bin/chromium, through Playwright's Python package (Playwright's own browser download is not reachable).
# Install it when it is missing and we may (root, apt-get); when it cannot be had the tests skip, saying why.
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "scripts/_browser.sh: installing chromium for the browser tests (apt-get, a few minutes, once)" >&2
  if ! (export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1); then
    echo "scripts/_browser.sh: chromium could not be installed; the browser tests will skip" >&2
  fi
fi
