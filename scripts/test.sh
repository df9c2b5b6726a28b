#!/bin/sh
# npm test, test:quick and test:full: the type-check runs beside the tests, not before them (its
# errors print as soon as it ends). Either failing fails the command.
# The conformance runs the tests start explore 3 s alone once their scenarios are done, not a
# vendor's 10 s (suites/explore/exploration.test.ts): tens of runs would each pay the difference.
export CONFORMANCE_EXPLORE_SECONDS="${CONFORMANCE_EXPLORE_SECONDS:-3}"
npm run -s typecheck &
typecheck=$!
vitest run "$@"
tests=$?
wait "$typecheck" || exit $?
exit "$tests"
