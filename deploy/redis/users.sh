#!/bin/sh
# Prints Tracker's Redis users, one ACL rule line per service (`user <name> ...`), from the
# passwords in the environment; the default user is switched off. docker-compose.yml
# runs it in the Redis container and hands the lines to redis-server as its configuration
# (on standard input, never on disk or on the command line). For a Redis of your own, the
# output is an ACL file (`aclfile`), or each line without its leading `user` is an
# `ACL SETUSER` (deploy/README.md, "Kubernetes").
#
#   GATEWAY_REDIS_PASSWORD=... ACCESS_REDIS_PASSWORD=... ISSUES_REDIS_PASSWORD=... \
#   STATISTICS_REDIS_PASSWORD=... AGENT_REDIS_PASSWORD=... NOTIFICATIONS_REDIS_PASSWORD=... sh users.sh
#
# Passwords are written as their SHA-256 (`#<hex>`), so the output holds no password.
# What each user may do (commands, and key patterns: `~` read and write, `%R~` read only,
# `%W~` write only; deploy/README.md has the table). Every user may run INFO, which the
# client library sends once per connection to see whether Redis is ready.
#   tracker-gateway     EVAL/EVALSHA of its lookup script, GET and EXISTS: reads the signed
#                       token cache auth:tok:* and the freshness key authz:fresh; INCR and
#                       EXPIRE only on its counters rl:* (requests per token) and af:*
#                       (failed authentications per client). EVAL names every key it touches
#                       and Redis checks them as read-write, so the script's keys are listed
#                       in full; what runs inside is checked command by command, and writes
#                       reach only rl:* and af:* (the selector in parentheses).
#   tracker-access      SET and DEL, write only, on the caches it signs (auth:tok:*,
#                       acl:user:*, authz:fresh); SET on its own ticket ids seen:access:*;
#                       MGET, INCR and EXPIRE on its sign-in failure counters signin:*
#                       (the selector in parentheses)
#   tracker-issues      GET and EXISTS, read only, on acl:user:* and authz:fresh; SET on its
#   tracker-statistics  own ticket ids (seen:issues:*, seen:statistics:*,
#   tracker-notifications  seen:notifications:*)
#   tracker-agent       SET on its own ticket ids seen:agent:*
# No user may read or write another's ticket ids, use any other command (no KEYS, SCAN,
# FLUSH*, CONFIG, ACL, MULTI, DEBUG), subscribe to a channel, or see another's keys.
set -eu

hash_of() {
  printf '%s' "$1" | sha256sum | cut -d ' ' -f 1
}

for name in GATEWAY_REDIS_PASSWORD ACCESS_REDIS_PASSWORD ISSUES_REDIS_PASSWORD STATISTICS_REDIS_PASSWORD AGENT_REDIS_PASSWORD NOTIFICATIONS_REDIS_PASSWORD; do
  eval "value=\${$name:-}"
  # The value goes into a URL (REDIS_URL): refuse what would need escaping there, and short ones.
  case $value in
    '') echo "users.sh: $name is not set" >&2; exit 1 ;;
    *[!A-Za-z0-9._~-]*) echo "users.sh: $name may hold only letters, digits and . _ ~ -" >&2; exit 1 ;;
  esac
  if [ "${#value}" -lt 16 ]; then echo "users.sh: $name is shorter than 16 characters" >&2; exit 1; fi
done

echo 'user default reset'
echo "user tracker-gateway reset on #$(hash_of "$GATEWAY_REDIS_PASSWORD") +eval +evalsha +get +exists +info ~auth:tok:* ~authz:fresh ~rl:* ~af:* (+incr +expire ~rl:* ~af:*)"
echo "user tracker-access reset on #$(hash_of "$ACCESS_REDIS_PASSWORD") +set +del +info %W~auth:tok:* %W~acl:user:* %W~authz:fresh %W~seen:access:* (+mget +incr +expire ~signin:*)"
echo "user tracker-issues reset on #$(hash_of "$ISSUES_REDIS_PASSWORD") +get +exists +set +info %R~acl:user:* %R~authz:fresh %W~seen:issues:*"
echo "user tracker-statistics reset on #$(hash_of "$STATISTICS_REDIS_PASSWORD") +get +exists +set +info %R~acl:user:* %R~authz:fresh %W~seen:statistics:*"
echo "user tracker-agent reset on #$(hash_of "$AGENT_REDIS_PASSWORD") +set +info %W~seen:agent:*"
echo "user tracker-notifications reset on #$(hash_of "$NOTIFICATIONS_REDIS_PASSWORD") +get +exists +set +info %R~acl:user:* %R~authz:fresh %W~seen:notifications:*"
