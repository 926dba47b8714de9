#!/usr/bin/env bash
# Record a seeded subset (TRUST_LIMIT items per scenario, default 20) of DecodingTrust's perspectives
# against the local model: TRUST_SERVERS single-slot servers (default 2, one per core) behind one
# comma-separated base URL, that many items at once. Resumes where a previous run stopped: recorded
# items replay in milliseconds, missing ones are recorded, and every finished item is journaled at once.
# The sampling perspectives (toxicity, stereotype, privacy) use TRUST_SAMPLING_LIMIT (default 1) items per scenario;
# toxicity's eight template runs, of which toxicity.score is made, TRUST_TOXICITY_LIMIT (default 20: the fewest
# prompts a run's interval needs, docs/intervals.md); stereotype's 48 scenarios TRUST_STEREOTYPE_LIMIT (default 7:
# 112 prompts a system prompt type, above the 100 a resampled interval needs).
#   scripts/record_decodingtrust.sh [extra pytest args]
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/local_servers.sh
common=(-p no:cacheprovider -q -rN --tb=no --record-mode=new_episodes --trust-base-url "$TRUST_URLS"
        --trust-concurrency "$servers" --trust-soft)
pytest suites/ -m "ood or advglue or machine_ethics or adv_demonstration or fairness" \
  --trust-limit "${TRUST_LIMIT:-20}" "${common[@]}" "$@" || status=$?
pytest suites/ -m toxicity -k template --trust-limit "${TRUST_TOXICITY_LIMIT:-20}" "${common[@]}" "$@" || status=$?
pytest suites/ -m stereotype --trust-limit "${TRUST_STEREOTYPE_LIMIT:-7}" "${common[@]}" "$@" || status=$?
pytest suites/ -m "toxicity or stereotype or privacy" --trust-limit "${TRUST_SAMPLING_LIMIT:-1}" "${common[@]}" "$@" || status=$?
exit "${status:-0}"
