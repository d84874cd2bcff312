import { splitArgs } from "../../../bench/args.js";
import {
  byCaller,
  callerOf,
  callsOf,
  DEFAULT_JOBS,
  jobsFlag,
  percentile,
  provisionedLatencies,
} from "../../../bench/provisioning-figures.js";

describe("splitArgs", () => {
  test.each([
    [[], [], []],
    [["provisioning"], ["provisioning"], []],
    [["provisioning", "--jobs", "2000"], ["provisioning"], ["--jobs", "2000"]],
    [["--jobs=2000", "provisioning"], ["provisioning"], ["--jobs=2000"]],
    [
      ["throughput", "--dry", "--jobs", "5", "rest"],
      ["throughput", "rest"],
      ["--dry", "--jobs", "5"],
    ],
  ])("%j → names %j, flags %j", (args, names, flags) => {
    expect(splitArgs(args)).toEqual({ names, flags });
  });
});

describe("jobsFlag", () => {
  test.each([
    [[], DEFAULT_JOBS],
    [["--jobs", "2000"], 2000],
    [["--jobs=20"], 20],
    [["--other", "x", "--jobs", "7"], 7],
  ])("%j → %d", (args, jobs) => {
    expect(jobsFlag(args)).toBe(jobs);
  });

  test.each([[["--jobs", "0"]], [["--jobs", "1.5"]], [["--jobs", "many"]], [["--jobs"]]])(
    "%j is refused",
    (args) => {
      expect(() => jobsFlag(args)).toThrow(/--jobs wants a whole number/);
    },
  );
});

describe("callerOf", () => {
  test.each([
    ["PUT autoscaling.x-k8s.io provisioningrequests status", "provider"],
    ["POST autoscaling.x-k8s.io provisioningrequests ", "kueue"],
    ["DELETE autoscaling.x-k8s.io provisioningrequests ", "kueue"],
    ["POST compute.resize-operator.dev resizerequests ", "provider"],
    ["PUT compute.resize-operator.dev resizerequests status", "provider"],
    ["PATCH bench.resize-operator.dev workloads scale", "provider"],
    ["GET  podtemplates ", "provider"],
    ["POST  podtemplates ", "kueue"],
    ["GET  namespaces ", "provider"],
    ["LIST  pods ", "provider"],
    ["POST  pods ", "cluster"],
    ["PATCH  pods status", "cluster"],
    ["PUT kueue.x-k8s.io workloads status", "kueue"],
    ["POST kueue.x-k8s.io workloads ", "kueue"],
    ["PUT batch jobs ", "kueue"],
    ["PUT batch jobs status", "cluster"],
    ["POST  events ", "events"],
    ["PATCH events.k8s.io events ", "events"],
    ["POST  pods binding", "cluster"],
  ])("%s → %s", (key, caller) => {
    expect(callerOf(key)).toBe(caller);
  });

  test("sums and filters calls by caller", () => {
    const calls = {
      "PUT autoscaling.x-k8s.io provisioningrequests status": 3,
      "POST autoscaling.x-k8s.io provisioningrequests": 2,
      "POST  events": 4,
      "PUT batch jobs status": 1,
      "PUT kueue.x-k8s.io workloads status": 5,
    };
    expect(byCaller(calls)).toEqual({ provider: 3, kueue: 7, events: 4, cluster: 1 });
    expect(callsOf(calls, "kueue")).toEqual({
      "POST autoscaling.x-k8s.io provisioningrequests": 2,
      "PUT kueue.x-k8s.io workloads status": 5,
    });
  });
});

describe("percentile (nearest rank)", () => {
  const values = [50, 10, 40, 20, 30];
  test.each([
    [0, 10],
    [20, 10],
    [50, 30],
    [99, 50],
    [100, 50],
  ])("p%d of %j = %d", (p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });

  test("of nothing is NaN", () => {
    expect(percentile([], 50)).toBeNaN();
  });

  test("p99 of 500 values is the 495th smallest", () => {
    const many = Array.from({ length: 500 }, (_, i) => 500 - i);
    expect(percentile(many, 99)).toBe(495);
  });
});

test("latencies: provisioned requests only, creation → Provisioned", () => {
  expect(
    provisionedLatencies([
      { createdAt: 1000, provisionedAt: 1250 },
      { createdAt: 2000 },
      { createdAt: 3000, provisionedAt: 3010 },
    ]),
  ).toEqual([250, 10]);
});
