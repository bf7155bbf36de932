#!/usr/bin/env bash
# Builds one service's image, tagged with the version in its package.json, so each
# service ships on its own:
#
#   deploy/build-image.sh issues                 # tracker-issues:<version>
#   TRACKER_REGISTRY=registry.example.com/tracker deploy/build-image.sh --push issues
#                                                # also <registry>/issues:<version>, pushed
#   deploy/build-image.sh --if-docker issues     # what `pnpm --filter @tracker/issues build` runs:
#                                                # skips (exit 0) where no Docker engine answers
set -euo pipefail
cd "$(dirname "$0")/.."

if_docker=false
push=false
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --if-docker) if_docker=true ;;
    --push) push=true ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
  shift
done
service=${1:-}
case $service in
  gateway) port=8080 ;;
  access) port=8081 ;;
  issues) port=8082 ;;
  statistics) port=8083 ;;
  agent) port=8084 ;;
  web) port=8085 ;;
  notifications) port=8086 ;;
  *) echo "usage: deploy/build-image.sh [--if-docker] [--push] gateway|access|issues|statistics|agent|web|notifications" >&2; exit 64 ;;
esac

if ! docker info >/dev/null 2>&1; then
  if $if_docker; then
    echo "build-image: no Docker engine here; tracker-$service image not built (typecheck passed)."
    exit 0
  fi
  echo "build-image: no Docker engine answers (docker info failed)" >&2
  exit 1
fi

version=$(node -p "require('./services/$service/package.json').version")
tags=(-t "tracker-$service:$version")
if [[ -n ${TRACKER_REGISTRY:-} ]]; then tags+=(-t "$TRACKER_REGISTRY/$service:$version"); fi

docker build -f deploy/Dockerfile \
  --build-arg "SERVICE=$service" --build-arg "PORT=$port" --build-arg "VERSION=$version" \
  "${tags[@]}" .

if $push; then
  [[ -n ${TRACKER_REGISTRY:-} ]] || { echo "--push needs TRACKER_REGISTRY" >&2; exit 64; }
  docker push "$TRACKER_REGISTRY/$service:$version"
fi
