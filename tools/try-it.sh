#!/bin/sh
# Try it: builds the app, the helper and the extensions, then starts Debian's
# Chromium in a throwaway profile with the provider and the sample caller
# against the running Lumo Access (see tools/try-it.mjs for the tour).
# usage: tools/try-it.sh [BUILD_DIR]     (run tools/setup.sh once before)
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cd "$(dirname "$0")/.."
build=${1:-_build}
[ -d "$build" ] || meson setup "$build"
meson compile -C "$build"
(cd extension && npm run --silent build)
exec node tools/try-it.mjs "$build"
