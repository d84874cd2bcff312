// A real redis-server (Debian's package) on a free loopback port, owned by the testbed.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";
import { freePort, startProcess, stopProcess, tail, waitFor, type ManagedProcess } from "./processes.js";

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  readonly process: ManagedProcess;
}

export function redisServerBinary(): string {
  const res = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  const bin = res.stdout.trim();
  if (!bin) {
    throw new Error(
      "redis-server is required (Debian package `redis-server`). `npm run dev` and `.ci/run` install it " +
        "with apt-get when run as root; otherwise install it and run again.",
    );
  }
  return bin;
}

export function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let reply = "";
    socket.setTimeout(1000, () => {
      socket.destroy();
    });
    socket.on("connect", () => {
      socket.write("PING\r\n");
    });
    socket.on("data", (d) => {
      reply += d.toString();
      if (reply.includes("\r\n")) {
        socket.end();
        // A server with a password answers NOAUTH: it is up all the same.
        resolve(reply.startsWith("+PONG") || reply.startsWith("-NOAUTH"));
      }
    });
    socket.on("error", () => {
      resolve(false);
    });
    socket.on("close", () => {
      resolve(reply.startsWith("+PONG"));
    });
  });
}

export interface RedisOptions {
  readonly dir: string;
  readonly port?: number;
  /** AOF persistence, so a restarted server keeps what it had (reliability tests). */
  readonly appendOnly?: boolean;
  /** More redis-server arguments (replication, cluster mode); the data folder is per port when given. */
  readonly args?: readonly string[];
}

export async function startRedis(options: RedisOptions): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  // Servers of one topology share `dir`: each keeps its data (and cluster state) in its own folder.
  const dataDir = path.join(options.dir, options.args ? `redis-${port}` : "redis");
  mkdirSync(dataDir, { recursive: true });
  const proc = startProcess(
    `redis-${port}`,
    redisServerBinary(),
    [
      "--bind",
      "127.0.0.1",
      "--port",
      String(port),
      "--dir",
      dataDir,
      "--save",
      "",
      "--appendonly",
      options.appendOnly ? "yes" : "no",
      "--protected-mode",
      "yes",
      ...(options.args ?? []),
    ],
    options.dir,
  );
  await waitFor(
    `redis-server on port ${port}`,
    () => ping(port),
    15_000,
    () => tail(proc.log),
  );
  return { url: `redis://127.0.0.1:${port}`, port, process: proc };
}

export async function stopRedis(server: RedisServer): Promise<void> {
  await stopProcess(server.process);
}
