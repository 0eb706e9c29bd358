#!/usr/bin/env bash
# Debian's redis-server and redis-tools (/usr/bin/redis-server, redis-cli,
# redis-benchmark; redis-cli --cluster joins the test cluster).
# Installed only; never started here (tests start their own instance, e.g.
# redis-server --port 0 --unixsocket ... --save '' --appendonly no).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if deb_installed redis-server && deb_installed redis-tools \
  && [ -x /usr/bin/redis-server ] && [ -x /usr/bin/redis-cli ]; then
  log "ok: redis-server already installed"
  exit 0
fi
APT_NO_START=1 apt_install redis-server redis-tools
[ -x /usr/bin/redis-server ] || die "/usr/bin/redis-server missing after install"
[ -x /usr/bin/redis-cli ] || die "/usr/bin/redis-cli missing after install"
log "ok: installed $(/usr/bin/redis-server --version | cut -d' ' -f1-3)"
