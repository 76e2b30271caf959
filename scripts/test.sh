#!/usr/bin/env bash
# npm test: every test on SQLite and, at the same time, the e2e suite again with every service on PostgreSQL.
# npm test -- <files or options>: just those, as `hardhat test` takes them (SQLite; TEST_DATABASE=postgres for the other).
set -euo pipefail
cd "$(dirname "$0")/.."
# The client package is tested as users install it: built first, imported as @idwallet/client.
npm run --silent build -w sdk
if [ $# -gt 0 ]; then exec npx hardhat test "$@"; fi
npx hardhat compile --quiet
# The public ERC-7562 bundler the e2e suite runs, installed apart from its lock file when missing (docs/dependencies.md).
if [ ! -d tools/alto/node_modules/@pimlico/alto ]; then npm ci --prefix tools/alto --no-audit --no-fund; fi
# Three runs at once, as they mostly wait on chains and processes: the e2e suite on SQLite, the e2e suite again with
# every service on PostgreSQL, and everything else (contracts, units, API, robustness) in the foreground.
rest_log=$(mktemp)
sqlite_e2e_log=$(mktemp)
postgres_log=$(mktemp)
trap 'rm -f "$rest_log" "$sqlite_e2e_log" "$postgres_log"' EXIT
npx hardhat test --no-compile test/e2e/*.test.ts >"$sqlite_e2e_log" 2>&1 &
sqlite_e2e_run=$!
TEST_DATABASE=postgres npx hardhat test --no-compile test/e2e/*.test.ts >"$postgres_log" 2>&1 &
postgres_run=$!
sqlite_status=0
# shellcheck disable=SC2046 # one file a word: the test files have no spaces in their names
npx hardhat test --no-compile $(find test -name '*.ts' ! -path 'test/e2e/*' | sort) 2>&1 | tee "$rest_log" ||
  sqlite_status=$?
sqlite_e2e_status=0
wait "$sqlite_e2e_run" || sqlite_e2e_status=$?
postgres_status=0
wait "$postgres_run" || postgres_status=$?
echo
echo "=== the e2e suite on SQLite ==="
cat "$sqlite_e2e_log"
echo
echo "=== the e2e suite again, every service on PostgreSQL ==="
cat "$postgres_log"
# Each run's tally and failures once more at the very end, where a log cut to its tail still shows them all.
echo
for lane in "everything but e2e, on SQLite:$rest_log" "the e2e suite on SQLite:$sqlite_e2e_log" \
  "the e2e suite on PostgreSQL:$postgres_log"; do
  echo "=== ${lane%%:*} ==="
  if grep -q '^  [0-9]* passing' "${lane#*:}"; then sed -n '/^  [0-9]* passing/,$p' "${lane#*:}"; else tail -40 "${lane#*:}"; fi
done
if [ "$sqlite_status" -ne 0 ] || [ "$sqlite_e2e_status" -ne 0 ] || [ "$postgres_status" -ne 0 ]; then
  echo "npm test: failed (exit codes: the rest $sqlite_status, e2e on SQLite $sqlite_e2e_status, e2e on PostgreSQL $postgres_status)" >&2
  exit 1
fi
