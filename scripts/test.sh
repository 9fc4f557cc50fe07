#!/usr/bin/env bash
# The whole test suite: set-up, unit tests, then every build, then the end-to-end tests in real
# Chromium and Firefox ESR. Set E2E_BROWSERS=chromium (or firefox) to run the end-to-end tests in
# one only; E2E_JOBS=1 runs their files one at a time (default: two at a time).
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
  # Two files at a time (E2E_JOBS): a file's browser mostly waits (on its pages, the scripted
  # model, timers), so two keep a two-core machine busy. The slowest files start first (as CI's
  # table of times showed them), so that the last ones to finish are short; files not named here
  # follow in name order.
  local jobs="${E2E_JOBS:-2}"
  local slowest=(memory skills providers approval-card i18n-a11y page-tools builtin-plugins chat vision page-actions envelope page-tools-spec mcp page-actions-pages data web)
  local files=() name file
  for name in "${slowest[@]}"; do
    [ -f "tests/e2e/$name.test.mjs" ] && files+=("tests/e2e/$name.test.mjs")
  done
  for file in tests/e2e/*.test.mjs; do
    [[ " ${files[*]} " == *" $file "* ]] || files+=("$file")
  done
  echo "== end-to-end tests (Chromium + Firefox), ${#files[@]} files, $jobs at a time"
  # With SIDEQUEST_TIMINGS_DIR set (.ci/run sets it), each file's time in each browser is also
  # written there (scripts/timings-reporter.mjs), for the table scripts/timings.mjs prints.
  local reporters=(--test-reporter=spec)
  if [ -n "${SIDEQUEST_TIMINGS_DIR:-}" ]; then
    reporters=(--test-reporter=spec --test-reporter-destination=stdout
      --test-reporter=./scripts/timings-reporter.mjs --test-reporter-destination="$SIDEQUEST_TIMINGS_DIR/e2e.jsonl")
  fi
  node --test --test-concurrency="$jobs" "${reporters[@]}" "${files[@]}"
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(setup unit build e2e)
for step in "${steps[@]}"; do
  case "$step" in
    setup | unit | build | e2e) "step_$step" ;;
    *) echo "scripts/test.sh: unknown step '$step' (setup, unit, build, e2e)" >&2; exit 2 ;;
  esac
done
