// The Kubernetes EventSink turns a failed call into a SinkError that keeps the failure as its cause.
import { kubeEventSink } from "../../../src/events/kube-sink.js";
import { SinkError } from "../../../src/events/sink.js";
import { ApiError } from "../../../src/runtime/api-errors.js";
import { FakeKube } from "../../support/fake-kube.js";

test.each([
  ["an API answer", new ApiError(422, "Invalid", "note too long"), 422, "Invalid"],
  ["a transport failure", new Error("socket hang up"), undefined, undefined],
])("%s becomes a SinkError whose cause is the failure", async (_what, failure, status, reason) => {
  const kube = new FakeKube().inject({ match: () => true, when: "before", error: () => failure });
  const sink = kubeEventSink(kube);
  const thrown = await sink.create({ metadata: { name: "e", namespace: "ns" }, eventTime: new Date(0) }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(thrown).toBeInstanceOf(SinkError);
  expect(thrown).toMatchObject({ message: failure.message, status, reason, cause: failure });
});
