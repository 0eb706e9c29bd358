#!/usr/bin/env bash
# Toolchain for the wasm32-unknown-unknown build (rustup cannot add targets here):
#  - Debian's rustc-web/cargo-web/rust-web-src (/usr/bin/rustc, builds std itself
#    with RUSTC_BOOTSTRAP=1 -Zbuild-std), rust-web-llvm (rust-lld, only a
#    Recommends of rustc-web, so it must be named with --no-install-recommends)
#    and lld-22 (what rust-lld links to)
#  - wasm-bindgen-cli into .cache/cargo-bin (version must equal the wasm-bindgen
#    crate in Cargo.lock)
#  - wasm-opt (npm binaryen) into .cache/node, unless WITH_WASM_OPT=0
# Usage: install-wasm-toolchain.sh [WASM_BINDGEN_VERSION]
# Version: argument > $WASM_BINDGEN_VERSION > Cargo.lock > default below.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

DEFAULT_WASM_BINDGEN_VERSION=0.2.130
BINARYEN_VERSION="${BINARYEN_VERSION:-132.0.0}"

lock_version() {  # version of the wasm-bindgen crate in Cargo.lock, if any
  [ -f "$ROOT/Cargo.lock" ] || return 0
  awk '/^name = "wasm-bindgen"$/ {f=1; next}
       f && /^version = / {gsub(/"/, "", $3); print $3; exit}' "$ROOT/Cargo.lock"
}
WB_VERSION="${1:-${WASM_BINDGEN_VERSION:-}}"
[ -n "$WB_VERSION" ] || WB_VERSION="$(lock_version)"
[ -n "$WB_VERSION" ] || WB_VERSION="$DEFAULT_WASM_BINDGEN_VERSION"

done_msgs=()

# 1. Debian Rust with std sources, and the linker rust-lld points to.
apt_pkgs=(rustc-web cargo-web rust-web-src rust-web-llvm lld-22)
need_apt=0
for p in "${apt_pkgs[@]}"; do deb_installed "$p" || need_apt=1; done
if [ "$need_apt" -eq 1 ]; then
  apt_install "${apt_pkgs[@]}"
  done_msgs+=("apt ${apt_pkgs[*]}")
fi
for f in /usr/bin/rustc /usr/bin/cargo /usr/bin/rust-lld; do
  [ -x "$f" ] || die "$f missing after install"
done

# 2. wasm-bindgen-cli, built with the default (rustup) cargo.
CARGO_BIN_ROOT="$CACHE_DIR/cargo-bin"
WB="$CARGO_BIN_ROOT/bin/wasm-bindgen"
wb_ok() { [ -x "$WB" ] && [ "$("$WB" --version 2>/dev/null)" = "wasm-bindgen $WB_VERSION" ]; }
if ! wb_ok; then
  need_cmd cargo
  with_lock cargo-bin
  if ! wb_ok; then
    log "wasm: cargo install --debug wasm-bindgen-cli $WB_VERSION (takes ~1 min)"
    # No --locked: its lock file names a webpki-roots release crates.io does not serve.
    # --debug without debug info: it builds in about 70 s instead of about
    # 170 s (release), and turns a module into the same glue in about 1 s
    # instead of 0.2 s (measured on acd's 2 MB module, identical output).
    CARGO_PROFILE_DEV_DEBUG=0 CARGO_INCREMENTAL=0 cargo install --quiet --force --debug \
      wasm-bindgen-cli --version "$WB_VERSION" --root "$CARGO_BIN_ROOT"
    wb_ok || die "wasm-bindgen $WB_VERSION not working after cargo install"
    done_msgs+=("wasm-bindgen-cli $WB_VERSION")
  fi
fi

# 3. wasm-opt (binaryen's npm build: JS + wasm, runs on node).
if [ "${WITH_WASM_OPT:-1}" != 0 ]; then
  npm_local_install binaryen "$BINARYEN_VERSION"
  if [ "$NPM_INSTALLED" = 1 ]; then
    "$NODE_PREFIX/node_modules/.bin/wasm-opt" --version >/dev/null || die "wasm-opt does not run"
    done_msgs+=("binaryen $BINARYEN_VERSION")
  fi
fi

if [ "${#done_msgs[@]}" -eq 0 ]; then
  log "ok: wasm toolchain already installed (wasm-bindgen $WB_VERSION)"
else
  log "ok: wasm toolchain installed: $(joined "${done_msgs[@]}")"
fi
