#!/bin/sh
# npm test, test:quick and test:full: the type-check runs beside the tests, not before them. The
# conformance project runs alone first and leaves a core mostly idle; tsc takes it. Either failing
# fails the command (tsc's errors print as soon as it ends).
npm run -s typecheck &
typecheck=$!
vitest run "$@"
tests=$?
wait "$typecheck" || exit $?
exit "$tests"
