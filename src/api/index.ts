// The API model: zod schemas (validators), the TypeScript types inferred from them, and the field
// tree the projections (CRDs, discovery document, API reference) are generated from.
export * from "./names.js";
export {
  boundedMap,
  celString,
  rule,
  uniqueList,
  type CelRule,
  type RuleSpec,
  type WireFormat,
} from "./meta.js";
export * from "./primitives.js";
export * from "./location.js";
export * from "./duration.js";
export * from "./errors.js";
export * from "./conditions.js";
export * from "./custom-resource.js";
export * from "./instance-group-manager.js";
export * from "./readiness.js";
export { ResizeRequestState } from "./resize-request-fields.js";
export * from "./resize-request.js";
export * from "./resize-request-rest.js";
export * from "./future-reservation.js";
export * from "./operation.js";
export * from "./lists.js";
export { fieldTree, type FieldNode, type FieldType, type FieldFormat } from "./tree.js";
export * from "./identity.js";
