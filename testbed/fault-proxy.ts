// A TCP fault proxy: it stands in for a network fault between the operator and a server it depends on
// (Redis, kube-apiserver). The operator is given the proxy's address instead of the server's (a
// kubeconfig or Redis URL naming it) and cannot tell it apart from the network: bytes are relayed
// unchanged (TLS included, end to end), and a fault is what a network does to TCP.
//
// - `cut`: every open connection is reset (RST, as a dropped NAT entry or a restarted middlebox does)
//   and new connections are refused (reset at once) until `restore`.
// - `blackhole`: nothing is forwarded either way, on open connections and new ones (accepted, then
//   silent), as in a partition; `restore` heals it and whatever was held is delivered late, as TCP
//   retransmission would. A client's own timeouts decide what it makes of the silence.
import { connect, createServer, type Server, type Socket } from "node:net";

export type NetworkFault = "cut" | "blackhole";

/** One relayed connection: bytes are held while the network is partitioned. */
class Link {
  private readonly held: { to: Socket; data: Buffer }[] = [];
  private upstream: Socket | undefined;

  constructor(
    private readonly client: Socket,
    private readonly proxy: FaultProxy,
    private readonly target: { host: string; port: number },
  ) {
    client.on("error", () => {
      this.close();
    });
    client.on("close", () => {
      this.close();
    });
    client.on("data", (data: Buffer) => {
      if (this.upstream) this.send(this.upstream, data);
    });
    // A connection accepted during a partition reaches its server only once the network heals.
    if (!proxy.partitioned) this.open();
    else client.pause();
  }

  private open(): void {
    const up = connect(this.target.port, this.target.host);
    this.upstream = up;
    up.on("error", () => {
      this.close();
    });
    up.on("close", () => {
      this.close();
    });
    up.on("data", (data: Buffer) => {
      this.send(this.client, data);
    });
    this.client.resume();
  }

  private send(to: Socket, data: Buffer): void {
    if (this.proxy.partitioned) this.held.push({ to, data });
    else to.write(data);
  }

  /** The partition healed: connect if not yet, deliver what was held in order. */
  heal(): void {
    if (!this.upstream) this.open();
    for (const { to, data } of this.held.splice(0)) if (!to.destroyed) to.write(data);
  }

  reset(): void {
    this.client.resetAndDestroy();
    this.upstream?.resetAndDestroy();
    this.close();
  }

  close(): void {
    if (!this.client.destroyed) this.client.destroy();
    if (this.upstream && !this.upstream.destroyed) this.upstream.destroy();
    this.proxy.links.delete(this);
  }
}

export class FaultProxy {
  readonly links = new Set<Link>();
  private fault: NetworkFault | undefined;
  /** Faults injected so far, by kind (for the test's figures). */
  readonly injected: Record<NetworkFault, number> = { cut: 0, blackhole: 0 };

  private readonly server: Server;
  private listening = 0;

  private constructor(target: { host: string; port: number }) {
    this.server = createServer({ noDelay: true }, (client) => {
      if (this.fault === "cut") {
        client.on("error", () => undefined);
        client.resetAndDestroy();
        return;
      }
      this.links.add(new Link(client, this, target));
    });
  }

  /** The loopback port to give clients instead of the target's. */
  get port(): number {
    return this.listening;
  }

  /** A proxy on a free loopback port relaying to `target`. */
  static async start(target: { host: string; port: number }): Promise<FaultProxy> {
    const proxy = new FaultProxy(target);
    proxy.listening = await new Promise<number>((resolve, reject) => {
      proxy.server.once("error", reject);
      proxy.server.listen(0, "127.0.0.1", () => {
        const address = proxy.server.address();
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("the fault proxy has no port"));
      });
    });
    return proxy;
  }

  get partitioned(): boolean {
    return this.fault === "blackhole";
  }

  /** Starts `fault`; `restore` ends it. */
  inject(fault: NetworkFault): void {
    this.fault = fault;
    this.injected[fault]++;
    if (fault === "cut") for (const link of [...this.links]) link.reset();
  }

  restore(): void {
    this.fault = undefined;
    for (const link of [...this.links]) link.heal();
  }

  /** `fault` for `ms`, then restored (also when the wait is interrupted). */
  async during(fault: NetworkFault, ms: number): Promise<void> {
    this.inject(fault);
    try {
      await new Promise((resolve) => setTimeout(resolve, ms));
    } finally {
      this.restore();
    }
  }

  async close(): Promise<void> {
    for (const link of [...this.links]) link.close();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
