// The data the pages show, kept in memory: loaded once, then kept current by the live stream. Pages
// read it; the stream's changes are collected and handed to the open page in batches.
import { fifo } from "../../api/lifecycle.js";
import type { MeAnswer, StreamPayloads, StreamUpdate } from "../answers.js";
import type { BookingSummary } from "../booking-timeline.js";
import type { EventSummary } from "../../events/view.js";
import type { GroupSummary, RequestSummary } from "../views.js";
import { keyOf } from "./format.js";

/** What changed since the open page last heard: keys of requests, groups and bookings, and whether events did. */
export interface Changes {
  readonly requests: ReadonlySet<string>;
  readonly groups: ReadonlySet<string>;
  readonly bookings: ReadonlySet<string>;
  readonly events: boolean;
}

const noChanges = () => ({
  requests: new Set<string>(),
  groups: new Set<string>(),
  bookings: new Set<string>(),
  events: false,
});

/** Newest events kept; the Events page shows the first 200. */
const EVENTS_KEPT = 500;

class Store {
  me: MeAnswer | null = null;
  readonly groups = new Map<string, GroupSummary>();
  readonly requests = new Map<string, RequestSummary>();
  readonly bookings = new Map<string, BookingSummary>();
  events: readonly EventSummary[] = [];
  private positions: Map<string, number> | undefined;
  private pending = noChanges();

  load(
    groups: readonly GroupSummary[],
    requests: readonly RequestSummary[],
    events: readonly EventSummary[],
    bookings: readonly BookingSummary[],
  ) {
    for (const g of groups) this.groups.set(keyOf(g), g);
    for (const r of requests) this.requests.set(keyOf(r), r);
    for (const b of bookings) this.bookings.set(keyOf(b), b);
    this.events = events;
    this.positions = undefined;
  }

  /** Applies one message of the stream. */
  apply<K extends keyof StreamPayloads>(type: K, update: StreamUpdate<StreamPayloads[K]>): void {
    // The event name tells the payload's type; narrowing the generic needs these checks.
    if (type === "request") this.applyRequest(update as StreamUpdate<RequestSummary>);
    else if (type === "group") this.applyGroup(update as StreamUpdate<GroupSummary>);
    else if (type === "booking") this.applyBooking(update as StreamUpdate<BookingSummary>);
    else this.applyEvent(update as StreamUpdate<EventSummary>);
  }

  private applyRequest({ op, data }: StreamUpdate<RequestSummary>): void {
    const key = keyOf(data);
    if (op === "delete") this.requests.delete(key);
    else this.requests.set(key, data);
    this.positions = undefined;
    this.pending.requests.add(key);
  }

  private applyGroup({ op, data }: StreamUpdate<GroupSummary>): void {
    const key = keyOf(data);
    if (op === "delete") this.groups.delete(key);
    else this.groups.set(key, data);
    this.pending.groups.add(key);
  }

  private applyBooking({ op, data }: StreamUpdate<BookingSummary>): void {
    const key = keyOf(data);
    if (op === "delete") this.bookings.delete(key);
    else this.bookings.set(key, data);
    this.pending.bookings.add(key);
  }

  private applyEvent({ data }: StreamUpdate<EventSummary>): void {
    const key = keyOf(data);
    this.events = [data, ...this.events.filter((e) => keyOf(e) !== key)].slice(0, EVENTS_KEPT);
    this.pending.events = true;
  }

  /** The changes applied since the last call. */
  takeChanges(): Changes {
    const changes = this.pending;
    this.pending = noChanges();
    return changes;
  }

  /**
   * Position in its group's queue (1 = next to start), by the controller's FIFO order: the operator
   * does not store it, so that a queue moving up costs no writes.
   */
  queuePosition(r: RequestSummary): number | null {
    this.positions ??= queuePositions(this.requests.values());
    return this.positions.get(keyOf(r)) ?? null;
  }
}

function queuePositions(requests: Iterable<RequestSummary>): Map<string, number> {
  const queues = new Map<string, RequestSummary[]>();
  for (const r of requests) {
    if (!r.queued) continue;
    const group = `${r.namespace}/${r.group}`;
    const queue = queues.get(group) ?? [];
    queue.push(r);
    queues.set(group, queue);
  }
  const positions = new Map<string, number>();
  const entry = (r: RequestSummary) => ({ creationTimestamp: r.created ?? "", name: r.name });
  for (const queue of queues.values())
    queue.sort((a, b) => fifo(entry(a), entry(b))).forEach((r, i) => positions.set(keyOf(r), i + 1));
  return positions;
}

export const store = new Store();
