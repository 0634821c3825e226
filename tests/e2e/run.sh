#!/bin/bash
# The end-to-end suite: the real app in a real X session (Xvfb + openbox),
# driven with xdotool, read back through the accessibility tree (AT-SPI).
#   tests/e2e/run.sh [-k SUBSTRING]... [--list]
# Environment: PTESCOPE_GUI, PTESCOPE_CLI (default build/app/...),
# PTESCOPE_E2E_ARTIFACTS (default build/e2e-artifacts). See run.py.
# Exit: 0 all passed, 1 a scenario failed, 77 skipped (no Xvfb or no pyatspi).
set -euo pipefail
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
root=$(CDPATH= cd -- "$here/../.." && pwd)
cd "$root"
unset QT_QPA_PLATFORM WAYLAND_DISPLAY
export PYTHONDONTWRITEBYTECODE=1
# Debian's python has pyatspi (python3-pyatspi); a pyenv/venv python on PATH does not.
python=/usr/bin/python3
[ -x "$python" ] || python=python3
if ! command -v Xvfb >/dev/null 2>&1; then
  echo "SKIP e2e: Xvfb is not installed"; exit 77
fi
if ! "$python" -c 'import pyatspi' >/dev/null 2>&1; then
  echo "SKIP e2e: $python cannot import pyatspi (apt-get install python3-pyatspi)"; exit 77
fi
if ! command -v dbus-run-session >/dev/null 2>&1; then
  echo "FAIL setup: dbus-run-session is not installed (apt-get install dbus)"; exit 1
fi
# A session bus of its own: the accessibility bus is found through it.
# dbus-daemon's own complaints (fd limits in containers) are dropped from stderr.
exec dbus-run-session -- "$python" "$here/run.py" "$@" 2> >(grep --line-buffered -v '^dbus-daemon\[' >&2)
