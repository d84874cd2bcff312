// Reusable value schemas. Each is a base that fields specialise with `.meta({ description })`, which
// clones it, so one base can carry a different description in every place it is used.
import { z } from "zod";
import { rule } from "./meta.js";

/** RFC 1035 label: lowercase letters, digits and '-', starting with a letter, not ending with '-'. */
export const RFC1035_LABEL = "^[a-z]([-a-z0-9]*[a-z0-9])?$";
export const RFC1035_MESSAGE =
  "must be an RFC 1035 label of 1-63 characters: lowercase letters, digits and '-', starting with a letter and ending with a letter or digit";

export const Rfc1035Label = z
  .string()
  .min(1)
  .max(63)
  .regex(new RegExp(RFC1035_LABEL), { message: RFC1035_MESSAGE });

/** Kubernetes object names (DNS-1123 subdomain), used for references to arbitrary workloads. */
export const ObjectName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, {
    message: "must be a Kubernetes object name (lowercase RFC 1123 subdomain)",
  });

const UINT64_MAX = "18446744073709551615";

/**
 * An unsigned 64-bit integer as a decimal string, the Google JSON encoding of resource ids (a JSON
 * number would lose precision above 2^53). Comparing equal-length digit strings orders them
 * numerically, which keeps the CEL rule free of a conversion that could overflow.
 */
export const Uint64String = rule(
  z
    .string()
    .max(UINT64_MAX.length)
    .regex(/^(0|[1-9][0-9]*)$/, { message: "must be an unsigned decimal integer" })
    .meta({ format: "uint64" }),
  {
    cel: `size(self) < ${UINT64_MAX.length} || self <= '${UINT64_MAX}'`,
    message: `must not exceed ${UINT64_MAX}`,
    test: (v) => v.length < UINT64_MAX.length || v <= UINT64_MAX,
  },
);

/** RFC 3339 timestamp; an offset other than `Z` is accepted because Google clients may send one. */
export const Timestamp = z.iso.datetime({ offset: true });

/** Non-negative int32, the type of replica counts throughout Kubernetes. */
export const Count = z.int32().min(0);

/** `metadata.generation` and friends: Kubernetes int64 numbers (JSON numbers, not strings). */
export const Generation = z.int().min(0);
