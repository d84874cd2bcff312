// Events any controller of the operator may emit, independent of a resource's state machine. The
// reconciler declares its state-transition and attempt events in its own catalogue.
import { defineEventCatalog } from "./catalog.js";

export const genericEvents = defineEventCatalog({
  ReconcileFailed: {
    type: "Warning",
    reason: "ReconcileFailed",
    action: "Reconcile",
    when: "An unexpected error interrupted reconciliation of the object (the note holds the error); reconciliation is retried with backoff.",
  },
});
