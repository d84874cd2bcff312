// What every controller is given by the operator's wiring (operator.ts), whatever it reconciles: one
// declaration, so that a setting every controller takes (a namespace, a clock) is added in one place.
import type { Logger } from "pino";
import type { EventRecorder } from "../events/recorder.js";
import type { MetricsSink } from "../runtime/metrics.js";

export interface ControllerSettings {
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly metrics?: MetricsSink;
  /** Watch one namespace only; all namespaces when undefined. */
  readonly namespace?: string;
  readonly now?: () => number;
}
