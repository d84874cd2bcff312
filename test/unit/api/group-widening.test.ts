// Every spec field of a group is classified as widening (its change needs the target's scale right,
// generate/target-policy.ts) or not, with a reason: a new field fails here until it is.
import { NON_WIDENING_FIELDS, WIDENING_FIELDS } from "../../../src/api/group-widening.js";
import { instanceGroupManagerResource } from "../../../src/api/instance-group-manager.js";
import { crdFor } from "../../../src/generate/crd.js";
import { targetPolicy } from "../../../src/generate/target-policy.js";

const specFields = (): string[] => {
  const spec = crdFor(instanceGroupManagerResource).spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
  if (!spec?.properties) throw new Error("the CRD has no spec schema");
  return Object.keys(spec.properties).sort();
};

test("every spec field is classified exactly once", () => {
  const classified = [...Object.keys(WIDENING_FIELDS), ...Object.keys(NON_WIDENING_FIELDS)].sort();
  expect(classified).toEqual(specFields());
});

test("the policy matches a change of every widening field, and names it", () => {
  const policy = JSON.stringify(targetPolicy());
  for (const field of Object.keys(WIDENING_FIELDS)) {
    expect(policy).toContain(`oldObject.spec.?${field} != object.spec.?${field}`);
    expect(policy).toContain(`['${field}']`);
  }
});
