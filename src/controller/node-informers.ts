// The Nodes behind readiness counted from Nodes (node-readiness.ts): one informer per distinct node
// selector, label-selected by the API server and holding only what the count reads (leanNode), created
// the first time a group with that selector is reconciled, so an operator with no such group never
// lists a Node and needs no permission on them. A Node change that can change a count calls `onChange`
// with its selector (setup.ts enqueues the groups declaring it). Before an informer is created, one
// list call checks that the operator may read Nodes at all; a refusal is an answer, not an error: the
// group says so in its status (forbidden below) and the check is repeated after `forbiddenRetryMs`.
import { isForbidden } from "../runtime/api-errors.js";
import { Node, NODES } from "../runtime/builtin-kinds.js";
import { realClock, sleep, type Clock } from "../runtime/clock.js";
import type { Informer } from "../runtime/informer.js";
import type { InformerSpec } from "../runtime/manager.js";
import type { KubeObject } from "../runtime/object.js";
import type { KubeClient } from "../runtime/resource-client.js";
import { resourcePath } from "../runtime/resource-kind.js";
import { TtlCache } from "../runtime/ttl-cache.js";
import {
  leanNode,
  readinessChanged,
  readyNodeCount,
  selectorString,
  type NodeReadinessRule,
} from "./node-readiness.js";

/** A group's ready Nodes, or why they cannot be counted. */
export type NodeCount = { readonly ready: number } | { readonly forbidden: string };

/** What the observer asks (a fake in unit tests). */
export interface NodeCounter {
  count(rule: NodeReadinessRule): Promise<NodeCount>;
}

export const NODES_FORBIDDEN_MESSAGE =
  "the operator may not list and watch Nodes, which spec.readiness.nodeSelector needs: install the chart with rbac.nodeReadiness=true (or rbac.karpenter=true), or grant its ServiceAccount list and watch on nodes";

export interface NodeInformersOptions {
  /** The manager's shared informers (`mgr.informer`). */
  readonly informer: <T extends KubeObject>(spec: InformerSpec<T>) => Informer<T>;
  readonly client: KubeClient;
  /** Called with a selector (selectorString) when one of its Nodes changed in a way a count can see. */
  readonly onChange: (selector: string) => void;
  readonly clock?: Clock;
  /** How long a refusal is believed before the permission is checked again (default 10 s). */
  readonly forbiddenRetryMs?: number;
  /** How long a count waits for a new informer's first list before the pass fails (default 10 s). */
  readonly syncWaitMs?: number;
}

export class NodeInformers implements NodeCounter {
  private readonly informers = new Map<string, Informer<Node>>();
  private readonly permission: TtlCache<"nodes", boolean>;
  private readonly clock: Clock;

  constructor(private readonly options: NodeInformersOptions) {
    this.clock = options.clock ?? realClock;
    this.permission = new TtlCache({
      ttlMs: options.forbiddenRetryMs ?? 10_000,
      maxEntries: 1,
      clock: this.clock,
    });
  }

  async count(rule: NodeReadinessRule): Promise<NodeCount> {
    const selector = selectorString(rule.nodeSelector);
    let informer = this.informers.get(selector);
    if (!informer) {
      if (!(await this.permission.get("nodes", () => this.mayListNodes(selector))))
        return { forbidden: NODES_FORBIDDEN_MESSAGE };
      informer = this.informers.get(selector) ?? this.start(selector, rule);
    }
    if (!(await this.synced(informer)))
      throw new Error(`the Nodes selected by ${selector} are not listed yet; retrying`);
    return { ready: readyNodeCount(informer.lister.list(), rule) };
  }

  private async mayListNodes(selector: string): Promise<boolean> {
    try {
      await this.options.client.resource(NODES).list({ labelSelector: selector, limit: 1 });
      return true;
    } catch (err) {
      if (isForbidden(err)) return false;
      throw err;
    }
  }

  private start(selector: string, rule: NodeReadinessRule): Informer<Node> {
    const informer = this.options.informer<Node>({
      name: `nodes(${selector})`,
      path: resourcePath(NODES),
      labelSelector: selector,
      transform: leanNode(rule.nodeSelector),
      decode: (raw) => Node.parse(raw),
    });
    const changed = (): void => {
      this.options.onChange(selector);
    };
    informer.addEventHandler({
      onAdd: changed,
      onUpdate: (before, after) => {
        if (readinessChanged(before, after)) changed();
      },
      onDelete: changed,
    });
    this.informers.set(selector, informer);
    return informer;
  }

  /** Whether the informer has listed, waiting up to syncWaitMs for a new one's first list. */
  private async synced(informer: Informer<Node>): Promise<boolean> {
    if (informer.hasSynced()) return true;
    const waited = new AbortController();
    void sleep(this.clock, this.options.syncWaitMs ?? 10_000, waited.signal).then(() => {
      waited.abort();
    });
    const synced = await informer.waitForSync(waited.signal);
    waited.abort();
    return synced;
  }
}
