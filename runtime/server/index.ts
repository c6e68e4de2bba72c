export { ApiServer, type ApiServerOptions } from './server.js';
export type { RuleChecker } from './admission.js';
export { ResourceRegistry, type ServedResource } from './resources.js';
export { INITIAL_EVENTS_END } from './watch.js';
