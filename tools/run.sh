#!/bin/sh
# One command for a newcomer: install what is needed, build, and start the app.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh
[ -d _build ] || meson setup _build
meson compile -C _build
if [ -f extension/package.json ]; then (cd extension && npm run --silent build); fi
# From the build tree the set-up steps offer what was just built: the
# helper for the browsers' manifests and the extension to load unpacked
# (an installed app uses its own, see docs/install.md).
: "${LUMO_ACCESS_HOST_PATH:=$PWD/_build/src/host/lumo-access-host}"
: "${LUMO_ACCESS_EXTENSION_DIR:=$PWD/extension/dist}"
export LUMO_ACCESS_HOST_PATH LUMO_ACCESS_EXTENSION_DIR
exec _build/src/app/lumo-access "$@"
