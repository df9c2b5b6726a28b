#!/bin/sh
# npm test, test:quick and test:full: the type-check runs beside the tests, not before them (its
# errors print as soon as it ends). Either failing fails the command.
npm run -s typecheck &
typecheck=$!
vitest run "$@"
tests=$?
wait "$typecheck" || exit $?
exit "$tests"
