#!/usr/bin/env bash
# Record RuLES v1 (suites justask, systematic, manual) and the violation-detection task against the local
# model, resuming where a previous run stopped: recorded items replay in milliseconds, missing ones are
# recorded, every finished item is journaled at once. TRUST_SERVERS single-slot servers (default 2, one
# per core) record that many items at once. TRUST_MARKERS picks what (default: both benchmarks);
# TRUST_LIMIT records a seeded subset of that many items per scenario file (default: every item).
#   TRUST_MARKERS="rules_v1 and justask" scripts/record_rules_v1.sh [extra pytest args]
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/local_servers.sh
limit=()
[ -n "${TRUST_LIMIT:-}" ] && limit=(--trust-limit "$TRUST_LIMIT")
pytest suites/ -m "${TRUST_MARKERS:-rules_v1 or rules_detection}" "${limit[@]}" -p no:cacheprovider -q -rN --tb=no \
  --record-mode=new_episodes --trust-base-url "$TRUST_URLS" --trust-concurrency "$servers" --trust-soft "$@"
