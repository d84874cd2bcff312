import { instancesLine } from "../../../src/api/instance-list.js";

const pods = (n: number) => Array.from({ length: n }, (_, i) => ({ kind: "Pod", name: `web-${i}` }));

test.each([
  { instances: undefined, truncated: undefined, want: undefined },
  { instances: [], truncated: undefined, want: undefined },
  { instances: pods(2), truncated: undefined, want: "Pod/web-0, Pod/web-1" },
  {
    instances: pods(12),
    truncated: undefined,
    want: `${pods(10)
      .map((p) => `Pod/${p.name}`)
      .join(", ")}, and 2 more`,
  },
  {
    instances: pods(12),
    truncated: true,
    want: `${pods(10)
      .map((p) => `Pod/${p.name}`)
      .join(", ")}, and more`,
  },
])("instancesLine($instances.length, truncated $truncated)", ({ instances, truncated, want }) => {
  expect(instancesLine(instances, truncated)).toBe(want);
});
