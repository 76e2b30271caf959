#!/usr/bin/env bash
# npm test: every test on SQLite and, at the same time, the e2e suite again with every service on PostgreSQL (the two
# runs mostly wait on chains and processes, so together they take little longer than the longer one).
# npm test -- <files or options>: just those, as `hardhat test` takes them (SQLite; TEST_DATABASE=postgres for the other).
set -euo pipefail
cd "$(dirname "$0")/.."
# The client package is tested as users install it: built first, imported as @idwallet/client.
npm run --silent build -w sdk
if [ $# -gt 0 ]; then exec npx hardhat test "$@"; fi
npx hardhat compile --quiet
postgres_log=$(mktemp)
trap 'rm -f "$postgres_log"' EXIT
TEST_DATABASE=postgres npx hardhat test --no-compile test/e2e/*.test.ts >"$postgres_log" 2>&1 &
postgres_run=$!
sqlite_status=0
npx hardhat test --no-compile || sqlite_status=$?
postgres_status=0
wait "$postgres_run" || postgres_status=$?
echo
echo "=== the e2e suite again, every service on PostgreSQL ==="
cat "$postgres_log"
if [ "$sqlite_status" -ne 0 ] || [ "$postgres_status" -ne 0 ]; then
  echo "npm test: failed (SQLite run exit $sqlite_status, PostgreSQL e2e run exit $postgres_status)" >&2
  exit 1
fi
