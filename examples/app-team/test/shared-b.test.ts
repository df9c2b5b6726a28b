import { it } from 'vitest';
import { ownTenant } from './shared-fake.js';
import { monthOfMessages } from './usage.js';

const { autumn, control } = await ownTenant();

it('runs a month of messages on its own tenant of the shared fake', () => monthOfMessages(autumn, control, 13));
