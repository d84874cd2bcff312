// decide(): requests that name their instances (spec.instances). Only a StatefulSet's next ordinals
// can be honoured (api/instance-names.ts); anywhere else the request fails at admission, and a
// StatefulSet request whose names are not the next ordinals fails when it reaches the head.
import { ErrorCode } from "../../../src/api/errors.js";
import { ResizeRequestCondition as RC } from "../../../src/api/conditions.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import { cond, found, group, MIN, reasons, req, snap, statusOf, T0 } from "./builders.js";

const statefulSet = group({ targetKind: "StatefulSet", targetName: "web" });

describe("named instances", () => {
  test.each([
    {
      why: "a Deployment names its pods itself",
      g: group({ targetKind: "Deployment", targetName: "api" }),
      names: ["api-0"],
      message: /Deployment\/api names its instances itself/,
    },
    {
      why: "a group whose instances are Nodes",
      g: group({
        targetKind: "NodePool",
        targetApiVersion: "karpenter.sh/v1",
        targetName: "gpu",
        identity: { instances: "Node", mechanism: "DeleteNodeClaims" },
      }),
      names: ["node-a", "node-b"],
      message: /instances are the Nodes it counts/,
    },
    {
      why: "a name a StatefulSet never gives",
      g: statefulSet,
      names: ["runner-a"],
      message: /"runner-a" cannot be one of them/,
    },
  ])("refused at admission, never accepted and ignored: $why", ({ g, names, message }) => {
    const plan = decide(snap({ group: g, replicas: 0, requests: [req("a", { instances: names })] }));
    const status = statusOf(plan, "a");
    expect(status.state).toBe("FAILED");
    expect(status.reason).toBe("InstanceNamesRefused");
    expect(status.error?.errors[0]?.code).toBe(ErrorCode.UNSUPPORTED_OPERATION);
    expect(status.error?.errors[0]?.message).toMatch(message);
    expect(cond(status, RC.Failed)).toMatchObject({ status: "True", reason: "InstanceNamesRefused" });
    expect(reasons(plan, "a")).toEqual(["AdmissionFailed"]);
    expect(plan.scale).toBeUndefined();
  });

  test("a StatefulSet's next ordinals start an attempt that adds exactly them", () => {
    const plan = decide(
      snap({ group: statefulSet, replicas: 2, requests: [req("a", { instances: ["web-3", "web-2"] })] }),
    );
    expect(statusOf(plan, "a").state).toBe("ACCEPTED");
    expect(plan.scale).toEqual({ request: "a", from: 2, replicas: 4 });
  });

  test("spec.ordinals.start counts", () => {
    const target = { ...found(2), firstOrdinal: 10 };
    const plan = decide(
      snap({ group: statefulSet, target, requests: [req("a", { instances: ["web-12"] })] }),
    );
    expect(plan.scale).toEqual({ request: "a", from: 2, replicas: 3 });
  });

  test("names that are not the next ordinals fail at the head, and the next request starts", () => {
    const plan = decide(
      snap({
        group: statefulSet,
        replicas: 2,
        requests: [
          req("a", { instances: ["web-0", "web-1"] }),
          req("b", { resizeBy: 1, created: T0 - 5 * MIN }),
        ],
      }),
    );
    const status = statusOf(plan, "a");
    expect(status.state).toBe("FAILED");
    expect(status.reason).toBe("InstanceNamesRefused");
    expect(status.error?.errors[0]?.message).toContain("has 2 replicas, so its next pods are web-2, web-3");
    expect(plan.scale).toMatchObject({ request: "b", from: 2, replicas: 3 });
  });

  test("a request behind the head is not judged by the head's ordinals", () => {
    const plan = decide(
      snap({
        group: statefulSet,
        replicas: 0,
        requests: [req("a", { resizeBy: 2 }), req("b", { instances: ["web-2"], created: T0 - 5 * MIN })],
      }),
    );
    expect(plan.scale).toMatchObject({ request: "a" });
    expect(statusOf(plan, "b").state).toBe("ACCEPTED");
  });
});
