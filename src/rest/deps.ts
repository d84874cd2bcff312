// What REST handlers use: the Kubernetes API (as the operator), the operations store, auth, settings.
import type { OperationStore } from "../operations/store.js";
import type { KubeClient } from "../runtime/resource-client.js";
import type { Authenticator, Authorizer } from "./auth.js";

export interface RestDeps {
  readonly kube: KubeClient;
  readonly store: OperationStore;
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  /** Public base URL without a trailing slash (links in responses). */
  readonly publicUrl: string;
  /** Upper bound of zoneOperations.wait (2 minutes in the compute API). */
  readonly waitTimeoutMs: number;
  readonly now: () => number;
}
