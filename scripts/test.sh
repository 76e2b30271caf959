#!/usr/bin/env bash
# npm test: every test on SQLite, then the e2e suite again with every service on PostgreSQL.
# npm test -- <files or options>: just those, as `hardhat test` takes them (SQLite; TEST_DATABASE=postgres for the other).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then exec npx hardhat test "$@"; fi
npx hardhat test
TEST_DATABASE=postgres npx hardhat test --no-compile test/e2e/*.test.ts
