#!/usr/bin/env bash
# Starts the local PostgreSQL, Redis and RabbitMQ if they are not answering
# (the commands of this machine kind; see the README for other machines).
set -euo pipefail

wait_for() { # name, check command
  for _ in $(seq 1 60); do
    if eval "$2" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  echo "$1 did not come up" >&2
  return 1
}

need() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "Installing PostgreSQL, Redis and RabbitMQ from Debian's packages..."
    apt-get update -qq && apt-get install -y -qq postgresql redis-server rabbitmq-server
  fi
}

need pg_isready
if ! pg_isready -h 127.0.0.1 -q; then
  echo "Starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
  wait_for PostgreSQL "pg_isready -h 127.0.0.1 -q"
fi

need redis-cli
if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  echo "Starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for Redis "redis-cli -h 127.0.0.1 ping"
fi

need rabbitmq-diagnostics
if ! rabbitmq-diagnostics -q ping >/dev/null 2>&1; then
  echo "Starting RabbitMQ"
  rabbitmq-server -detached
  wait_for RabbitMQ "rabbitmq-diagnostics -q ping"
fi
echo "PostgreSQL, Redis and RabbitMQ are up."
