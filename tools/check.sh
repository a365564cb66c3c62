#!/bin/sh
# The whole test suite, from a fresh Debian 12 machine (as root): set-up, the
# main build with every suite, the core tests again under ASan+UBSan, and the
# bridge fuzzer for a bounded time. Exits non-zero on any failure.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh

echo "== build and test (all suites)"
[ -d _build ] || meson setup _build
meson compile -C _build
if [ -f extension/package.json ]; then (cd extension && npm run --silent build); fi
# The app and e2e suites need a display and a session bus of their own.
xvfb-run -a -s "-screen 0 1280x900x24" \
  dbus-run-session -- meson test -C _build --print-errorlogs --num-processes 2

echo "== core tests under AddressSanitizer + UndefinedBehaviorSanitizer"
[ -d _build-asan ] || meson setup _build-asan -Dapp=false -Dextension_tests=false \
  -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
meson compile -C _build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  dbus-run-session -- meson test -C _build-asan --suite core --print-errorlogs --num-processes 2

if [ -x tools/fuzz.sh ]; then
  echo "== fuzzing the bridge (bounded)"
  tools/fuzz.sh 60
fi
echo "check: all passed"
