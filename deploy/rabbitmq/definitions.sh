#!/bin/sh
# Prints the RabbitMQ definitions Tracker needs (vhost, one user per service, least
# privilege) as JSON, from the passwords in the environment. docker-compose.yml runs it in
# the broker container before the broker starts and has RabbitMQ import the result at boot
# (`load_definitions`), so there is no default user (no guest, no administrator) at all.
# For a broker of your own, import its output once: `rabbitmqctl import_definitions FILE`.
#
#   ACCESS_AMQP_PASSWORD=... ISSUES_AMQP_PASSWORD=... STATISTICS_AMQP_PASSWORD=... NOTIFICATIONS_AMQP_PASSWORD=... sh definitions.sh
#
# What each user may do (RabbitMQ's configure/write/read regular expressions, on names in
# the vhost; deploy/README.md has the table):
#   tracker-access, tracker-issues  declare and publish to the topic exchange tracker.events; read nothing
#   tracker-statistics              declare, bind and consume its queues statistics.events, .retry and
#                                   .dlq (the bounded dead-letter queue; .dead is the unbounded one of
#                                   earlier versions, which it unbinds and deletes once empty), declare
#                                   tracker.events and its dead-letter exchange tracker.events.dlx, send
#                                   to its retry queue (the default exchange); publish nothing to tracker.events
#   tracker-notifications           the same with its own queues notifications.events, .retry and .dlq
# Names other than the defaults (EVENTS_EXCHANGE, EVENTS_QUEUE) need their own definitions.
set -eu

for name in ACCESS_AMQP_PASSWORD ISSUES_AMQP_PASSWORD STATISTICS_AMQP_PASSWORD NOTIFICATIONS_AMQP_PASSWORD; do
  eval "value=\${$name:-}"
  # The value goes into JSON as it is: refuse what would need escaping, and short ones.
  case $value in
    '') echo "definitions.sh: $name is not set" >&2; exit 1 ;;
    *[!A-Za-z0-9._~+=/-]*) echo "definitions.sh: $name may hold only letters, digits and . _ ~ + = / -" >&2; exit 1 ;;
  esac
  if [ "${#value}" -lt 16 ]; then echo "definitions.sh: $name is shorter than 16 characters" >&2; exit 1; fi
done

cat <<JSON
{
  "vhosts": [{ "name": "/" }],
  "users": [
    { "name": "tracker-access", "password": "$ACCESS_AMQP_PASSWORD", "tags": "" },
    { "name": "tracker-issues", "password": "$ISSUES_AMQP_PASSWORD", "tags": "" },
    { "name": "tracker-statistics", "password": "$STATISTICS_AMQP_PASSWORD", "tags": "" },
    { "name": "tracker-notifications", "password": "$NOTIFICATIONS_AMQP_PASSWORD", "tags": "" }
  ],
  "permissions": [
    { "user": "tracker-access", "vhost": "/", "configure": "^tracker\\\\.events\$", "write": "^tracker\\\\.events\$", "read": "^\$" },
    { "user": "tracker-issues", "vhost": "/", "configure": "^tracker\\\\.events\$", "write": "^tracker\\\\.events\$", "read": "^\$" },
    {
      "user": "tracker-statistics",
      "vhost": "/",
      "configure": "^(tracker\\\\.events(\\\\.dlx)?|statistics\\\\.events(\\\\.retry|\\\\.dlq|\\\\.dead)?)\$",
      "write": "^(amq\\\\.default|tracker\\\\.events\\\\.dlx|statistics\\\\.events(\\\\.retry|\\\\.dlq|\\\\.dead)?)\$",
      "read": "^(tracker\\\\.events(\\\\.dlx)?|statistics\\\\.events(\\\\.retry|\\\\.dlq|\\\\.dead)?)\$"
    },
    {
      "user": "tracker-notifications",
      "vhost": "/",
      "configure": "^(tracker\\\\.events(\\\\.dlx)?|notifications\\\\.events(\\\\.retry|\\\\.dlq|\\\\.dead)?)\$",
      "write": "^(amq\\\\.default|tracker\\\\.events\\\\.dlx|notifications\\\\.events(\\\\.retry|\\\\.dlq|\\\\.dead)?)\$",
      "read": "^(tracker\\\\.events(\\\\.dlx)?|notifications\\\\.events(\\\\.retry|\\\\.dlq|\\\\.dead)?)\$"
    }
  ]
}
JSON
