#!/bin/sh
# Renders each page of the window to PNG for the README and the AppStream
# metainfo (docs/screenshots/). A small program (tests/app/lumo-screenshot)
# feeds a real backend over temporary stores the way the browser does — a
# provider session says hello, agents probe, open sessions and write — and
# renders the window under Xvfb at a fixed size:
#   requests, access, activity, providers, audit .png   1280×800
#   requests-narrow.png, audit-narrow.png                360 px wide
#   grants.png                                           the Access page at its
#                                                        review grants
#   requests-zh_CN.png, providers-zh_CN.png,
#   grants-zh_CN.png, audit-zh_CN.png                    in Simplified Chinese
#   agents.png, agent-added.png (and -zh_CN)             the Access page's Desktop
#                                                        Agents group, and the Add
#                                                        Agent dialog once it shows
#                                                        the token and set-ups
#   first-run.png, first-run-zh_CN.png                   the Requests page of a
#                                                        machine before its first
#                                                        connection: the set-up
# usage: tools/screenshots.sh [BUILD_DIR]   (default _build)
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cd "$(dirname "$0")/.."
build=${1:-_build}

# Without a CJK font the zh_CN pages render as boxes, silently.
if ! fc-list :lang=zh | grep -q .; then
  echo "screenshots: no Chinese font; install one first (apt-get install fonts-noto-cjk)" >&2
  exit 1
fi

[ -d "$build" ] || meson setup "$build"
meson compile -C "$build" lumo-screenshot lumo-access
out=docs/screenshots
mkdir -p "$out"

shoot () {
  xvfb-run -a -s "-screen 0 1400x1000x24" dbus-run-session -- \
    env GSETTINGS_SCHEMA_DIR="$build/data" GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1 GTK_A11Y=none \
        GDK_SCALE=1 GDK_DPI_SCALE=1 ADW_DEBUG_COLOR_SCHEME=prefer-light \
        "$@" 2>&1 | grep -v '^dbus-daemon'
}

shoot "$build/tests/app/lumo-screenshot" "$out" 1280 800 "" requests access activity providers audit grants
shoot "$build/tests/app/lumo-screenshot" "$out" 360 720 -narrow requests audit
shoot env LANGUAGE=zh_CN LC_ALL=C.UTF-8 LUMO_LOCALEDIR="$build/po" \
  "$build/tests/app/lumo-screenshot" "$out" 1280 800 -zh_CN requests providers grants audit
shoot "$build/tests/app/lumo-screenshot" "$out" 1280 800 "" first-run
shoot "$build/tests/app/lumo-screenshot" "$out" 1280 800 "" agents agent-added
shoot env LANGUAGE=zh_CN LC_ALL=C.UTF-8 LUMO_LOCALEDIR="$build/po" \
  "$build/tests/app/lumo-screenshot" "$out" 1280 800 -zh_CN agents agent-added
shoot env LANGUAGE=zh_CN LC_ALL=C.UTF-8 LUMO_LOCALEDIR="$build/po" \
  "$build/tests/app/lumo-screenshot" "$out" 1280 800 -zh_CN first-run

echo "screenshots: written to $out/"
