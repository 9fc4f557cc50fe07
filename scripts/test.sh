#!/usr/bin/env bash
# The whole test suite: unit tests, then every build, then the end-to-end tests in real Chromium
# and Firefox ESR. Set E2E_BROWSERS=chromium (or firefox) to run the end-to-end tests in one only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

echo "== unit tests (vitest)"
npx vitest run

echo "== builds"
npm run --silent build:all >/dev/null

echo "== end-to-end tests (Chromium + Firefox)"
node --test --test-concurrency=1 --test-reporter=spec tests/e2e/
