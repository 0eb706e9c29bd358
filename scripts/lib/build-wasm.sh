#!/usr/bin/env bash
# Builds the npm package under wasm/pkg (git-ignored) from crate acd-wasm.
# The package ships two WebAssembly modules, each built the same way:
#
#   acd_client  features `client` only, size-first: profile wasm-release
#               (opt-level "z", fat LTO, one codegen unit) and wasm-opt -Oz
#               with the passes that shrink it further (CLIENT_OPT below).
#               The module the package's default entry (`acd-client`) loads: the
#               client's driver, nothing else.
#   acd_wasm    every feature (client, gate, simulation), speed-first: the
#               same profile with opt-level 3 (in its own target dir,
#               target/wasm-speed) and wasm-opt -O3. Loaded only by
#               `acd-client/gate` and `acd-client/testing` (servers, tests, tools).
#
# For each:
#   1. Debian's rustc builds std and the crate for wasm32-unknown-unknown
#      (target dirs of their own), with panic=immediate-abort (the
#      crates never panic by design: clippy denies unwrap/expect/panic;
#      dropping panic formatting saves ~25 KiB) and, for acd_client only,
#      std's optimize_for_size (smaller, slower string and memory routines);
#   2. wasm-bindgen --target web writes the JS glue and .d.ts (one build,
#      used by browsers, bundlers and Node: the node entries instantiate it
#      on import);
#   3. wasm-opt (npm binaryen) with the module's flags, unless WITH_WASM_OPT=0.
# wasm/package.json (the npm package: `npm pack` in wasm/) maps the
# hand-written entries in wasm/js/ and these generated files with `exports`;
# the glue imports the error classes from ../js/errors.js, so both modules
# sit in pkg/. Prints each .wasm size and writes them to target/wasm/size.txt.
# Needs scripts/lib/install-wasm-toolchain.sh first.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

WASM_DIR="$ROOT/wasm"
PKG="${WASM_PKG_DIR:-$WASM_DIR/pkg}"
TARGET_DIR="${WASM_TARGET_DIR:-$ROOT/target/wasm}"
SPEED_TARGET_DIR="$TARGET_DIR-speed"
WB="$CACHE_DIR/cargo-bin/bin/wasm-bindgen"
WASM_OPT="$CACHE_DIR/node/node_modules/.bin/wasm-opt"
[ -x "$WB" ] || die "wasm-bindgen missing: run scripts/lib/install-wasm-toolchain.sh"
# One build at a time (scripts/lib/prebuild.sh may have one under way): a
# second waits, then finds the package up to date.
with_lock build-wasm
# The size goal applies to the module a browser loads for the client role.
GOAL_KIB=300

# cargo_build TARGET-DIR STD-FEATURES RUSTFLAGS FEATURE-ARGS...: prints the raw .wasm's path.
cargo_build() {
  local dir="$1" std_features="$2" flags="$3"; shift 3
  log "wasm: cargo build -p acd-wasm $* (Debian rustc, wasm32, in ${dir#"$ROOT/"})" >&2
  (cd "$ROOT" && CARGO_TARGET_DIR="$dir" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
    RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort $flags" \
    /usr/bin/cargo build --quiet --locked --profile wasm-release \
    -Zbuild-std=std,panic_abort -Zbuild-std-features="$std_features" \
    --target wasm32-unknown-unknown -p acd-wasm "$@") >&2 \
    || die "wasm: cargo build -p acd-wasm $* failed"
  local raw="$dir/wasm32-unknown-unknown/wasm-release/acd_wasm.wasm"
  [ -f "$raw" ] || die "build produced no $raw"
  printf '%s\n' "$raw"
}

# -Zshare-generics=n: each crate instantiates the generic functions it uses
# itself instead of linking the instances of the crates below it (the
# default at opt-level z): 6.7 KiB smaller here after LTO and wasm-opt.
# -Zlocation-detail=none: no file/line/column of the `#[track_caller]`
# sites (only a panic would print them, and panics abort here): 0.4 KiB.
client_raw="$(cargo_build "$TARGET_DIR" optimize_for_size "-Zshare-generics=n -Zlocation-detail=none" \
  --no-default-features --features client)"
full_raw="$(CARGO_PROFILE_WASM_RELEASE_OPT_LEVEL=3 cargo_build "$SPEED_TARGET_DIR" "" "")"

# Skip the rest when neither module nor the package sources changed.
stamp="$( { cat "$client_raw" "$full_raw" "${BASH_SOURCE[0]}"; echo "opt=${WITH_WASM_OPT:-1}"; } \
          | sha256sum | cut -d' ' -f1)"
if [ -f "$PKG/.stamp" ] && [ "$(cat "$PKG/.stamp")" = "$stamp" ]; then
  log "wasm: package up to date"
  cat "$TARGET_DIR/size.txt" 2>/dev/null || true
  exit 0
fi

tmp="$PKG.tmp"
rm -rf "$tmp"
# wasm-opt passes of the size-first module: identical and near-identical
# functions merged first (the monomorphised copies of generic code; 0.4%),
# -Oz, then flattened and re-relooped control flow twice (-Oz after each and
# once more: 2.5% smaller than -Oz alone), with loads and stores folding
# constant offsets below 1 KiB (--low-memory-unused: Rust's stack grows down
# from 1 MiB to address 0, so the low KiB is only reached by a stack about
# to overflow).
CLIENT_OPT=(--low-memory-unused --duplicate-function-elimination --merge-similar-functions
            -Oz --flatten --rereloop -Oz --flatten --rereloop -Oz -Oz)

# bindgen_opt RAW NAME WASM-OPT-PASSES...: glue and optimised module NAME in $tmp.
bindgen_opt() {
  local raw="$1" name="$2"; shift 2
  local level="$*"
  log "wasm: wasm-bindgen --target web ($name)"
  "$WB" --target web --out-dir "$tmp" --out-name "$name" "$raw"
  if [ "${WITH_WASM_OPT:-1}" != 0 ]; then
    [ -x "$WASM_OPT" ] || die "wasm-opt missing: run scripts/lib/install-wasm-toolchain.sh"
    log "wasm: wasm-opt $level ($name)"
    # The features Rust enables by default for wasm32-unknown-unknown.
    "$WASM_OPT" "$@" --strip-debug --strip-producers \
      --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
      --enable-reference-types --enable-multivalue --enable-mutable-globals \
      "$tmp/${name}_bg.wasm" -o "$tmp/${name}_bg.opt.wasm"
    mv "$tmp/${name}_bg.opt.wasm" "$tmp/${name}_bg.wasm"
  fi
}
bindgen_opt "$client_raw" acd_client "${CLIENT_OPT[@]}"
bindgen_opt "$full_raw" acd_wasm -O3

printf '%s\n' "$stamp" >"$tmp/.stamp"
rm -rf "$PKG"
mv "$tmp" "$PKG"

# size_line FILE WHAT: one line of the size report.
size_line() {
  local bytes gz
  bytes="$(stat -c %s "$PKG/$1")"
  gz="$(gzip -9 -c "$PKG/$1" | wc -c)"
  printf '%s (%s): %s bytes (%s KiB; gzip -9 %s KiB)' \
    "$1" "$2" "$bytes" "$((bytes / 1024))" "$((gz / 1024))"
}
client_bytes="$(stat -c %s "$PKG/acd_client_bg.wasm")"
verdict="met"
[ "$client_bytes" -le $((GOAL_KIB * 1024)) ] || verdict="NOT met"
{
  echo "$(size_line acd_client_bg.wasm 'acd-client (default entry): the client, size-first'); goal <= $GOAL_KIB KiB: $verdict"
  echo "$(size_line acd_wasm_bg.wasm 'acd-client/gate, acd-client/testing: every feature, speed-first'); no size goal"
} >"$TARGET_DIR/size.txt"
cat "$TARGET_DIR/size.txt"
