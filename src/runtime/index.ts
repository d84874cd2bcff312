// The controller runtime's public surface: everything a reconciler and the `run` command wire together.
export { isAborted, realClock, sleep, type Clock, type Timer } from "./clock.js";
export { Backoff, backoffDelay, exponentialDelay, withJitter, type BackoffPolicy } from "./backoff.js";
export {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
} from "./rate-limiter.js";
export { WorkQueue, type WorkQueueOptions } from "./workqueue.js";
export { LAST_APPLIED_ANNOTATION, stripUnreadMetadata, type Transform } from "./transform.js";
export { NAMESPACE_INDEX, objectKey, splitKey, Store, type IndexFunc, type Lister } from "./store.js";
export {
  ApiError,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  isServerError,
  statusError,
} from "./api-errors.js";
export { KubeHttp, TimeoutError, type Query, type RequestOptions } from "./kube-http.js";
export {
  groupVersionPath,
  resourcePath,
  type ObjectKey,
  type ResourceKind,
  type ResourceLocation,
} from "./resource-kind.js";
export type {
  Addressable,
  CallOptions,
  DeleteOptions,
  KubeClient,
  ListOptions,
  MergePatch,
  ObjectList,
  Preconditions,
  ResourceClient,
} from "./resource-client.js";
export { httpKubeClient } from "./http-kube-client.js";
export {
  httpListWatch,
  type HttpListWatchOptions,
  type ListResult,
  type ListWatch,
  type WatchEvent,
  type WatchEventType,
  type WatchOptions,
} from "./list-watch.js";
export {
  DEFAULT_REFLECTOR_BACKOFF,
  Reflector,
  type ReflectorOptions,
  type ReflectorSink,
} from "./reflector.js";
export { Informer, type EventHandler, type InformerOptions } from "./informer.js";
export {
  formatMicroTime,
  httpLeaseClient,
  type LeaseClient,
  type LeaseRecord,
  type StoredLease,
} from "./lease-client.js";
export {
  DEFAULT_LEADER_ELECTION_TIMINGS,
  LeaderElector,
  validateTimings,
  type LeaderElectionTimings,
  type LeaderElectorOptions,
  type LeaderWork,
} from "./leader-election.js";
export {
  Controller,
  requestFor,
  type ControllerOptions,
  type MapFunc,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  type Request,
} from "./controller.js";
export {
  defaultIdentity,
  Manager,
  type InformerSpec,
  type LeaderElectionOptions,
  type ManagerOptions,
  type Runnable,
} from "./manager.js";
export { shutdownOnSignals, type ShutdownSignal } from "./signals.js";
export {
  METRIC,
  noopMetrics,
  type Counter,
  type Gauge,
  type Histogram,
  type Labels,
  type MetricsSink,
} from "./metrics.js";
