// The Redis topology from flags: exactly one, complete, with credentials from env or a Secret file.
import { ConfigError, loadConfig } from "../../../src/config.js";
import { parseHostPorts, RedisConfigError, redisSettings } from "../../../src/redis/settings.js";

function settings(argv: string[], env: NodeJS.ProcessEnv = {}, files: Record<string, string> = {}) {
  return redisSettings(loadConfig(argv, env), {
    env,
    readFile: (file) => {
      const text = files[file];
      if (text === undefined) throw new Error("ENOENT");
      return text;
    },
  });
}

test("no topology: REST is off", () => {
  expect(settings([])).toBeUndefined();
});

test("one server needs no replica acknowledgement by default", () => {
  expect(settings(["--redis-url=redis://r:6379"])).toEqual({
    topology: { kind: "single", url: "redis://r:6379" },
    minReplicaAcks: 0,
    replicaAckTimeoutMs: 1000,
  });
});

test("Sentinel and Cluster wait for one replica by default, from flags or environment", () => {
  expect(settings(["--redis-sentinels=a:26379, b:26380", "--redis-sentinel-master=ops"])).toMatchObject({
    topology: {
      kind: "sentinel",
      sentinels: [
        { host: "a", port: 26379 },
        { host: "b", port: 26380 },
      ],
      master: "ops",
    },
    minReplicaAcks: 1,
  });
  expect(
    settings([], { REDIS_CLUSTER_NODES: "[::1]:7000,n2:7001", REDIS_MIN_REPLICA_ACKS: "2" }),
  ).toMatchObject({
    topology: {
      kind: "cluster",
      nodes: [
        { host: "::1", port: 7000 },
        { host: "n2", port: 7001 },
      ],
    },
    minReplicaAcks: 2,
  });
});

test.each([
  [
    ["--redis-url=redis://r", "--redis-cluster-nodes=a:1"],
    /exactly one Redis topology.*--redis-url and --redis-cluster-nodes/,
  ],
  [["--redis-sentinels=a:1"], /needs --redis-sentinel-master/],
  [["--redis-sentinel-master=m"], /needs --redis-sentinels/],
  [["--redis-cluster-nodes=a"], /--redis-cluster-nodes: expected host:port, got 'a'/],
  [["--redis-cluster-nodes=a:99999"], /expected host:port/],
])("%j is refused: %s", (argv, message) => {
  expect(() => settings(argv)).toThrow(RedisConfigError);
  expect(() => settings(argv)).toThrow(message);
});

test("password from env or a Secret file (trailing newline dropped), never both", () => {
  expect(
    settings(["--redis-url=redis://r"], { REDIS_PASSWORD: "s3cret", REDIS_USERNAME: "op" }),
  ).toMatchObject({
    username: "op",
    password: "s3cret",
  });
  expect(
    settings(
      ["--redis-url=redis://r", "--redis-password-file=/secret/password"],
      {},
      { "/secret/password": "fromfile\n" },
    ),
  ).toMatchObject({ password: "fromfile" });
  expect(() =>
    settings(["--redis-url=redis://r", "--redis-password-file=/p"], { REDIS_PASSWORD: "x" }, { "/p": "y" }),
  ).toThrow(/give the Redis password once/);
  expect(() => settings(["--redis-url=redis://r", "--redis-password-file=/missing"])).toThrow(
    /--redis-password-file: cannot read \/missing/,
  );
});

test("an error made from another keeps it as its cause", () => {
  const thrownBy = (fn: () => unknown): unknown => {
    try {
      fn();
    } catch (err) {
      return err;
    }
    throw new Error("expected a throw");
  };
  const unreadable = thrownBy(() => settings(["--redis-url=redis://r", "--redis-password-file=/missing"]));
  expect(unreadable).toBeInstanceOf(RedisConfigError);
  expect((unreadable as Error).cause).toMatchObject({ message: "ENOENT" });
  const unknownFlag = thrownBy(() => loadConfig(["--no-such-flag=1"]));
  expect(unknownFlag).toBeInstanceOf(ConfigError);
  expect((unknownFlag as Error).cause).toMatchObject({ code: "ERR_PARSE_ARGS_UNKNOWN_OPTION" });
});

test("TLS from rediss://, --redis-tls, or a CA file", () => {
  expect(settings(["--redis-url=redis://r"])?.tls).toBeUndefined();
  expect(settings(["--redis-url=rediss://r"])?.tls).toEqual({});
  expect(settings(["--redis-cluster-nodes=a:1", "--redis-tls=true"])?.tls).toEqual({});
  expect(
    settings(["--redis-cluster-nodes=a:1", "--redis-tls-ca-file=/ca.pem"], {}, { "/ca.pem": "PEM" })?.tls,
  ).toEqual({
    ca: "PEM",
  });
});

test("host:port lists", () => {
  expect(parseHostPorts("h:1", "f")).toEqual([{ host: "h", port: 1 }]);
  expect(() => parseHostPorts(" , ", "f")).toThrow(/--f: expected host:port/);
});

test("a topology flag wins over a whole topology from the environment", () => {
  expect(settings(["--redis-cluster-nodes=n:7000"], { REDIS_URL: "redis://r:6379" })?.topology).toEqual({
    kind: "cluster",
    nodes: [{ host: "n", port: 7000 }],
  });
  expect(() => settings([], { REDIS_URL: "redis://r", REDIS_CLUSTER_NODES: "n:1" })).toThrow(
    /exactly one Redis topology/,
  );
});
