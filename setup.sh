#!/usr/bin/env bash
# ttrace on a fresh Debian 12 machine, in one command:
#   ./setup.sh demo    install the build dependencies, build, open the classroom demo
#   ./setup.sh test    install the build dependencies, build, run every test
#   ./setup.sh build   install and build only
# Runs as root, or uses sudo for apt-get.
set -euo pipefail
cd "$(dirname "$0")"

packages=(
  build-essential meson ninja-build pkg-config
  libjansson-dev libpcre2-dev libopenblas-dev libxxhash-dev
  libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
  libcmocka-dev python3-numpy python3-regex python3-torch python3-xxhash valgrind xvfb xauth
  clang clang-format libclang-rt-14-dev
  libharfbuzz-dev librsvg2-bin chromium python3-html5lib python3-pil desktop-file-utils
)

install_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "setup: installing ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build() {
  [ -f build/build.ninja ] || meson setup build
  ninja -C build
}

case "${1:-demo}" in
  demo)
    install_packages
    build
    exec ./build/src/cli/ttrace demo "${@:2}"
    ;;
  test)
    install_packages
    build
    meson test -C build --print-errorlogs --num-processes 2
    ;;
  build)
    install_packages
    build
    ;;
  *)
    echo "usage: ./setup.sh [demo|test|build]" >&2
    exit 2
    ;;
esac
