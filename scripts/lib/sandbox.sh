# shellcheck shell=bash
# Starts acd-sandbox for the binding examples. Source it, then:
#   start_sandbox CONFIG_JSON   sets SANDBOX_URL and SANDBOX_PID; a trap stops it
#   have_sandbox                true when the workspace has the sandbox crate
#   sandbox_bin                 builds the binary (if needed) and prints its path
# The binary is the one scripts/dist ships (scripts/lib/build-dist-native.sh:
# release, linked for glibc 2.17), so a test run compiles the sandbox's
# release dependencies once, and the suites test the binary users get. It
# listens on a free port.

have_sandbox() { [ -f "$ROOT/sandbox/Cargo.toml" ]; }

stop_sandbox() {
  if [ -n "${SANDBOX_PID:-}" ]; then
    kill "$SANDBOX_PID" 2>/dev/null || true
    wait "$SANDBOX_PID" 2>/dev/null || true
    SANDBOX_PID=""
  fi
}

sandbox_bin() {
  bash "$ROOT/scripts/lib/install-dist-tools.sh" >/dev/null &&
    bash "$ROOT/scripts/lib/build-dist-native.sh" bins >/dev/null &&
    printf '%s\n' "${CARGO_TARGET_DIR:-$ROOT/target}/dist/x86_64-unknown-linux-gnu/release/acd-sandbox"
}

start_sandbox() {
  local config="$1" dir
  stop_sandbox   # one at a time: a second start never loses the first's pid
  SANDBOX_BIN="$(sandbox_bin)" || die "could not build acd-sandbox"
  export SANDBOX_BIN
  dir="$(mktemp -d)"
  printf '%s\n' "$config" >"$dir/sandbox.json"
  mkfifo "$dir/out"
  "$SANDBOX_BIN" --listen 127.0.0.1:0 \
    --config "$dir/sandbox.json" >"$dir/out" 2>"$dir/err" &
  SANDBOX_PID=$!
  trap stop_sandbox EXIT
  local line=""
  exec {SANDBOX_FD}<"$dir/out"
  read -r -t 30 line <&"$SANDBOX_FD" || true
  cat <&"$SANDBOX_FD" >/dev/null &   # keep draining its stdout
  case "$line" in
    "acd-sandbox listening on "*) SANDBOX_URL="${line#acd-sandbox listening on }" ;;
    *) cat "$dir/err" >&2; die "acd-sandbox did not start (first line: ${line:-none})" ;;
  esac
  export SANDBOX_URL SANDBOX_PID
}
