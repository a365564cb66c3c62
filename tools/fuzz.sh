#!/bin/sh
# Fuzzes the bridge (tests/fuzz/fuzz-bridge.c) for SECONDS seconds with
# libFuzzer, ASan and UBSan, on a copy of tests/fuzz/corpus. Fails on any
# crash, leak, sanitizer report or hang (an input running over 5 s).
# A failing input is left in _build-fuzz/findings/; add it to
# tests/fuzz/corpus/ once the bug is fixed, so every build replays it.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cd "$(dirname "$0")/.."

seconds="${1:-60}"
build=_build-fuzz

if [ ! -d "$build" ]; then
  CC=clang meson setup "$build" -Dfuzzing=true -Dapp=false -Dextension_tests=false \
    -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args="-fsanitize=fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer"
fi
meson compile -C "$build" tests/fuzz/fuzz-bridge

work="$build/fuzz-work"
rm -rf "$work" "$build/findings"
mkdir -p "$work/corpus" "$build/findings"
cp tests/fuzz/corpus/* "$work/corpus/"

# The databases of the target live in a temporary directory; on tmpfs the
# audit log's fsyncs cost nothing.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  TMPDIR=/dev/shm
  export TMPDIR
fi

# Leaks are checked once, below, over the whole corpus: libFuzzer's check
# after every input costs a heap scan each time (20x slower here), because
# the target keeps its databases open across inputs.
status=0
ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:quarantine_size_mb=64:malloc_context_size=20" \
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
  "$build/tests/fuzz/fuzz-bridge" \
    -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
    -detect_leaks=0 -print_final_stats=1 -artifact_prefix="$build/findings/" \
    -dict=tests/fuzz/bridge.dict \
    "$work/corpus" > "$build/fuzz.log" 2>&1 || status=$?
tail -n 12 "$build/fuzz.log"

if [ "$status" -eq 0 ]; then
  echo "== replaying the corpus with the leak checker"
  meson compile -C "$build" tests/fuzz/fuzz-bridge-replay
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" \
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    "$build/tests/fuzz/fuzz-bridge-replay" "$work/corpus" || status=$?
fi

if ls "$build/findings/"* >/dev/null 2>&1; then
  echo "fuzz: the fuzzer found a failing input:" >&2
  ls -l "$build/findings/" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "fuzz: failed (status $status), see $build/fuzz.log" >&2
fi
exit "$status"
