#!/usr/bin/env bash
# Record the RuLES suites against the local model, resuming where a previous
# run stopped: already-recorded items replay in milliseconds, missing ones are recorded, and every
# finished item is journaled at once, so a killed run loses at most the items in flight.
# TRUST_SERVERS single-slot servers (default 2, one per core) record that many items at once.
#   scripts/record_rules.sh [extra pytest args]
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/local_servers.sh
pytest suites/ -m rules -p no:cacheprovider -q -rN --tb=no \
  --record-mode=new_episodes --trust-base-url "$TRUST_URLS" --trust-concurrency "$servers" --trust-soft "$@"
