#!/usr/bin/env bash
# Builds the extension and starts it in a real browser with a fresh profile.
#   npm start              Chromium (Debian's), sidebar via the toolbar button → "Open sidebar"
#   npm start -- firefox   Firefox ESR, with the Sidequest sidebar open
# Without a display ($DISPLAY unset) the browser runs headless, which proves it starts; stop with Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
target="${1:-chromium}"
profile="$(mktemp -d "${TMPDIR:-/tmp}/sidequest-profile-XXXXXX")"
trap 'rm -rf "$profile"' EXIT
headless=()
[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || { echo "start: no display found, running headless"; headless=(--headless=new); }

case "$target" in
  chromium|chrome)
    npx wxt build >/dev/null
    dir="$PWD/.output/chrome-mv3"
    echo "start: Chromium with $dir (profile $profile)"
    exec /usr/bin/chromium "${headless[@]}" --no-first-run --disable-background-networking --disable-component-update \
      --disable-sync --user-data-dir="$profile" --disable-extensions-except="$dir" --load-extension="$dir" \
      $( [ "$(id -u)" -eq 0 ] && echo --no-sandbox ) about:blank
    ;;
  firefox)
    npx wxt build -b firefox >/dev/null
    dir="$PWD/.output/firefox-mv2"
    echo "start: Firefox ESR with $dir (profile $profile)"
    args=(--source-dir "$dir" --firefox /usr/bin/firefox-esr --firefox-profile "$profile" --no-reload --start-url about:blank)
    [ ${#headless[@]} -eq 0 ] || args+=(--arg=--headless)
    exec npx web-ext run "${args[@]}"
    ;;
  *) echo "usage: npm start -- [chromium|firefox]" >&2; exit 2 ;;
esac
