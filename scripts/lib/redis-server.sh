# shellcheck shell=bash
# A throwaway redis-server on a free loopback port. Source it (after
# common.sh), then:
#   redis_start [EXTRA_ARGS...]  starts it; sets REDIS_PID REDIS_PORT REDIS_URL REDIS_DIR
#   redis_stop                   stops it by pid and removes its data dir
# No persistence (--save '' --appendonly no); fails loudly when it cannot start.
# Callers install it first (scripts/lib/install-redis.sh) and should
# `trap redis_stop EXIT`.

REDIS_PID=""
REDIS_PORT=""
REDIS_URL=""
REDIS_DIR=""

_redis_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

redis_start() {
  need_cmd redis-server redis-cli python3
  REDIS_DIR="$(mktemp -d "${TMPDIR:-/tmp}/acd-redis.XXXXXX")"
  local attempt
  for attempt in 1 2 3 4 5; do
    REDIS_PORT="$(_redis_free_port)"
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
      --daemonize no --dir "$REDIS_DIR" --logfile "$REDIS_DIR/redis.log" "$@" &
    REDIS_PID=$!
    local i
    for i in $(seq 1 200); do
      if ! kill -0 "$REDIS_PID" 2>/dev/null; then break; fi
      if [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; then
        REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
        log "redis: $(redis-server --version | cut -d' ' -f1-3) pid $REDIS_PID at $REDIS_URL"
        return 0
      fi
      sleep 0.05
    done
    kill "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
    log "redis: attempt $attempt on port $REDIS_PORT failed; retrying"
  done
  tail -n 20 "$REDIS_DIR/redis.log" >&2 2>/dev/null || true
  die "redis-server did not start"
}

redis_stop() {
  if [ -n "$REDIS_PID" ] && kill -0 "$REDIS_PID" 2>/dev/null; then
    kill -TERM "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
  fi
  REDIS_PID=""
  if [ -n "$REDIS_DIR" ]; then rm -rf "$REDIS_DIR"; REDIS_DIR=""; fi
}
