#!/usr/bin/env bash
# Takes acd-ffi's native library from the distributable wheel (built by
# scripts/lib/build-dist-native.sh), builds the workspace's uniffi bindgen
# (bindings/bindgen, in the dev profile: the same build maturin runs with
# `cargo run --bin uniffi-bindgen`), then generates the bindings sources into
# target/bindings/ (git-ignored):
#   target/bindings/native/libacd_ffi.so  the native library
#   target/bindings/python/acd_ffi.py     generated Python (+ the .so beside it)
#   target/bindings/kotlin/acd/acd_ffi.kt generated Kotlin
# Usage: build-ffi.sh python|kotlin...
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$#" -ge 1 ] || die "usage: $0 python|kotlin..."
cd "$ROOT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$TARGET_DIR/bindings"
with_lock build-ffi

# The native library is the one the distributable wheel carries
# (scripts/lib/build-dist-native.sh: release, linked for glibc 2.17), so a
# test run builds acd-ffi in release once and tests what users install.
bash "$ROOT/scripts/lib/install-dist-tools.sh"
bash "$ROOT/scripts/lib/build-dist-native.sh"
WHEEL="$(ls "$TARGET_DIR"/dist/wheels/acd_client-*.whl | head -1)"
mkdir -p "$OUT/native"
LIB="$OUT/native/libacd_ffi.so"
"$CACHE_DIR/venv-dist/bin/python" -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("acd/_ffi/libacd_ffi.so"))' \
  "$WHEEL" >"$LIB.tmp" && mv "$LIB.tmp" "$LIB"
log "build: cargo build --bin uniffi-bindgen"
# Selected by --bin from the workspace root, exactly as maturin's
# `cargo run --bin uniffi-bindgen` selects it: the same features, so one
# build serves both (`-p acd-uniffi-bindgen` resolves its dependencies'
# features apart and built a second copy: about 110 s of a cold run).
(cd "$ROOT" && cargo build --locked --quiet --bin uniffi-bindgen)
BINDGEN="$TARGET_DIR/debug/uniffi-bindgen"
[ -s "$LIB" ] && [ -x "$BINDGEN" ] || die "no $LIB or $BINDGEN"

for language in "$@"; do
  rm -rf "$OUT/$language"
  mkdir -p "$OUT/$language"
  "$BINDGEN" generate --no-format --library "$LIB" --language "$language" \
    --out-dir "$OUT/$language" >/dev/null
  cp "$LIB" "$OUT/$language/"
  if [ "$language" = kotlin ]; then
    # The generated loader goes through dev.acd.NativeLibrary, which turns
    # JNA's bare "Unable to load library" on a platform the jar has no
    # library for into a typed error naming it (bindings/kotlin/.../NativeLibrary.kt).
    kt="$OUT/kotlin/acd/acd_ffi.kt"
    sed -i -E 's/Native\.register\(([A-Za-z]+)::class\.java, /dev.acd.NativeLibrary.register(\1::class.java, /' "$kt"
    [ "$(grep -c 'dev\.acd\.NativeLibrary\.register(' "$kt")" -eq 2 ] && ! grep -q 'Native\.register(' "$kt" ||
      die "$kt: expected the two Native.register calls of uniffi's loader to reroute (uniffi changed?)"
  fi
done
log "ok: generated $(joined "$@") bindings in ${OUT#"$ROOT"/}"
