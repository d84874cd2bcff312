// futureReservations on the wire: the FutureReservation ↔ REST conversion both ways, and insert bodies
// refused with 400 naming the field for everything this API does not honour (never ignored).
import type { FutureReservation } from "../../../src/api/future-reservation.js";
import {
  FutureReservationInsert,
  fromRestFutureReservation,
  toRestFutureReservation,
} from "../../../src/api/future-reservation-rest.js";
import { wireFields } from "../../../src/api/future-reservation-wire.js";
import { numericId } from "../../../src/api/identity.js";
import { InvalidError } from "../../../src/rest/errors.js";
import { parseBody } from "../../../src/rest/validate.js";

const PLACE = { publicUrl: "https://rest.example", project: "ml", zone: "local-a" };
const UID = "5b0c1f7e-8d1b-4c1a-9f00-1b2c3d4e5f60";

const body = {
  name: "training-week",
  description: "fine-tuning run",
  reservationMode: "CALENDAR",
  specificSkuProperties: { totalCount: "8", instanceProperties: { machineType: "gpu-workers" } },
  timeWindow: { startTime: "2026-03-02T09:00:00Z", duration: { seconds: "259200" } },
};

function refusal(input: unknown): { message: string; locations: (string | undefined)[] } {
  try {
    parseBody(FutureReservationInsert, input);
  } catch (err) {
    if (!(err instanceof InvalidError)) throw err;
    return { message: err.message, locations: err.details.map((d) => d.location) };
  }
  throw new Error("accepted");
}

test("an insert body becomes the FutureReservation a kubectl user would apply", () => {
  expect(fromRestFutureReservation(parseBody(FutureReservationInsert, body), "ml")).toEqual({
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "FutureReservation",
    metadata: { name: "training-week", namespace: "ml" },
    spec: {
      instanceGroupManager: "gpu-workers",
      totalCount: 8,
      timeWindow: { startTime: "2026-03-02T09:00:00Z", duration: { seconds: "259200" } },
      description: "fine-tuning run",
      cancel: false,
    },
  });
});

test("a FutureReservation answers as the compute API's FutureReservation, and back again", () => {
  const fr: FutureReservation = {
    ...fromRestFutureReservation(parseBody(FutureReservationInsert, body), "ml"),
    metadata: { name: "training-week", namespace: "ml", uid: UID, creationTimestamp: "2026-03-01T10:00:00Z" },
    status: { procurementStatus: "APPROVED" },
  };
  const base = "https://rest.example/compute/v1/projects/ml/zones/local-a";
  const rest = toRestFutureReservation(fr, PLACE);
  expect(rest).toEqual({
    kind: "compute#futureReservation",
    id: numericId(UID),
    creationTimestamp: "2026-03-01T10:00:00Z",
    name: "training-week",
    description: "fine-tuning run",
    zone: base,
    selfLink: `${base}/futureReservations/training-week`,
    selfLinkWithId: `${base}/futureReservations/${numericId(UID)}`,
    reservationMode: "CALENDAR",
    planningStatus: "SUBMITTED",
    specificSkuProperties: { totalCount: "8", instanceProperties: { machineType: "gpu-workers" } },
    timeWindow: { startTime: "2026-03-02T09:00:00Z", duration: { seconds: "259200" } },
    status: { procurementStatus: "APPROVED" },
  });
  // What get answers can be sent to insert again: its output-only fields are ignored on input.
  expect(fromRestFutureReservation(parseBody(FutureReservationInsert, rest), "ml").spec).toEqual(fr.spec);
});

test("a booking the controller has not decided yet is PENDING_APPROVAL; an end time is kept", () => {
  const fr = fromRestFutureReservation(
    parseBody(FutureReservationInsert, {
      ...body,
      reservationMode: undefined,
      timeWindow: { startTime: "2026-03-02T09:00:00Z", endTime: "2026-03-05T09:00:00Z" },
    }),
    "ml",
  );
  const rest = toRestFutureReservation(fr, PLACE);
  expect(rest.status).toEqual({ procurementStatus: "PENDING_APPROVAL" });
  expect(rest.timeWindow).toEqual({ startTime: "2026-03-02T09:00:00Z", endTime: "2026-03-05T09:00:00Z" });
});

const sku = (totalCount: unknown, machineType: unknown = "gpu-workers") => ({
  ...body,
  specificSkuProperties: { totalCount, instanceProperties: { machineType } },
});

test.each([
  ["another mode", { ...body, reservationMode: "DEFAULT" }, "reservationMode", /CALENDAR/],
  ["a draft", { ...body, planningStatus: "DRAFT" }, "planningStatus", /drafts/],
  ["no name", { ...body, name: undefined }, "name", /./],
  ["a name that is not RFC 1035", { ...body, name: "Training" }, "name", /RFC 1035/],
  ["no time window", { ...body, timeWindow: undefined }, "timeWindow", /./],
  [
    "both endTime and duration",
    { ...body, timeWindow: { ...body.timeWindow, endTime: "2026-03-05T09:00:00Z" } },
    "timeWindow",
    /exactly one of endTime and duration/,
  ],
  [
    "an end before the start",
    { ...body, timeWindow: { startTime: "2026-03-02T09:00:00Z", endTime: "2026-03-01T09:00:00Z" } },
    "timeWindow.endTime",
    /after startTime/,
  ],
  [
    "a window over 90 days",
    { ...body, timeWindow: { startTime: "2026-03-02T09:00:00Z", duration: { seconds: "7776001" } } },
    "timeWindow.duration",
    /90 days/,
  ],
  ["a count of 0", sku("0"), "specificSkuProperties.totalCount", /from 1/],
  ["a count as a number", sku(8), "specificSkuProperties.totalCount", /./],
  ["a count over int32", sku("2147483648"), "specificSkuProperties.totalCount", /from 1/],
  [
    "no group",
    { ...body, specificSkuProperties: { totalCount: "8", instanceProperties: {} } },
    "specificSkuProperties.instanceProperties.machineType",
    /./,
  ],
  [
    "a machine type that names no group",
    sku("8", "n2-standard-8/x"),
    "specificSkuProperties.instanceProperties.machineType",
    /RFC 1035/,
  ],
  [
    "an instance property other than the group",
    { ...body, specificSkuProperties: { ...body.specificSkuProperties, sourceInstanceTemplate: "t" } },
    "specificSkuProperties.sourceInstanceTemplate",
    /Unknown field/,
  ],
  [
    "guest accelerators",
    {
      ...body,
      specificSkuProperties: {
        totalCount: "8",
        instanceProperties: { machineType: "g", guestAccelerators: [{ acceleratorCount: 1 }] },
      },
    },
    "specificSkuProperties.instanceProperties.guestAccelerators",
    /Unknown field/,
  ],
  ["a field the compute API lacks", { ...body, colour: "blue" }, "colour", /Unknown field/],
])("refuses %s", (_what, input, location, message) => {
  const { message: text, locations } = refusal(input);
  expect(locations).toContain(location);
  expect(text).toMatch(message);
});

// Every field of the official FutureReservation that is neither honoured nor output-only is refused.
const HONOURED = [
  "name",
  "description",
  "reservationMode",
  "planningStatus",
  "timeWindow",
  "specificSkuProperties",
];
const OUTPUT_ONLY = ["kind", "id", "creationTimestamp", "zone", "selfLink", "selfLinkWithId", "status"];
const UNSUPPORTED = wireFields("FutureReservation").filter(
  (f) => !HONOURED.includes(f) && !OUTPUT_ONLY.includes(f),
);

test("the official fields split into honoured, output-only and refused ones", () => {
  expect(UNSUPPORTED).toEqual(
    expect.arrayContaining(["autoDeleteAutoCreatedReservations", "shareSettings", "aggregateReservation"]),
  );
  expect(UNSUPPORTED.length + HONOURED.length + OUTPUT_ONLY.length).toBe(
    wireFields("FutureReservation").length,
  );
});

test.each(UNSUPPORTED)("refuses %s, naming it", (field) => {
  expect(refusal({ ...body, [field]: true }).locations).toEqual([field]);
});
