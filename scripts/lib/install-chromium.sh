#!/usr/bin/env bash
# Headless browser for wasm tests: Debian's chromium (/usr/bin/chromium) and
# chromium-driver, plus playwright-core in .cache/node to drive it
# (launch with executablePath '/usr/bin/chromium'; `npx playwright install` does
# not work here). Check: node scripts/lib/check-chromium.mjs
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PLAYWRIGHT_CORE_VERSION="${PLAYWRIGHT_CORE_VERSION:-1.65.1}"
done_msgs=()

if ! deb_installed chromium || ! deb_installed chromium-driver; then
  apt_install chromium chromium-driver
  done_msgs+=("chromium chromium-driver")
fi
[ -x /usr/bin/chromium ] || die "/usr/bin/chromium missing"

npm_local_install playwright-core "$PLAYWRIGHT_CORE_VERSION"
[ "$NPM_INSTALLED" = 1 ] && done_msgs+=("playwright-core $PLAYWRIGHT_CORE_VERSION")

if [ "${#done_msgs[@]}" -eq 0 ]; then
  log "ok: chromium and playwright-core $PLAYWRIGHT_CORE_VERSION already installed"
else
  log "ok: installed $(joined "${done_msgs[@]}")"
fi
