// Handlers of `futureReservations` (docs/rest.md): insert, get, list, cancel, delete of the bookings of
// a zone. A booking is a FutureReservation in the project's namespace; its zone is its group's (the
// InstanceGroupManager spec.instanceGroupManager names), so a zone lists the bookings of its zonal
// groups. Each write records an Operation, makes its one change to the cluster, and is DONE with it:
// the booking's own decision (approval, delivery) is its procurementStatus, not the Operation's.
import {
  bookingId,
  fromRestFutureReservation,
  futureReservationsUrl,
  toRestFutureReservation,
  type BookingPlace,
  type FutureReservationInsert,
} from "../api/future-reservation-rest.js";
import { FINAL_PROCUREMENT_STATUSES, type FutureReservation } from "../api/future-reservation.js";
import { FUTURE_RESERVATIONS, INSTANCE_GROUP_MANAGERS } from "../api/kinds.js";
import {
  groupLocation,
  locationUrl,
  type Location,
  type Operation,
  type OperationType,
} from "../api/index.js";
import { FUTURE_RESERVATIONS_RESOURCE, REST_KIND } from "../api/names.js";
import { newOperation, newOperationId, newOperationName, type OperationRef } from "../operations/model.js";
import type { RequestIdCall } from "../operations/request-id.js";
import { isNotFound } from "../runtime/api-errors.js";
import { mutate } from "./change-outcome.js";
import { findGroup } from "./cluster.js";
import { authorizeGroupUse } from "./group-use.js";
import { InvalidResourceUsageError, NotFoundError } from "./errors.js";
import { listAnswer, type ListParams } from "./list-answer.js";
import type { CallContext, Reply } from "./route.js";

type OfZone = { readonly project: string; readonly zone: string };
type OneBooking = OfZone & { readonly futureReservation: string };
type Idempotent = { readonly requestId?: string };
type Verb = "insert" | "cancel" | "delete";

const zoneOf = (params: OfZone): Location => ({ scope: "zones", name: params.zone });
const placeOf = (call: CallContext<OfZone, unknown>): BookingPlace => ({
  publicUrl: call.deps.publicUrl,
  project: call.params.project,
  zone: call.params.zone,
});
const operationType = (verb: Verb): OperationType => `compute.${FUTURE_RESERVATIONS_RESOURCE}.${verb}`;

/** The booking of a zone a call names, by name or numeric id; NotFoundError when not in that zone. */
async function findBooking(call: CallContext<OneBooking, unknown>): Promise<FutureReservation> {
  const { kube } = call.deps;
  const { project, futureReservation: nameOrId } = call.params;
  const bookings = kube.resource(FUTURE_RESERVATIONS);
  const found = /^[0-9]+$/.test(nameOrId)
    ? (await bookings.list({ namespace: project })).items.find((fr) => bookingId(fr) === nameOrId)
    : await bookings.get({ namespace: project, name: nameOrId }).catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
  const notFound = new NotFoundError(
    `The resource 'projects/${project}/zones/${call.params.zone}/futureReservations/${nameOrId}' was not found`,
  );
  if (!found) throw notFound;
  // Its zone is its group's: a booking whose group is elsewhere (or gone) is not in this zone.
  await findGroup(kube, project, zoneOf(call.params), found.spec.instanceGroupManager).catch(
    (err: unknown) => {
      throw err instanceof NotFoundError ? notFound : err;
    },
  );
  return found;
}

/** Records the Operation of a write (or finds the one its requestId already has, for the same call). */
async function startOperation(
  call: CallContext<OfZone & Idempotent, unknown>,
  verb: Verb,
  name: string,
  id?: string,
): Promise<{ operation: Operation; ref: OperationRef; created: boolean }> {
  const { deps, params, user } = call;
  const now = deps.now();
  const location = zoneOf(params);
  const ref: OperationRef = { project: params.project, location, name: newOperationName(now) };
  const base = futureReservationsUrl(placeOf(call));
  const operation = newOperation({
    ref,
    id: newOperationId(),
    operationType: operationType(verb),
    locationUrl: locationUrl(deps.publicUrl, params.project, location),
    targetLink: `${base}/${name}`,
    ...(id !== undefined && { targetId: id }),
    user: user.username,
    insertTime: new Date(now).toISOString(),
    ...(params.requestId !== undefined && { requestId: params.requestId }),
  });
  const result = await deps.store.create(operation, ref, {
    ...(params.requestId !== undefined && {
      requestId: { id: params.requestId, call: bound(call, verb, name) },
    }),
    signal: call.signal,
  });
  const stored = result.operation;
  return { operation: stored, ref: { ...ref, name: stored.name }, created: result.created };
}

/** What a requestId is bound to: the user, the method and the booking as the call names it. */
function bound(call: CallContext<OfZone, unknown>, verb: Verb, name: string): RequestIdCall {
  return {
    caller: call.user.username,
    operationType: operationType(verb),
    target: `zones/${call.params.zone}/${FUTURE_RESERVATIONS_RESOURCE}/${name}`,
  };
}

/** Makes the write's change; the Operation is DONE with it (forgotten if the cluster refused it). */
async function carryOut<T>(
  call: CallContext<OfZone & Idempotent, unknown>,
  started: { operation: Operation; ref: OperationRef },
  change: () => Promise<T>,
  targetId: (result: T) => string | undefined,
): Promise<Reply> {
  const result = await mutate(call, started.ref, call.params.requestId, change);
  const id = targetId(result);
  const done = await call.deps.store.update(started.ref, {
    status: "DONE",
    ...(id !== undefined && { targetId: id }),
  });
  return { body: done ?? started.operation };
}

export async function insert(
  call: CallContext<OfZone & Idempotent, FutureReservationInsert>,
): Promise<Reply> {
  const { deps, params, body } = call;
  // The group must be in the call's zone: that is where the booking is addressed from then on.
  const group = await findGroup(
    deps.kube,
    params.project,
    zoneOf(params),
    body.specificSkuProperties.instanceProperties.machineType,
  );
  // A booking spends the group's capacity as a request does.
  await authorizeGroupUse(
    call,
    params.project,
    group.metadata.name ?? body.specificSkuProperties.instanceProperties.machineType,
  );
  const started = await startOperation(call, "insert", body.name);
  if (!started.created) return { body: started.operation };
  return carryOut(
    call,
    started,
    () => deps.kube.resource(FUTURE_RESERVATIONS).create(fromRestFutureReservation(body, params.project)),
    bookingId,
  );
}

export async function get(call: CallContext<OneBooking>): Promise<Reply> {
  return { body: toRestFutureReservation(await findBooking(call), placeOf(call)) };
}

export async function list(call: CallContext<OfZone & ListParams>): Promise<Reply> {
  const { deps, params } = call;
  const at = { namespace: params.project };
  const [bookings, groups] = await Promise.all([
    deps.kube.resource(FUTURE_RESERVATIONS).list(at),
    deps.kube.resource(INSTANCE_GROUP_MANAGERS).list(at),
  ]);
  const inZone = new Set(
    groups.items
      .filter((g) => {
        const where = groupLocation(g.spec);
        return where.scope === "zones" && where.name === params.zone;
      })
      .map((g) => g.metadata.name ?? ""),
  );
  const place = placeOf(call);
  const items = bookings.items
    .filter((fr) => inZone.has(fr.spec.instanceGroupManager))
    .map((fr) => toRestFutureReservation(fr, place));
  return {
    body: listAnswer(params, items, {
      kind: REST_KIND.futureReservationList,
      id: `projects/${params.project}/zones/${params.zone}/futureReservations`,
      selfLink: futureReservationsUrl(place),
    }),
  };
}

/** The Operation a cancel or delete repeated with its requestId answers with (the booking may be gone). */
async function replayed(
  call: CallContext<OneBooking & Idempotent>,
  verb: Verb,
): Promise<Operation | undefined> {
  const { project, requestId, futureReservation } = call.params;
  if (requestId === undefined) return undefined;
  return call.deps.store.getByRequestId(project, requestId, bound(call, verb, futureReservation));
}

const isFinal = (fr: FutureReservation): boolean =>
  FINAL_PROCUREMENT_STATUSES.some((s) => s === fr.status?.procurementStatus);

export async function cancel(call: CallContext<OneBooking & Idempotent>): Promise<Reply> {
  const again = await replayed(call, "cancel");
  if (again) return { body: again };
  const fr = await findBooking(call);
  // Final bookings never change status (a CEL rule of the kind keeps them): there is nothing to cancel.
  if (isFinal(fr))
    throw new InvalidResourceUsageError(
      `The future reservation '${fr.metadata.name ?? ""}' is ${fr.status?.procurementStatus ?? ""} and can no longer be cancelled.`,
    );
  const started = await startOperation(call, "cancel", call.params.futureReservation, bookingId(fr));
  if (!started.created) return { body: started.operation };
  const { namespace = "", name = "", uid } = fr.metadata;
  return carryOut(
    call,
    started,
    () =>
      call.deps.kube
        .resource(FUTURE_RESERVATIONS)
        .mergePatch({ namespace, name }, { metadata: { uid }, spec: { cancel: true } }),
    () => bookingId(fr),
  );
}

export async function remove(call: CallContext<OneBooking & Idempotent>): Promise<Reply> {
  const again = await replayed(call, "delete");
  if (again) return { body: again };
  const fr = await findBooking(call);
  // As a resize request: a booking that still holds (or may still hold) capacity is cancelled first.
  if (!isFinal(fr) && !fr.spec.cancel)
    throw new InvalidResourceUsageError(
      `The future reservation '${fr.metadata.name ?? ""}' is ${fr.status?.procurementStatus ?? "PENDING_APPROVAL"} and cannot be deleted before it is cancelled: cancel it first.`,
    );
  const started = await startOperation(call, "delete", call.params.futureReservation, bookingId(fr));
  if (!started.created) return { body: started.operation };
  const { namespace = "", name = "", uid } = fr.metadata;
  return carryOut(
    call,
    started,
    () =>
      call.deps.kube
        .resource(FUTURE_RESERVATIONS)
        .delete({ namespace, name }, { preconditions: { ...(uid !== undefined && { uid }) } }),
    () => bookingId(fr),
  );
}
