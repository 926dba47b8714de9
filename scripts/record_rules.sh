#!/usr/bin/env bash
# Record the RuLES suites (and the Hodor cases) against the local model, resuming where a previous
# run stopped: already-recorded items replay in milliseconds, missing ones are recorded, and every
# finished item is journaled at once, so a killed run loses at most the item in flight.
#   scripts/record_rules.sh [extra pytest args]
set -uo pipefail
cd "$(dirname "$0")/.."
port="${PYTEST_TRUST_PORT:-18080}"
python scripts/local_model.py start --port "$port" || exit 1
trap 'python scripts/local_model.py stop --port "$port"' EXIT
pytest suites/ -m "rules or rules_hodor" -p no:cacheprovider -q -rN \
  --record-mode=new_episodes --trust-base-url "http://127.0.0.1:$port/v1" --trust-soft "$@"
