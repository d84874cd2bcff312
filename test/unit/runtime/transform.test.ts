import type { KubernetesObject } from "@kubernetes/client-node";
import { Informer } from "../../../src/runtime/informer.js";
import { LAST_APPLIED_ANNOTATION, stripUnreadMetadata } from "../../../src/runtime/transform.js";
import { flushPromises } from "../../support/fake-clock.js";
import { FakeListWatch, obj } from "./fake-list-watch.js";

const managedFields = [
  { manager: "kubectl", operation: "Update", fieldsType: "FieldsV1", fieldsV1: { "f:spec": {} } },
];

const applied = (
  metadata: Record<string, unknown> = {},
): KubernetesObject & { metadata: Record<string, unknown> } => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name: "a",
    namespace: "ns",
    resourceVersion: "5",
    labels: { app: "x" },
    annotations: { [LAST_APPLIED_ANNOTATION]: '{"big":"copy"}', keep: "me" },
    managedFields,
    ...metadata,
  },
});

describe("stripUnreadMetadata", () => {
  test("drops managedFields and the kubectl apply annotation, keeping every other field", () => {
    expect(stripUnreadMetadata(applied())).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "a",
        namespace: "ns",
        resourceVersion: "5",
        labels: { app: "x" },
        annotations: { keep: "me" },
      },
    });
  });

  test("removes the annotations map when the kubectl apply annotation was its only entry", () => {
    const raw = applied({ annotations: { [LAST_APPLIED_ANNOTATION]: "{}" } });
    expect(stripUnreadMetadata(raw).metadata).not.toHaveProperty("annotations");
  });

  test("keeps other annotations when only managedFields is there", () => {
    const raw = applied({ annotations: { keep: "me" } });
    expect(stripUnreadMetadata(raw).metadata).toEqual({
      name: "a",
      namespace: "ns",
      resourceVersion: "5",
      labels: { app: "x" },
      annotations: { keep: "me" },
    });
  });

  test("does not modify its argument", () => {
    const raw = applied();
    const before = structuredClone(raw);
    stripUnreadMetadata(raw);
    expect(raw).toEqual(before);
  });

  test("returns an object with nothing to strip (or no metadata) as it is", () => {
    const plain = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "b", annotations: { a: "b" } } };
    expect(stripUnreadMetadata(plain)).toBe(plain);
    const bare = { apiVersion: "v1", kind: "List" };
    expect(stripUnreadMetadata(bare)).toBe(bare);
  });
});

describe("Informer with a transform", () => {
  test("caches and delivers listed and watched objects transformed, before decode", async () => {
    const lw = new FakeListWatch();
    lw.next = () => ({ items: [applied()], resourceVersion: "10" });
    const decoded: KubernetesObject[] = [];
    const informer = new Informer<KubernetesObject>({
      name: "cms",
      listWatch: lw,
      transform: stripUnreadMetadata,
      decode: (raw) => {
        decoded.push(raw);
        return raw;
      },
    });
    const seen: KubernetesObject[] = [];
    informer.addEventHandler({
      onAdd: (o) => seen.push(o),
      onUpdate: (_, o) => seen.push(o),
    });
    const ctl = new AbortController();
    const running = informer.run(ctl.signal);
    await flushPromises();
    lw.current.emit({ type: "MODIFIED", object: applied({ resourceVersion: "11" }) });
    ctl.abort();
    await running;
    for (const o of [...decoded, ...seen, ...informer.lister.list()]) {
      expect(o.metadata).not.toHaveProperty("managedFields");
      expect(o.metadata?.annotations).toEqual({ keep: "me" });
    }
    expect(seen.map((o) => o.metadata?.resourceVersion)).toEqual(["5", "11"]);
  });
});

describe("Informer with a filter", () => {
  test("caches only accepted objects, listed or watched; one no longer accepted leaves as a deletion", async () => {
    const shown = { shown: "yes" };
    const lw = new FakeListWatch();
    lw.next = () => ({ items: [obj("a", "1", shown), obj("b", "2")], resourceVersion: "10" });
    const transformed: string[] = [];
    const informer = new Informer<KubernetesObject>({
      name: "cms",
      listWatch: lw,
      filter: (raw) => (raw as { data?: Record<string, string> }).data?.shown === "yes",
      // Refused objects never reach the transform (nor decode).
      transform: (raw) => {
        transformed.push(raw.metadata?.name ?? "");
        return raw;
      },
      decode: (raw) => raw,
    });
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => seen.push(`add ${o.metadata?.name ?? ""}`),
      onUpdate: (_, o) => seen.push(`update ${o.metadata?.name ?? ""}`),
      onDelete: (o) => seen.push(`delete ${o.metadata?.name ?? ""}`),
    });
    const ctl = new AbortController();
    const running = informer.run(ctl.signal);
    await flushPromises();
    lw.current.emit({ type: "ADDED", object: obj("c", "11") });
    lw.current.emit({ type: "MODIFIED", object: obj("b", "12") });
    lw.current.emit({ type: "DELETED", object: obj("b", "13") });
    lw.current.emit({ type: "ADDED", object: obj("d", "14", shown) });
    lw.current.emit({ type: "MODIFIED", object: obj("d", "15", shown) });
    // No longer accepted: gone from the cache, and its handlers are told so.
    lw.current.emit({ type: "MODIFIED", object: obj("a", "16") });
    // A refused object without a name is refused like any other.
    lw.current.emit({ type: "ADDED", object: { apiVersion: "v1", kind: "ConfigMap" } });
    ctl.abort();
    await running;
    expect(informer.lister.keys()).toEqual(["ns/d"]);
    expect(seen).toEqual(["add a", "add d", "update d", "delete a"]);
    expect(transformed).toEqual(["a", "d", "d"]);
  });
});
