#!/usr/bin/env bash
# Lays out the browser dashboard as acd-sandbox embeds it (cargo feature
# `dashboard`, ACD_DASHBOARD_DIR): the page (wasm/demo) with the package as
# installed under acd/ (acd/js, acd/pkg), the layout the page imports from.
# Needs the built wasm package (scripts/lib/build-wasm.sh writes wasm/pkg).
# Usage: stage-dashboard.sh DIR   (DIR is emptied first)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$#" -eq 1 ] || die "usage: $0 DIR"
out="$1"
[ -f "$ROOT/wasm/pkg/acd_client_bg.wasm" ] || die "the wasm package is not built: run scripts/lib/build-wasm.sh"
rm -rf "$out"
mkdir -p "$out/acd/js" "$out/acd/pkg"
cp -R "$ROOT/wasm/demo/." "$out/"
cp "$ROOT"/wasm/js/*.js "$out/acd/js/"
cp -L "$ROOT"/wasm/pkg/*.js "$ROOT"/wasm/pkg/*.wasm "$out/acd/pkg/"
[ -f "$out/index.html" ] || die "no index.html in $out"
log "ok: dashboard staged in ${out#"$ROOT"/}"
