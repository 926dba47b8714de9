#!/usr/bin/env bash
# Record a seeded subset (TRUST_LIMIT items per scenario, default 20) of DecodingTrust's classification
# perspectives against the local model: two single-slot servers, one pytest session on each, with
# disjoint perspectives. Resumes where a previous run stopped: recorded items replay in milliseconds,
# missing ones are recorded, and every finished item is journaled at once.
#   scripts/record_decodingtrust.sh [extra pytest args]
set -uo pipefail
cd "$(dirname "$0")/.."
limit="${TRUST_LIMIT:-20}"
groups=("ood or advglue or machine_ethics" "adv_demonstration or fairness")
ports=(18080 18081)
for port in "${ports[@]}"; do python scripts/local_model.py start --port "$port" || exit 1; done
trap 'for port in "${ports[@]}"; do python scripts/local_model.py stop --port "$port"; done' EXIT
pids=()
for i in 0 1; do
  pytest suites/ -m "${groups[$i]}" -p no:cacheprovider -q -rN --tb=no --trust-limit "$limit" \
    --record-mode=new_episodes --trust-base-url "http://127.0.0.1:${ports[$i]}/v1" --trust-soft "$@" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
exit "$status"
