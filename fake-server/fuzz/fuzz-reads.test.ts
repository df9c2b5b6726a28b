/** The fuzz test (run.ts) of the operations that only read; a second file, so the two halves run side by side. */
import { OPERATION_NAMES } from '../../spec/operations.ts';
import { fuzzTest, READ_ONLY } from './run.ts';

fuzzTest(OPERATION_NAMES.filter((operation) => READ_ONLY.has(operation)));
