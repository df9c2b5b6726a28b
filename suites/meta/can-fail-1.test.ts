// Half of the faults of the can-fail and precision meta-test (can-fail.ts), so two test workers share them.
import { canFailSuite } from './can-fail.ts';

canFailSuite(1, 2);
