// The files the tools cache writes beside the Kueue and kwok binaries (testbed/tool-modules.ts).
import { parse, parseAllDocuments } from "yaml";
import { crdsWithoutConversion, holdableStages, KEEP_RUNNING_LABEL } from "../../../testbed/tool-modules.js";

const stage = (name: string, expressions: object[]): string =>
  `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: ${name}
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
${expressions.map((e) => `    - ${JSON.stringify(e)}`).join("\n")}
  next:
    statusTemplate: |
      phase: {{ "Succeeded" }}
`;

interface Stage {
  metadata: { name: string };
  spec: {
    selector: { matchExpressions: { key: string; operator: string }[] };
    next: { statusTemplate: string };
  };
}

test("kwok's pod-complete stage leaves pods labelled keep-running alone; other stages are untouched", () => {
  const ready = stage("pod-ready", [{ key: ".status.phase", operator: "In", values: ["Pending"] }]);
  const complete = stage("pod-complete", [
    { key: ".metadata.ownerReferences.[].kind", operator: "In", values: ["Job"] },
  ]);
  const stages = parseAllDocuments(holdableStages([ready, complete].join("\n---\n"))).map(
    (d) => d.toJS() as Stage,
  );
  expect(stages.map((s) => s.metadata.name)).toEqual(["pod-ready", "pod-complete"]);
  expect(stages[0]).toEqual(parse(ready));
  const expressions = stages[1]?.spec.selector.matchExpressions ?? [];
  expect(expressions).toHaveLength(2);
  expect(expressions[1]).toEqual({
    key: `.metadata.labels["${KEEP_RUNNING_LABEL}"]`,
    operator: "DoesNotExist",
  });
  expect(stages[1]?.spec.next.statusTemplate).toBe('phase: {{ "Succeeded" }}\n');
});

test("a kwok without a pod-complete stage is an error, not a silently different testbed", () => {
  expect(() => holdableStages(stage("pod-ready", []))).toThrow(/no pod-complete stage/);
});

test("CRDs lose their conversion webhook and become JSON documents", () => {
  const crd = (name: string, conversion?: object): string =>
    `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${name}
spec:
  group: kueue.x-k8s.io
${conversion ? `  conversion: ${JSON.stringify(conversion)}\n` : ""}  scope: Namespaced
`;
  const webhook = {
    strategy: "Webhook",
    webhook: { clientConfig: { service: { name: "webhook-service", namespace: "system" } } },
  };
  const out = crdsWithoutConversion(
    [crd("workloads.kueue.x-k8s.io", webhook), crd("cohorts.kueue.x-k8s.io")].join("\n---\n"),
  );
  const docs = out
    .split("\n---\n")
    .map((d) => JSON.parse(d) as { metadata: { name: string }; spec: Record<string, unknown> });
  expect(docs.map((d) => d.metadata.name)).toEqual(["workloads.kueue.x-k8s.io", "cohorts.kueue.x-k8s.io"]);
  for (const d of docs) expect(d.spec).toEqual({ group: "kueue.x-k8s.io", scope: "Namespaced" });
});
