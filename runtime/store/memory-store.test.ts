import { MemoryStore } from './memory-store.js';
import { runStoreSuite } from './store-suite.js';

runStoreSuite('memory', (options) => new MemoryStore(options));
