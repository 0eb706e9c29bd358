#!/usr/bin/env bash
# Kotlin compiler (npm package kotlin-compiler, unpacked into .cache/kotlin) and
# JNA from Debian (/usr/share/java/jna.jar).
#   kotlinc:  .cache/kotlin/bin/kotlinc
#   stdlib:   .cache/kotlin/lib/kotlin-stdlib.jar
# Usage: install-kotlin.sh [KOTLIN_VERSION]   (default below, or $KOTLIN_VERSION)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

KOTLIN_VERSION="${1:-${KOTLIN_VERSION:-2.4.20}}"
KOTLIN_HOME="$CACHE_DIR/kotlin"
STAMP="$KOTLIN_HOME/.acd-version"

done_msgs=()

if ! deb_installed libjna-java; then
  apt_install libjna-java
  done_msgs+=("libjna-java")
fi
[ -f /usr/share/java/jna.jar ] || die "/usr/share/java/jna.jar missing"

kotlin_ok() { [ -x "$KOTLIN_HOME/bin/kotlinc" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$KOTLIN_VERSION" ]; }
if ! kotlin_ok; then
  need_cmd npm tar java
  with_lock kotlin
  if ! kotlin_ok; then
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    ( cd "$tmp" && npm pack --silent --loglevel=error "kotlin-compiler@$KOTLIN_VERSION" >/dev/null )
    mkdir -p "$tmp/x"
    tar -xzf "$tmp"/kotlin-compiler-*.tgz -C "$tmp/x"
    chmod +x "$tmp/x/package/bin/"*
    [ -f "$tmp/x/package/lib/kotlin-stdlib.jar" ] || die "kotlin-compiler tarball has no lib/kotlin-stdlib.jar"
    rm -rf "$KOTLIN_HOME"
    mkdir -p "$CACHE_DIR"
    mv "$tmp/x/package" "$KOTLIN_HOME"
    echo "$KOTLIN_VERSION" >"$STAMP"
    done_msgs+=("kotlin-compiler $KOTLIN_VERSION")
  fi
fi

if [ "${#done_msgs[@]}" -eq 0 ]; then
  log "ok: kotlin $KOTLIN_VERSION and JNA already installed"
else
  log "ok: installed $(joined "${done_msgs[@]}")"
fi
