#!/bin/sh
# Adds --role "$SWITCHYARD_ROLE" to `switchyard start` unless a --role is given,
# then becomes the command (exec), so tini's SIGTERM reaches node itself.
# Any other command (`switchyard doctor`, `sh`) runs as given.
set -eu
if [ "${1:-}" = "switchyard" ] && [ "${2:-}" = "start" ]; then
  shift 2
  case " $* " in
    *" --role "* | *" --role="*) set -- switchyard start "$@" ;;
    *) set -- switchyard start --role "${SWITCHYARD_ROLE:-all}" "$@" ;;
  esac
fi
exec "$@"
