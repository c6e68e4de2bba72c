/**
 * `svckit/controller`: client-go's controller pieces in TypeScript. A rate-limited work queue
 * (deduplication, one worker per item, per-item exponential backoff and an overall token bucket,
 * drain on shutdown), a controller loop that feeds it from informers and reconciles keys, and
 * leader election over a Lease. Browser-safe: it needs only `svckit/client`.
 */
export { type Clock, ManualClock, sleep, systemClock } from './clock.js';
export { Controller, type ControllerOptions, type InformerSource, type ReconcileResult, splitKey } from './controller.js';
export { type Lease, type LeaseClient, type LeaseSpec, LeaderElector, type LeaderElectionOptions } from './leader-election.js';
export { type QueueItem, WorkQueue, type WorkQueueOptions } from './queue.js';
export { RateLimitingQueue, type RateLimitingQueueOptions } from './rate-limiting-queue.js';
export {
  BucketRateLimiter,
  ItemExponentialRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiter.js';
