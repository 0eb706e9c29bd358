#!/usr/bin/env bash
# Debian's redis-server (/usr/bin/redis-server, plus redis-cli/redis-benchmark).
# Installed only; never started here (tests start their own instance, e.g.
# redis-server --port 0 --unixsocket ... --save '' --appendonly no).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if deb_installed redis-server && [ -x /usr/bin/redis-server ]; then
  log "ok: redis-server already installed"
  exit 0
fi
APT_NO_START=1 apt_install redis-server
[ -x /usr/bin/redis-server ] || die "/usr/bin/redis-server missing after install"
log "ok: installed $(/usr/bin/redis-server --version | cut -d' ' -f1-3)"
