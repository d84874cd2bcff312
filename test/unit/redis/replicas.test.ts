// Reading the replicas of each master (CLUSTER NODES, INFO replication) and the two messages: the
// start-up refusal of a topology that cannot meet --redis-min-replica-acks, and the run-time state.
import { clusterReplicas, infoReplicas, unmeetable, unmet } from "../../../src/redis/replicas.js";

// CLUSTER NODES of a 3-master cluster without replicas, as Redis 7 prints it (one line per node).
const REPLICALESS = [
  "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:7001@17001 master - 0 1700000000000 2 connected 5461-10922",
  "67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:7000@17000 myself,master - 0 1700000000000 1 connected 0-5460",
  "292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:7002@17002 master - 0 1700000000000 3 connected 10923-16383",
  "",
].join("\n");

// One replica per master; 7004's replica failed (flag fail), 7005's link is down.
const REPLICATED = [
  "m0 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-5460",
  "m1 127.0.0.1:7001@17001 master - 0 0 2 connected 5461-10922",
  "m2 127.0.0.1:7002@17002 master - 0 0 3 connected 10923-16383",
  "r0 127.0.0.1:7003@17003 slave m0 0 0 1 connected",
  "r1 127.0.0.1:7004@17004 slave,fail m1 0 0 2 disconnected",
  "r2 127.0.0.1:7005@17005 slave m2 0 0 3 disconnected",
  "gone 127.0.0.1:7006@17006 master,fail - 0 0 4 disconnected",
].join("\n");

test("CLUSTER NODES: each master serving slots, its replicas listed and those connected", () => {
  expect(clusterReplicas(REPLICALESS)).toEqual([
    { master: "127.0.0.1:7000 (slots 0-5460)", known: 0, online: 0 },
    { master: "127.0.0.1:7001 (slots 5461-10922)", known: 0, online: 0 },
    { master: "127.0.0.1:7002 (slots 10923-16383)", known: 0, online: 0 },
  ]);
  expect(clusterReplicas(REPLICATED)).toEqual([
    { master: "127.0.0.1:7000 (slots 0-5460)", known: 1, online: 1 },
    { master: "127.0.0.1:7001 (slots 5461-10922)", known: 1, online: 0 },
    { master: "127.0.0.1:7002 (slots 10923-16383)", known: 1, online: 0 },
  ]);
});

test("INFO replication: replicas listed, and those in sync", () => {
  const info = [
    "# Replication",
    "role:master",
    "connected_slaves:2",
    "slave0:ip=127.0.0.1,port=6381,state=online,offset=42,lag=0",
    "slave1:ip=127.0.0.1,port=6382,state=wait_bgsave,offset=0,lag=0",
    "master_replid:abc",
  ].join("\r\n");
  expect(infoReplicas(info)).toEqual({ connected: 2, online: 1 });
  expect(infoReplicas("# Replication\r\nrole:master\r\nconnected_slaves:0\r\n")).toEqual({
    connected: 0,
    online: 0,
  });
});

test("start-up: a replica-less Cluster with the default acks is refused, naming the flag, each shard and both ways out", () => {
  expect(unmeetable(1, clusterReplicas(REPLICALESS))).toBe(
    "--redis-min-replica-acks=1 (REDIS_MIN_REPLICA_ACKS) cannot be met: every Operation write must reach " +
      "1 replica, but 127.0.0.1:7000 (slots 0-5460) has 0 replicas, 127.0.0.1:7001 (slots 5461-10922) " +
      "has 0 replicas, 127.0.0.1:7002 (slots 10923-16383) has 0 replicas. Either give every master at " +
      "least 1 replica, or set --redis-min-replica-acks=0 to acknowledge writes the master alone holds " +
      "(an acknowledged Operation can then be lost in a failover)",
  );
  // Listed replicas count even when down: they come back, so that is a run-time state, not a refusal.
  expect(unmeetable(1, clusterReplicas(REPLICATED))).toBeUndefined();
  expect(unmeetable(2, clusterReplicas(REPLICATED))).toContain(
    "127.0.0.1:7000 (slots 0-5460) has 1 replica,",
  );
  expect(unmeetable(0, clusterReplicas(REPLICALESS))).toBeUndefined();
});

test("run time: the masters with too few replicas in sync", () => {
  expect(unmet(1, clusterReplicas(REPLICATED))).toBe(
    "--redis-min-replica-acks=1 cannot be met now: 127.0.0.1:7001 (slots 5461-10922) has 0 replicas, " +
      "127.0.0.1:7002 (slots 10923-16383) has 0 replicas in sync; inserts and deletes of their projects " +
      "answer 503 until a replica is back",
  );
  const sentinel = [{ master: 'Sentinel master "operations"', known: 1, online: 0 }];
  expect(unmet(1, sentinel)).toMatch(
    /^--redis-min-replica-acks=1 cannot be met now: Sentinel master "operations" has 0 replicas in sync;/,
  );
  expect(unmet(1, [{ ...sentinel[0], online: 1 }] as typeof sentinel)).toBeUndefined();
  expect(unmet(0, sentinel)).toBeUndefined();
});
