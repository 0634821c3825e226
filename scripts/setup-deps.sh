#!/usr/bin/env bash
# Installs every build and test dependency of ptescope from Debian 12 packages.
# Idempotent: packages already installed are skipped; nothing is downloaded
# outside the Debian archive. Run as root (or through sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev qt6-charts-dev libgl-dev
  flatbuffers-compiler libflatbuffers-dev
  libgraphviz-dev graphviz
  nlohmann-json3-dev libcli11-dev libbenchmark-dev
  xvfb xauth
  # The end-to-end suite (tests/e2e): a real X session, a window manager, input,
  # the accessibility bus and its Python client, screenshots.
  openbox xdotool x11-utils imagemagick fonts-dejavu-core dbus dbus-x11 at-spi2-core python3-pyatspi python3-gi
  qt6-qpa-plugins
  # The HTML report in a real browser (tests/browser): headless Chromium.
  chromium
  # The package and its checks: CPack's file(1), the validators, man -l, the MIME cache.
  file desktop-file-utils appstream man-db shared-mime-info
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup-deps: installing ${missing[*]}"
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
