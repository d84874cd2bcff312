// Test double for the recorder's unit tests: a scripted in-memory sink (time comes from the FakeClock
// of test/support).
import type { EventsV1Event, EventsV1EventSeries } from "@kubernetes/client-node";
import { SinkError, type EventSink, type EventTarget } from "../../../src/events/sink.js";

export type Call =
  | { kind: "create"; event: EventsV1Event }
  | { kind: "patch"; target: EventTarget; series: EventsV1EventSeries };

/** Behaves like the API server's event storage; `failures` are thrown by the next calls, in order. */
export class FakeSink implements EventSink {
  readonly calls: Call[] = [];
  readonly stored = new Map<string, EventsV1Event>();
  failures: Error[] = [];
  /** When set, calls wait for this promise before answering (a slow or hung server). */
  gate: Promise<void> | undefined;
  /** When set, the time of each call is recorded in `times` (to measure the delays between retries). */
  now: (() => number) | undefined;
  readonly times: number[] = [];

  async create(event: EventsV1Event): Promise<void> {
    this.calls.push({ kind: "create", event });
    await this.answer();
    const key = `${event.metadata?.namespace ?? ""}/${event.metadata?.name ?? ""}`;
    if (this.stored.has(key)) throw new SinkError("already exists", 409);
    this.stored.set(key, event);
  }

  async patchSeries(target: EventTarget, series: EventsV1EventSeries): Promise<void> {
    this.calls.push({ kind: "patch", target, series });
    await this.answer();
    const key = `${target.namespace}/${target.name}`;
    const event = this.stored.get(key);
    if (!event) throw new SinkError("not found", 404);
    this.stored.set(key, Object.assign({}, event, { series }));
  }

  summary(): string[] {
    return this.calls.map((c) =>
      c.kind === "create"
        ? `create${c.event.series ? ` ${c.event.series.count}` : ""}`
        : `patch ${c.series.count}`,
    );
  }

  private async answer(): Promise<void> {
    if (this.now) this.times.push(this.now());
    if (this.gate) await this.gate;
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
  }
}
