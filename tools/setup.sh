#!/bin/sh
# Installs everything Lumo Access needs to build, run and test on Debian 12
# (as root), and the extension's npm packages. Safe to run again.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cd "$(dirname "$0")/.."

packages="meson ninja-build pkg-config gcc clang llvm libclang-rt-14-dev
  libglib2.0-dev libglib2.0-bin libjson-glib-dev libsqlite3-dev sqlite3
  libgtk-4-dev libadwaita-1-dev libsoup-3.0-dev
  gettext desktop-file-utils appstream xvfb xauth dbus dbus-x11
  chromium imagemagick"

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Node 20 with its own npm may already be installed from another archive
# (its nodejs package conflicts with Debian's npm): only a machine without
# node at all gets Debian's.
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"

if [ -n "$missing" ]; then
  echo "setup: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  # shellcheck disable=SC2086
  apt-get install -y -q --no-install-recommends $missing
fi

if [ -f extension/package-lock.json ]; then
  (cd extension && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ -f tests/e2e/package-lock.json ]; then
  (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
fi
