# Sourced by the recording scripts: start TRUST_SERVERS (default 2) single-slot local model servers
# on consecutive ports from 18080, stop them on exit, and set TRUST_URLS to their comma-separated
# base URLs for --trust-base-url (each request goes to the least busy server).
servers="${TRUST_SERVERS:-2}"
ports=()
for ((i = 0; i < servers; i++)); do ports+=($((18080 + i))); done
for port in "${ports[@]}"; do python scripts/local_model.py start --port "$port" || exit 1; done
trap 'for port in "${ports[@]}"; do python scripts/local_model.py stop --port "$port"; done' EXIT
TRUST_URLS=$(printf 'http://127.0.0.1:%s/v1,' "${ports[@]}")
TRUST_URLS="${TRUST_URLS%,}"
