#!/usr/bin/env bash
# A throwaway PostgreSQL primary and its streaming replica on this machine, for the read
# replica tests (tests/integration/read-replicas.test.ts, docs/decisions/265):
#
#   scripts/replica.sh start   # prints TEST_PRIMARY_URL=... and TEST_REPLICA_URL=...
#   scripts/replica.sh stop    # stops both and removes their directory
#   scripts/replica.sh stop-replica | start-replica   # the standby alone (a replica that is down)
#
# A fresh cluster (initdb, trust authentication, replication allowed from 127.0.0.1) on
# REPLICA_PRIMARY_PORT (5441), copied with pg_basebackup -R into a hot standby on
# REPLICA_PORT (5442) that streams from it. Both live in REPLICA_DIR
# (/tmp/inkstone-replica-pair). Neither is durable (fsync off): they exist for a test run.
# `start` on a pair that already runs only prints the URLs. The PostgreSQL programs run as
# the postgres OS user when started as root (initdb and pg_ctl refuse root).
set -euo pipefail

PRIMARY_PORT=${REPLICA_PRIMARY_PORT:-5441}
REPLICA_PORT=${REPLICA_PORT:-5442}
DIR=${REPLICA_DIR:-/tmp/inkstone-replica-pair}
BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}

as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

urls() {
  echo "TEST_PRIMARY_URL=postgres://postgres@127.0.0.1:$PRIMARY_PORT/postgres"
  echo "TEST_REPLICA_URL=postgres://postgres@127.0.0.1:$REPLICA_PORT/postgres"
}

stop() {
  for node in replica primary; do
    [ -f "$DIR/$node/postmaster.pid" ] && as_pg "$BIN/pg_ctl" -D "$DIR/$node" -m immediate -w stop >/dev/null 2>&1 || true
  done
  rm -rf "$DIR"
}

start() {
  if "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PRIMARY_PORT" && "$BIN/pg_isready" -q -h 127.0.0.1 -p "$REPLICA_PORT"; then
    urls
    return
  fi
  stop
  mkdir -p "$DIR"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$DIR"
  as_pg "$BIN/initdb" -D "$DIR/primary" -U postgres -A trust --no-sync -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log"
  cat >>"$DIR/primary/postgresql.conf" <<EOF
port = $PRIMARY_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
fsync = off
synchronous_commit = on
full_page_writes = off
wal_level = replica
max_wal_senders = 5
hot_standby = on
max_connections = 100
shared_buffers = 32MB
EOF
  echo "host replication postgres 127.0.0.1/32 trust" >>"$DIR/primary/pg_hba.conf"
  as_pg "$BIN/pg_ctl" -D "$DIR/primary" -l "$DIR/primary.log" -w start >/dev/null
  # -R writes standby.signal and primary_conninfo: the copy starts as a standby of the primary.
  as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$DIR/replica" -R -X stream --no-sync -c fast
  sed -i "s/^port = $PRIMARY_PORT/port = $REPLICA_PORT/" "$DIR/replica/postgresql.conf"
  as_pg "$BIN/pg_ctl" -D "$DIR/replica" -l "$DIR/replica.log" -w start >/dev/null
  # Streaming once the primary lists the standby's connection.
  for _ in $(seq 1 100); do
    n=$(psql -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -d postgres -Atqc "select count(*) from pg_stat_replication where state = 'streaming'")
    [ "$n" = 1 ] && break
    sleep 0.1
  done
  [ "$n" = 1 ] || { echo "the replica is not streaming (see $DIR/replica.log)" >&2; exit 1; }
  urls
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  stop-replica) as_pg "$BIN/pg_ctl" -D "$DIR/replica" -m fast -w stop >/dev/null ;;
  start-replica) as_pg "$BIN/pg_ctl" -D "$DIR/replica" -l "$DIR/replica.log" -w start >/dev/null ;;
  *) echo "usage: $0 start|stop|stop-replica|start-replica" >&2; exit 2 ;;
esac
