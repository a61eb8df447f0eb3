#!/usr/bin/env bash
# Start a throw-away PostgreSQL server on loopback for the store tests; print its URL.
# Installs Debian's postgresql when the server binaries are missing (CI machines start bare).
set -euo pipefail
PORT="${GPUWISE_PG_PORT:-54329}"
DATA="${GPUWISE_PG_DATA:-/tmp/gpuwise-pg-$PORT}"
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$BIN" ] || [ ! -x "$BIN/initdb" ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) >&2
  BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi
id postgres >/dev/null 2>&1 || useradd --system --home /var/lib/postgresql postgres
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ ! -f "$DATA/PG_VERSION" ]; then
  mkdir -p "$DATA" && chown postgres "$DATA" 2>/dev/null || true
  as_pg "$BIN/initdb" -D "$DATA" -A trust -U postgres >/dev/null
fi
if ! as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  as_pg "$BIN/pg_ctl" -D "$DATA" -o "-p $PORT -k /tmp -c listen_addresses=127.0.0.1" -l "$DATA/server.log" -w start >/dev/null
fi
as_pg "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -tc "SELECT 1 FROM pg_database WHERE datname='gpuwise_test'" \
  | grep -q 1 || as_pg "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres gpuwise_test
echo "postgresql://postgres@127.0.0.1:$PORT/gpuwise_test"
