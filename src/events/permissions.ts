// What the event recorder calls on the API server (kube-sink.ts).
import { permission } from "../rbac/permissions.js";

export const EVENTS_PERMISSIONS = [
  permission({
    apiGroups: ["events.k8s.io"],
    resources: ["events"],
    verbs: ["create", "patch"],
    why: "event recorder: creates events.k8s.io/v1 Events in the namespace of the request they regard, and patches a repeat into the event's series",
  }),
];
