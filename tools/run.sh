#!/bin/sh
# One command for a newcomer: install what is needed, build, and start the app.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh
[ -d _build ] || meson setup _build
meson compile -C _build
if [ -f extension/package.json ]; then (cd extension && npm run --silent build); fi
exec _build/src/app/lumo-access "$@"
