// The harness every reliability suite (test/reliability) shares: the CRDs installed before, the
// operators and namespaces a round made (stopped and removed after all tests), a fresh namespace with
// its groups, and the soak loop (one round in the bounded run, rounds until SOAK_MINUTES in
// `npm run test:soak`, each round's figures reported).
import { installApi } from "../integration/api/install.js";
import { createTestNamespace } from "./kube.js";
import { stopAll, type OperatorProcess } from "./operator.js";
import { report, SOAK, soakDeadline, soakTimeout } from "./reliability.js";
import { createGroup, createWorkers } from "./resize.js";

type Figures = Record<string, string | number>;

export interface RoundNamespace {
  readonly name: string;
  /** The groups made in it: g0 … gN-1, each over its own worker Deployment at 0 replicas. */
  readonly groups: string[];
}

export interface ReliabilitySuite {
  /** Operators to stop after all tests (and before their namespaces are removed). */
  track<T extends OperatorProcess>(process: T): T;
  /** A fresh namespace `prefix-…` with `groups` groups (spec `group`), removed after all tests. */
  namespace(prefix: string, groups?: number, group?: Record<string, unknown>): Promise<RoundNamespace>;
  /**
   * A test that runs `round` once (bounded run) or until the soak time is over, reporting each
   * round's figures under `name` with `fixed` first; the namespaces of a finished soak round are
   * removed at once. Returns the number of rounds to `after`.
   */
  soak(
    title: string,
    options: { name: string; boundedMs: number; fixed?: Figures; after?: (rounds: number) => void },
    round: (index: number) => Promise<Figures>,
  ): void;
}

export function reliabilitySuite(cleanup?: {
  teardown?: () => Promise<unknown>;
  timeoutMs?: number;
}): ReliabilitySuite {
  const operators: OperatorProcess[] = [];
  const namespaces: { remove: () => Promise<void> }[] = [];
  beforeAll(async () => {
    await installApi();
  });
  afterAll(async () => {
    await stopAll(operators);
    await cleanup?.teardown?.();
    await Promise.all(namespaces.map((ns) => ns.remove()));
  }, cleanup?.timeoutMs);

  return {
    track(process) {
      operators.push(process);
      return process;
    },
    async namespace(prefix, groups = 0, group = {}) {
      const ns = await createTestNamespace(prefix);
      namespaces.push(ns);
      const names = Array.from({ length: groups }, (_, g) => `g${g}`);
      // Ten at a time: 50 groups at once would queue behind the client's connection limit anyway.
      for (let i = 0; i < names.length; i += 10) {
        await Promise.all(
          names.slice(i, i + 10).map(async (g) => {
            await createWorkers(ns.name, g, 0);
            await createGroup(ns.name, g, group);
          }),
        );
      }
      return { name: ns.name, groups: names };
    },
    soak(title, { name, boundedMs, fixed = {}, after }, round) {
      test(
        title,
        async () => {
          const deadline = soakDeadline();
          let rounds = 0;
          do {
            const result = await round(rounds);
            rounds++;
            report(name, { round: rounds, ...fixed, ...result });
            if (SOAK) await Promise.all(namespaces.splice(0).map((ns) => ns.remove()));
          } while (Date.now() < deadline);
          after?.(rounds);
        },
        soakTimeout(boundedMs),
      );
    },
  };
}
