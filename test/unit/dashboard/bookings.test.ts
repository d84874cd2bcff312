// The dashboard's view of bookings, table by table: a FutureReservation's summary (window resolved by
// the controller or from the spec, status, a declined one's message and suggested window, the delivery
// request's name, Ended) and which bookings are on a group's timeline at a moment, in which order.
import type { FutureReservation } from "../../../src/api/future-reservation.js";
import {
  bookingOver,
  bookingsOnTimeline,
  type BookingSummary,
} from "../../../src/dashboard/booking-timeline.js";
import { bookingSummary } from "../../../src/dashboard/bookings-view.js";

const START = "2030-01-01T09:00:00Z";
const T = Date.parse(START);
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

type Window = FutureReservation["spec"]["timeWindow"];

function fr(
  name: string,
  window: Window,
  status?: FutureReservation["status"],
  cancel = false,
): FutureReservation {
  return {
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "FutureReservation",
    metadata: { name, namespace: "ml", creationTimestamp: "2029-12-31T00:00:00Z" },
    spec: { instanceGroupManager: "gpu", totalCount: 3, timeWindow: window, cancel, description: "run" },
    ...(status && { status }),
  };
}

const DECLINED_MESSAGE =
  "Declined: group gpu holds up to 2 of maxSize 4 instances … The earliest window of the same length that fits is 2030-01-01T10:00:00Z to 2030-01-01T11:00:00Z.";

describe("bookingSummary", () => {
  test.each([
    {
      what: "new, with a duration: pending, the end computed from the spec",
      booking: fr("a", { startTime: START, duration: { seconds: "3600" } }),
      expected: {
        start: START,
        end: iso(T + 60 * MIN),
        status: "PENDING_APPROVAL",
        message: null,
        suggested: null,
      },
    },
    {
      what: "new, with an endTime: the spec's end",
      booking: fr("a", { startTime: START, endTime: "2030-01-01T09:30:00Z" }),
      expected: { end: "2030-01-01T09:30:00Z", status: "PENDING_APPROVAL" },
    },
    {
      what: "a duration with nanos",
      booking: fr("a", { startTime: START, duration: { seconds: "1", nanos: 500_000_000 } }),
      expected: { end: iso(T + 1500) },
    },
    {
      what: "approved: the controller's window wins",
      booking: fr(
        "a",
        { startTime: START, duration: { seconds: "3600" } },
        {
          procurementStatus: "APPROVED",
          startTime: START,
          endTime: "2030-01-01T10:00:00.000Z",
          message: "Approved",
        },
      ),
      expected: { end: "2030-01-01T10:00:00.000Z", status: "APPROVED", message: "Approved", ended: false },
    },
    {
      what: "declined: its message and the earliest window that fits",
      booking: fr(
        "a",
        { startTime: START, duration: { seconds: "3600" } },
        {
          procurementStatus: "DECLINED",
          message: DECLINED_MESSAGE,
          suggestedTimeWindow: { startTime: "2030-01-01T10:00:00Z", endTime: "2030-01-01T11:00:00Z" },
        },
      ),
      expected: {
        status: "DECLINED",
        message: DECLINED_MESSAGE,
        suggested: { start: "2030-01-01T10:00:00Z", end: "2030-01-01T11:00:00Z" },
      },
    },
    {
      what: "cancel asked, not yet seen by the controller",
      booking: fr(
        "a",
        { startTime: START, duration: { seconds: "60" } },
        { procurementStatus: "APPROVED" },
        true,
      ),
      expected: { status: "APPROVED", cancelRequested: true },
    },
    {
      what: "fulfilled and ended (condition Ended=True)",
      booking: fr(
        "a",
        { startTime: START, duration: { seconds: "60" } },
        {
          procurementStatus: "FULFILLED",
          conditions: [
            {
              type: "Delivered",
              status: "True",
              reason: "Delivered",
              message: "",
              lastTransitionTime: START,
            },
            { type: "Ended", status: "True", reason: "WindowEnded", message: "", lastTransitionTime: START },
          ],
        },
      ),
      expected: { status: "FULFILLED", ended: true },
    },
    {
      what: "Ended not True is not ended",
      booking: fr(
        "a",
        { startTime: START, duration: { seconds: "60" } },
        {
          procurementStatus: "FULFILLED",
          conditions: [
            { type: "Ended", status: "False", reason: "Running", message: "", lastTransitionTime: START },
          ],
        },
      ),
      expected: { ended: false },
    },
  ])("$what", ({ booking, expected }) => {
    expect(bookingSummary(booking)).toMatchObject({
      namespace: "ml",
      name: "a",
      group: "gpu",
      count: 3,
      delivery: "fr-a",
      description: "run",
      created: "2029-12-31T00:00:00Z",
      ...expected,
    });
  });

  test("the delivery request's name is the controller's: fr- and the name, cut to 63 characters", () => {
    const long = "b".repeat(61);
    const summary = bookingSummary(fr(long, { startTime: START, duration: { seconds: "60" } }));
    expect(summary.delivery).toBe(`fr-${"b".repeat(60)}`);
    expect(summary.delivery).toHaveLength(63);
  });
});

const summary = (over: Partial<BookingSummary> & { name: string }): BookingSummary => ({
  namespace: "ml",
  group: "gpu",
  count: 1,
  start: iso(T),
  end: iso(T + 60 * MIN),
  status: "APPROVED",
  message: null,
  suggested: null,
  delivery: `fr-${over.name}`,
  ended: false,
  cancelRequested: false,
  description: null,
  created: null,
  ...over,
});

describe("bookingOver", () => {
  test.each([
    { what: "ahead", b: { start: iso(T + MIN), end: iso(T + 2 * MIN) }, over: false },
    { what: "in its window", b: { start: iso(T - MIN), end: iso(T + MIN) }, over: false },
    { what: "ending exactly now", b: { start: iso(T - MIN), end: iso(T) }, over: true },
    {
      what: "ended by the clock (declined: no Ended condition)",
      b: { end: iso(T - 1), status: "DECLINED" },
      over: true,
    },
    {
      what: "Ended by the controller before the clock says so",
      b: { end: iso(T + MIN), ended: true },
      over: true,
    },
    { what: "an end not known", b: { end: null }, over: false },
  ] as const)("$what: $over", ({ b, over }) => {
    expect(bookingOver(summary({ name: "x", ...b }), T)).toBe(over);
  });
});

describe("bookingsOnTimeline", () => {
  const ahead = summary({ name: "ahead", start: iso(T + 30 * MIN), end: iso(T + 90 * MIN) });
  const sameStart = summary({
    name: "aaa",
    start: iso(T + 30 * MIN),
    end: iso(T + 40 * MIN),
    status: "DECLINED",
  });
  const inWindow = summary({
    name: "now",
    start: iso(T - 5 * MIN),
    end: iso(T + 5 * MIN),
    status: "FULFILLED",
  });
  const ended = summary({ name: "done", start: iso(T - 5 * MIN), end: iso(T + 5 * MIN), ended: true });
  const past = summary({ name: "past", start: iso(T - 60 * MIN), end: iso(T - 1), status: "CANCELLED" });
  const otherGroup = summary({ name: "other", group: "cpu" });
  const otherNamespace = summary({ name: "elsewhere", namespace: "web" });

  test.each([
    { what: "none", bookings: [], shown: [] },
    { what: "ahead and in its window, by start", bookings: [ahead, inWindow], shown: ["now", "ahead"] },
    { what: "the same start: by name", bookings: [ahead, sameStart], shown: ["aaa", "ahead"] },
    { what: "ended ones drop off (condition or clock)", bookings: [ended, past, ahead], shown: ["ahead"] },
    {
      what: "only the group's own, in its namespace",
      bookings: [otherGroup, otherNamespace, inWindow],
      shown: ["now"],
    },
  ])("$what", ({ bookings, shown }) => {
    expect(bookingsOnTimeline(bookings, "ml", "gpu", T).map((b) => b.name)).toEqual(shown);
  });
});
