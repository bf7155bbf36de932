#!/bin/sh
# Creates Tracker's Postgres roles and schemas (roles.sql) with the passwords from the
# environment. docker-compose.yml mounts it into the image's /docker-entrypoint-initdb.d,
# so it runs once, when the data volume is created; run it again by hand after changing a
# password or on a volume made before these roles existed:
#
#   docker compose exec postgres sh /docker-entrypoint-initdb.d/10-tracker-roles.sh
#
# The image's entrypoint may source this file rather than run it: no `set`, no `exit`;
# a missing variable or a failed statement stops it all the same (${VAR:?}, ON_ERROR_STOP).
psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet \
  --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-tracker}" \
  -v role_prefix="${TRACKER_ROLE_PREFIX:-tracker}" \
  -v migrator_password="${MIGRATOR_DB_PASSWORD:?MIGRATOR_DB_PASSWORD is not set}" \
  -v access_password="${ACCESS_DB_PASSWORD:?ACCESS_DB_PASSWORD is not set}" \
  -v issues_password="${ISSUES_DB_PASSWORD:?ISSUES_DB_PASSWORD is not set}" \
  -v statistics_password="${STATISTICS_DB_PASSWORD:?STATISTICS_DB_PASSWORD is not set}" \
  -v notifications_password="${NOTIFICATIONS_DB_PASSWORD:?NOTIFICATIONS_DB_PASSWORD is not set}" \
  -f "${TRACKER_ROLES_SQL:-/etc/tracker/roles.sql}"
