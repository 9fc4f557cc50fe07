#!/usr/bin/env bash
# Installs what the project needs on a fresh machine, and nothing that is already there:
# Debian's Chromium and Firefox ESR (apt), and the npm dependencies (npm ci).
set -euo pipefail
cd "$(dirname "$0")/.."

need_browsers=()
[ -x /usr/bin/chromium ] || need_browsers+=(chromium)
[ -x /usr/bin/firefox-esr ] || need_browsers+=(firefox-esr)
# The browsers' own Hebrew (the end-to-end tests start them in Hebrew): Chromium's locales and
# Firefox's Hebrew language pack. Debian ships only English in the browser packages.
[ -f /usr/lib/chromium/locales/he.pak ] || need_browsers+=(chromium-l10n)
[ -f /usr/lib/firefox-esr/browser/extensions/langpack-he@firefox-esr.mozilla.org.xpi ] || need_browsers+=(firefox-esr-l10n-he)
if [ ${#need_browsers[@]} -gt 0 ]; then
  echo "setup: installing ${need_browsers[*]} with apt-get…"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then SUDO="sudo"; else
      echo "setup: need root (or sudo) to install ${need_browsers[*]}: apt-get install -y ${need_browsers[*]}" >&2
      exit 1
    fi
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_browsers[@]}" >/dev/null
fi

# npm ci when node_modules is missing or older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci…"
  npm ci --no-audit --no-fund
fi
