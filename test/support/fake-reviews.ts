// A KubeClient that answers every review it is sent (TokenReview, SubjectAccessReview) with a status the
// test chooses, and keeps the specs it was asked, for unit tests of the REST Authenticator and the
// Authorizer. Nothing else of the client is used by them, so everything else rejects.
import type { Addressable, KubeClient, ResourceClient } from "../../src/runtime/resource-client.js";
import type { ResourceKind } from "../../src/runtime/resource-kind.js";

export interface ReviewingClient {
  readonly client: KubeClient;
  /** The `spec` of every review created, in order. */
  readonly asked: unknown[];
}

/** `answer(spec)` is the review's status; an Error is thrown as the API call's failure. */
export function reviewingClient(answer: (spec: unknown) => unknown): ReviewingClient {
  const asked: unknown[] = [];
  const unused = (): Promise<never> => Promise.reject(new Error("not used by the reviews"));
  const client: KubeClient = {
    resource: <T extends Addressable>(kind: ResourceKind<T>): ResourceClient<T> => ({
      kind,
      create: async (review) => {
        const { spec } = review as { spec?: unknown };
        asked.push(spec);
        await Promise.resolve();
        const status = answer(spec);
        if (status instanceof Error) throw status;
        return kind.schema.parse({ ...review, status });
      },
      get: unused,
      list: unused,
      update: unused,
      updateStatus: unused,
      mergePatch: unused,
      delete: unused,
    }),
    serverResources: () => Promise.resolve(undefined),
  };
  return { client, asked };
}
