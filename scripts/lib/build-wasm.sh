#!/usr/bin/env bash
# Builds the npm package under wasm/pkg (git-ignored) from crate acd-wasm:
#   1. Debian's rustc builds std and the crate for wasm32-unknown-unknown
#      (profile wasm-release, separate target dir target/wasm), with
#      panic=immediate-abort (the crates never panic by design: clippy denies
#      unwrap/expect/panic; dropping panic formatting saves ~25 KiB) and std's
#      optimize_for_size;
#   2. wasm-bindgen --target web writes the JS glue and .d.ts (one build,
#      used by browsers, bundlers and Node: node.js instantiates it on import);
#   3. wasm-opt -Oz (npm binaryen) shrinks the .wasm, unless WITH_WASM_OPT=0;
#   4. wasm/package.json (the npm package: `npm pack` in wasm/) maps the
#      hand-written entries in wasm/js/ (the error classes the module throws
#      included: it imports ../js/errors.js) and these generated files with
#      `exports`; tests import the package by its own name ("acd").
# Prints the .wasm size and writes it to target/wasm/size.txt.
# Needs scripts/lib/install-wasm-toolchain.sh first.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

WASM_DIR="$ROOT/wasm"
PKG="${WASM_PKG_DIR:-$WASM_DIR/pkg}"
TARGET_DIR="${WASM_TARGET_DIR:-$ROOT/target/wasm}"
PROFILE=wasm-release
WB="$CACHE_DIR/cargo-bin/bin/wasm-bindgen"
WASM_OPT="$CACHE_DIR/node/node_modules/.bin/wasm-opt"
[ -x "$WB" ] || die "wasm-bindgen missing: run scripts/lib/install-wasm-toolchain.sh"

# ACD_WASM_FEATURES=client builds a client-only module (smaller); default: all.
feature_args=()
if [ -n "${ACD_WASM_FEATURES:-}" ]; then
  feature_args=(--no-default-features --features "$ACD_WASM_FEATURES")
fi
log "wasm: cargo build -p acd-wasm (Debian rustc, wasm32, profile $PROFILE)"
(cd "$ROOT" && CARGO_TARGET_DIR="$TARGET_DIR" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
  RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort" \
  /usr/bin/cargo build --quiet --locked --profile "$PROFILE" \
  -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size \
  --target wasm32-unknown-unknown -p acd-wasm "${feature_args[@]}")
RAW="$TARGET_DIR/wasm32-unknown-unknown/$PROFILE/acd_wasm.wasm"
[ -f "$RAW" ] || die "build produced no $RAW"

# Skip the rest when neither the module nor the package sources changed.
stamp="$( { cat "$RAW" "${BASH_SOURCE[0]}";
            echo "opt=${WITH_WASM_OPT:-1} features=${ACD_WASM_FEATURES:-all}"; } \
          | sha256sum | cut -d' ' -f1)"
if [ -f "$PKG/.stamp" ] && [ "$(cat "$PKG/.stamp")" = "$stamp" ]; then
  log "wasm: package up to date ($(cat "$TARGET_DIR/size.txt" 2>/dev/null || echo '?'))"
  exit 0
fi

tmp="$PKG.tmp"
rm -rf "$tmp"
log "wasm: wasm-bindgen --target web"
"$WB" --target web --out-dir "$tmp" --out-name acd_wasm "$RAW"

if [ "${WITH_WASM_OPT:-1}" != 0 ]; then
  [ -x "$WASM_OPT" ] || die "wasm-opt missing: run scripts/lib/install-wasm-toolchain.sh"
  log "wasm: wasm-opt -Oz"
  # The features Rust enables by default for wasm32-unknown-unknown.
  "$WASM_OPT" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-reference-types --enable-multivalue --enable-mutable-globals \
    "$tmp/acd_wasm_bg.wasm" -o "$tmp/acd_wasm_bg.opt.wasm"
  mv "$tmp/acd_wasm_bg.opt.wasm" "$tmp/acd_wasm_bg.wasm"
fi

printf '%s\n' "$stamp" >"$tmp/.stamp"
rm -rf "$PKG"
mv "$tmp" "$PKG"

bytes="$(stat -c %s "$PKG/acd_wasm_bg.wasm")"
gz="$(gzip -9 -c "$PKG/acd_wasm_bg.wasm" | wc -c)"
size="acd_wasm_bg.wasm (features: ${ACD_WASM_FEATURES:-gate,client,sim}): $bytes bytes ($((bytes / 1024)) KiB; gzip -9 $((gz / 1024)) KiB; goal < 300 KiB)"
mkdir -p "$TARGET_DIR"
printf '%s\n' "$size" >"$TARGET_DIR/size.txt"
log "wasm: $size"
