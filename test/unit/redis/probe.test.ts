// The start-up check's verdict on what INFO says about the server behind the configured topology.
import { credentialsProblem, displayUrl, topologyProblem } from "../../../src/redis/probe.js";
import type { RedisSettings } from "../../../src/redis/settings.js";

const single = (url: string): RedisSettings => ({
  topology: { kind: "single", url },
  minReplicaAcks: 0,
  replicaAckTimeoutMs: 1000,
});
const info = (fields: Record<string, string>) =>
  `# Server\r\nredis_version:7.0.15\r\n${Object.entries(fields)
    .map(([k, v]) => `${k}:${v}`)
    .join("\r\n")}\r\n`;

test("a Cluster node given as --redis-url names --redis-cluster-nodes, without the password", () => {
  const problem = topologyProblem(
    single("redis://:hunter22@n1:7000"),
    info({ role: "master", cluster_enabled: "1" }),
  );
  expect(problem).toMatch(/--redis-url redis:\/\/:redacted@n1:7000 is a Redis Cluster node/);
  expect(problem).toMatch(/--redis-cluster-nodes/);
  expect(problem).not.toMatch(/hunter22/);
});

test("a replica given as --redis-url is refused; a standalone master is fine", () => {
  expect(topologyProblem(single("redis://r"), info({ role: "slave", cluster_enabled: "0" }))).toMatch(
    /read-only replica/,
  );
  expect(
    topologyProblem(single("redis://r"), info({ role: "master", cluster_enabled: "0" })),
  ).toBeUndefined();
});

test("Sentinel masters are not second-guessed", () => {
  const sentinel: RedisSettings = {
    topology: { kind: "sentinel", sentinels: [{ host: "s", port: 1 }], master: "m" },
    minReplicaAcks: 1,
    replicaAckTimeoutMs: 1000,
  };
  expect(topologyProblem(sentinel, info({ role: "master", cluster_enabled: "0" }))).toBeUndefined();
});

test("displayUrl hides only the password", () => {
  expect(displayUrl("redis://user:pw@h:1/0")).toBe("redis://user:redacted@h:1/0");
  expect(displayUrl("redis://h:1")).toBe("redis://h:1");
});

test("a credentials refusal names the settings to check; other errors are not one", () => {
  expect(credentialsProblem("WRONGPASS invalid username-password pair or user is disabled.")).toBe(
    "Redis refused the credentials (WRONGPASS invalid username-password pair or user is disabled): check --redis-username, REDIS_PASSWORD or --redis-password-file",
  );
  expect(credentialsProblem("NOAUTH Authentication required.")).toMatch(/^Redis refused the credentials/);
  expect(credentialsProblem("connect ECONNREFUSED 127.0.0.1:6379")).toBeUndefined();
});
