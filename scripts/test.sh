#!/usr/bin/env bash
# The whole test suite: set-up, unit tests, then every build, then the end-to-end tests in real
# Chromium and Firefox ESR. Set E2E_BROWSERS=chromium (or firefox) to run the end-to-end tests in
# one only; E2E_JOBS=1 runs their files one at a time (default: three at a time).
#
#   bash scripts/test.sh              everything, in this order (what `npm test` runs)
#   bash scripts/test.sh unit e2e     only these steps, in the order given
#
# Steps: setup (apt browsers, npm ci), unit (vitest), build (build:all), e2e. `.ci/run` calls the
# steps one by one so that it runs the set-up and the builds once, with its own checks between.
set -euo pipefail
cd "$(dirname "$0")/.."

step_setup() {
  bash scripts/setup.sh
}

step_unit() {
  echo "== unit tests (vitest)"
  npx vitest run
}

step_build() {
  echo "== builds"
  npm run --silent build:all >/dev/null
}

step_e2e() {
  # Three files at a time (E2E_JOBS), the longest first: scripts/e2e.mjs.
  node scripts/e2e.mjs
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(setup unit build e2e)
for step in "${steps[@]}"; do
  case "$step" in
    setup | unit | build | e2e) "step_$step" ;;
    *) echo "scripts/test.sh: unknown step '$step' (setup, unit, build, e2e)" >&2; exit 2 ;;
  esac
done
