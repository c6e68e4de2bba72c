import { MemoryStore } from './memory-store.js';
import { runStoreSuite } from './store-suite.testing.js';

runStoreSuite('memory', (options) => new MemoryStore(options));
