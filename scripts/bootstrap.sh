#!/usr/bin/env bash
# Makes a fresh machine of this kind ready: pnpm at the pinned version, the workspace's
# dependencies, Chromium for the browser tests, kubectl for the deployment tests, and
# PostgreSQL, Redis and RabbitMQ running. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

pnpm_version=$(node -p "require('./package.json').packageManager.split('@')[1]")
if [ "$(pnpm --version 2>/dev/null || true)" != "$pnpm_version" ]; then
  # Corepack's signature check fails against the registry's current keys; npm works.
  npm install -g "pnpm@$pnpm_version" --no-fund --no-audit --loglevel=error
fi

pnpm install --frozen-lockfile --reporter=append-only

apt_get() { if [ "$(id -u)" -eq 0 ]; then apt-get "$@"; else sudo apt-get "$@"; fi; }
apt_updated=
apt_update_once() { [ -n "$apt_updated" ] || { apt_get update -qq; apt_updated=1; }; }

# The browser tests (tests/browser) drive Debian's Chromium; Playwright never downloads one.
if [ ! -x /usr/bin/chromium ]; then
  apt_update_once
  DEBIAN_FRONTEND=noninteractive apt_get install -y -qq chromium
fi

# The deployment tests (tests/deploy) render deploy/k8s with kubectl's kustomize (5.0 or newer).
if ! command -v kubectl >/dev/null; then
  apt_update_once
  if ! apt-cache show kubectl >/dev/null 2>&1; then
    echo "bootstrap: no apt source offers kubectl, which tests/deploy needs (its kustomize renders deploy/k8s)." >&2
    echo "bootstrap: add an apt source that has it (the Kubernetes project's, pkgs.k8s.io), or install kubectl 1.27 or newer another way, then run this again." >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt_get install -y -qq kubectl
fi

bash scripts/ensure-infra.sh
