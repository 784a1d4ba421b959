import { FileSessionStore, MemorySessionStore } from 'loopkeeper';
import { FIXED_TIME } from '../support/session-events.js';
import { describeSessionStoreContract } from './session-store-contract.js';

// Both embedded stores keep the same contract; each case runs against each of them.
describeSessionStoreContract({
  name: 'MemorySessionStore',
  create: () => new MemorySessionStore({ now: () => FIXED_TIME }),
});
describeSessionStoreContract({
  name: 'FileSessionStore',
  create: (directory) => new FileSessionStore({ directory, now: () => FIXED_TIME }),
});
