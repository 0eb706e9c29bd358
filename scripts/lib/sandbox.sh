# shellcheck shell=bash
# Starts acd-sandbox for the binding examples. Source it, then:
#   start_sandbox CONFIG_JSON   sets SANDBOX_URL and SANDBOX_PID; a trap stops it
#   have_sandbox                true when the workspace has the sandbox crate
# Built with `cargo build --release -p acd-sandbox`, listening on a free port.

have_sandbox() { [ -f "$ROOT/sandbox/Cargo.toml" ]; }

stop_sandbox() {
  if [ -n "${SANDBOX_PID:-}" ]; then
    kill "$SANDBOX_PID" 2>/dev/null || true
    wait "$SANDBOX_PID" 2>/dev/null || true
    SANDBOX_PID=""
  fi
}

start_sandbox() {
  local config="$1" dir
  cargo build --release --locked --quiet -p acd-sandbox
  dir="$(mktemp -d)"
  printf '%s\n' "$config" >"$dir/sandbox.json"
  mkfifo "$dir/out"
  "${CARGO_TARGET_DIR:-$ROOT/target}/release/acd-sandbox" --listen 127.0.0.1:0 \
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
