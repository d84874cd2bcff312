// The Nodes behind readiness counted from Nodes (node-readiness.ts): ONE cluster-wide Node informer,
// whatever the number of node selectors, holding only what a count reads (leanNode, every label
// kept), created the first time a group with a selector is reconciled, so an operator with no such
// group never lists a Node and needs no permission on them. Selectors are evaluated in memory: a
// count walks the cached Nodes, and a Node change calls `onChange` with every selector counted lately
// that selects the Node before or after it (setup.ts enqueues the groups declaring it). One watch
// however often selectors change: an informer per distinct selector, never stopped, let a loop of
// patches to spec.readiness.nodeSelector open a watch per value (docs/lifecycle.md "Readiness counted
// from Nodes"). Before the informer is created, one list call checks that the operator may read Nodes
// at all; a refusal is an answer, not an error: the group says so in its status (forbidden below) and
// the check is repeated after `forbiddenRetryMs`.
import { isForbidden } from "../runtime/api-errors.js";
import { Node, NODES } from "../runtime/builtin-kinds.js";
import { realClock, sleep, type Clock } from "../runtime/clock.js";
import type { Informer } from "../runtime/informer.js";
import type { InformerSpec } from "../runtime/manager.js";
import type { KubeObject } from "../runtime/object.js";
import type { KubeClient } from "../runtime/resource-client.js";
import { resourcePath } from "../runtime/resource-kind.js";
import { TtlCache } from "../runtime/ttl-cache.js";
import type { NodeSelector } from "../api/readiness.js";
import {
  leanNode,
  readinessChanged,
  countNodes,
  selects,
  selectorString,
  type HeldBack,
  type NodeReadinessRule,
} from "./node-readiness.js";

/** Selectors remembered for change notifications; the least recently counted is forgotten first. */
const MAX_SELECTORS = 4096;

/**
 * A group's ready Nodes and the selected ones that do not count (so that a request and the group can
 * say why), or why they cannot be counted.
 */
export type NodeCount =
  { readonly ready: number; readonly heldBack: HeldBack } | { readonly forbidden: string };

/** What the observer asks (a fake in unit tests). */
export interface NodeCounter {
  count(rule: NodeReadinessRule): Promise<NodeCount>;
  /** The cached Nodes `selector` selects (none before a count has started the informer). */
  selected(selector: NodeSelector): readonly Node[];
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
  private informer: Informer<Node> | undefined;
  /** The selectors counted lately (by selectorString), in the order of their last count. */
  private readonly selectors = new Map<string, NodeSelector>();
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

  /** Node watches opened (0 or 1, whatever the number of selectors): for the metric and tests. */
  watches(): number {
    return this.informer === undefined ? 0 : 1;
  }

  async count(rule: NodeReadinessRule): Promise<NodeCount> {
    const selector = selectorString(rule.nodeSelector);
    this.remember(selector, rule.nodeSelector);
    let informer = this.informer;
    if (!informer) {
      if (!(await this.permission.get("nodes", () => this.mayListNodes())))
        return { forbidden: NODES_FORBIDDEN_MESSAGE };
      informer = this.informer ?? this.start();
    }
    if (!(await this.synced(informer)))
      throw new Error(`the Nodes selected by ${selector} are not listed yet; retrying`);
    return countNodes(informer.lister.list(), rule);
  }

  selected(selector: NodeSelector): readonly Node[] {
    return (this.informer?.lister.list() ?? []).filter((n) => selects(selector, n.metadata.labels));
  }

  private remember(selector: string, nodeSelector: NodeSelector): void {
    // Re-inserted: the map's order is the order of last count.
    this.selectors.delete(selector);
    this.selectors.set(selector, nodeSelector);
    if (this.selectors.size > MAX_SELECTORS) {
      const oldest = this.selectors.keys().next();
      if (!oldest.done) this.selectors.delete(oldest.value);
    }
  }

  private async mayListNodes(): Promise<boolean> {
    try {
      await this.options.client.resource(NODES).list({ limit: 1 });
      return true;
    } catch (err) {
      if (isForbidden(err)) return false;
      throw err;
    }
  }

  /** Tells every remembered selector that selects one of `nodes` (a Node before and after a change). */
  private changed(...nodes: Node[]): void {
    for (const [selector, nodeSelector] of this.selectors)
      if (nodes.some((n) => selects(nodeSelector, n.metadata.labels))) this.options.onChange(selector);
  }

  private start(): Informer<Node> {
    const informer = this.options.informer<Node>({
      name: "nodes",
      path: resourcePath(NODES),
      transform: leanNode(),
      decode: (raw) => Node.parse(raw),
    });
    informer.addEventHandler({
      onAdd: (node) => {
        this.changed(node);
      },
      onUpdate: (before, after) => {
        if (readinessChanged(before, after)) this.changed(before, after);
      },
      onDelete: (node) => {
        this.changed(node);
      },
    });
    this.informer = informer;
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
