/**
 * runtime/metrics: metrics with stability classes and deprecation over prom-client
 * ({@link MetricRegistry}), and the API server's named metrics ({@link ApiServerMetrics}) that the
 * server's stages observe into and `GET /metrics` exports.
 */
export { ApiServerMetrics, type RequestLabels, type StorageCounter } from './apiserver.js';
export { type MetricOptions, MetricRegistry, type MetricRegistryOptions, MetricsOptionError, type StabilityLevel } from './registry.js';
