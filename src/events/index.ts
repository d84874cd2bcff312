// Public surface of the event recorder (events.k8s.io/v1). See docs/events.md.
export {
  REPORTING_CONTROLLER,
  LIMITS,
  TRUNCATION_MARKER,
  objectRef,
  type EmitRequest,
  type EventType,
  type ObjectRef,
} from "./event.js";
export { defineEventCatalog, catalogTableRows, type EventDefinition } from "./catalog.js";
export { genericEvents } from "./generic.js";
export {
  createEventRecorder,
  defaultReportingInstance,
  type EventRecorder,
  type RecorderOptions,
  type RecorderStats,
} from "./recorder.js";
export { kubeEventSink, type KubeSinkOptions } from "./kube-sink.js";
export { SinkError, type EventSink, type EventTarget } from "./sink.js";
