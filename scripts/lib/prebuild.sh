#!/usr/bin/env bash
# Builds ahead, at the lowest CPU priority, what the later suites of one
# `scripts/test` run will need and nothing before them uses: the wasm
# toolchain and npm package, the fuzz targets and the glibc-2.17 builds of
# scripts/dist (all in target dirs of their own, so no suite's cargo waits
# on them). scripts/test starts it in
# the background; it runs on the cores the suites before leave idle (their
# servers, network waits and single-threaded test runners).
#
# Nothing here is required: each suite still runs the same steps itself.
# Each is idempotent and safe to run concurrently (the install and build
# scripts take locks in .cache/locks, and cargo locks its target dirs), so
# a suite that gets there first waits for the step under way and then finds
# it done; a step that fails here is simply done again, with its errors
# shown, by the suite that needs it.
#
# Usage: prebuild.sh SUITE...   (the suites the run will go on to: wasm, fuzz, dist, python, kotlin)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# scripts/test starts this in a session of its own (so it can stop the
# whole tree), and the kernel's autogroup scheduling shares the CPU between
# sessions equally whatever their processes' nice values: lower the
# session's own weight too, or the suites lose half their CPU to this
# (measured: the rust suite took 15 min beside it instead of 10). Only
# when this script leads its session: the weight is the whole session's,
# and a caller's own must stay as it is.
if [ "$(ps -o sid= -p $$ | tr -d ' ')" = "$$" ]; then
  echo 19 >/proc/self/autogroup 2>/dev/null || true
fi
cd "$ROOT" || exit 1
LIB="$ROOT/scripts/lib"

# ahead NAME COMMAND...: one step, its outcome on one line.
ahead() {
  local name="$1"; shift
  local started=$SECONDS
  if "$@"; then
    log "prebuild: $name done in $((SECONDS - started))s"
  else
    log "prebuild: $name failed after $((SECONDS - started))s (its suite will do it again)"
    return 1
  fi
}

# The glibc-2.17 builds first whatever the order asked: the sandbox binary
# and the native library in them serve the python, kotlin and wasm suites
# too (scripts/lib/sandbox.sh, build-ffi.sh).
ordered=()
for suite in "$@"; do case "$suite" in dist | python | kotlin) ordered+=("$suite") ;; esac; done
for suite in "$@"; do case "$suite" in dist | python | kotlin) ;; *) ordered+=("$suite") ;; esac; done
for suite in "${ordered[@]}"; do
  case "$suite" in
    wasm)
      ahead "wasm toolchain" "$LIB/install-wasm-toolchain.sh" \
        && ahead "npm package" "$LIB/build-wasm.sh"
      ;;
    fuzz)
      ahead "fuzz targets" "$LIB/build-fuzz.sh"
      ;;
    dist | python | kotlin)
      [ -n "${native_done:-}" ] && continue
      native_done=1
      ahead "dist tools" "$LIB/install-dist-tools.sh" \
        && ahead "glibc-2.17 builds" "$LIB/build-dist-native.sh"
      ;;
  esac
done
