#!/usr/bin/env bash
# Makes a fresh machine of this kind ready: pnpm at the pinned version, the workspace's
# dependencies, Chromium for the browser tests, and PostgreSQL, Redis and RabbitMQ
# running. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

pnpm_version=$(node -p "require('./package.json').packageManager.split('@')[1]")
if [ "$(pnpm --version 2>/dev/null || true)" != "$pnpm_version" ]; then
  # Corepack's signature check fails against the registry's current keys; npm works.
  npm install -g "pnpm@$pnpm_version" --no-fund --no-audit --loglevel=error
fi

pnpm install --frozen-lockfile --reporter=append-only

# The browser tests (tests/browser) drive Debian's Chromium; Playwright never downloads one.
if [ ! -x /usr/bin/chromium ]; then
  apt_get() { if [ "$(id -u)" -eq 0 ]; then apt-get "$@"; else sudo apt-get "$@"; fi; }
  apt_get update -qq
  DEBIAN_FRONTEND=noninteractive apt_get install -y -qq chromium
fi

bash scripts/ensure-infra.sh
