// When the admission policies guard every group (controller/admission-guard.ts, policyProblem).
import { policyProblem } from "../../../src/controllers/resize/admission-guard.js";

const required = ["a", "b"];
const policies = [{ name: "a" }, { name: "b", failurePolicy: "Fail" }];
const deny = (policyName: string, narrowed = false) => ({
  policyName,
  validationActions: ["Deny"],
  narrowed,
});

test.each([
  ["both policies bound to deny", policies, [deny("a"), deny("b")], undefined],
  [
    "a policy missing",
    [{ name: "a" }],
    [deny("a"), deny("b")],
    "the ValidatingAdmissionPolicy b does not exist",
  ],
  ["a binding missing", policies, [deny("a")], "no ValidatingAdmissionPolicyBinding binds b"],
  [
    "a binding that only warns",
    policies,
    [deny("a"), { policyName: "b", validationActions: ["Warn"], narrowed: false }],
    "no ValidatingAdmissionPolicyBinding binds b",
  ],
  [
    "a binding narrowed to some objects",
    policies,
    [deny("a"), deny("b", true)],
    "no ValidatingAdmissionPolicyBinding binds b",
  ],
  ["a second binding that denies everywhere", policies, [deny("a"), deny("b", true), deny("b")], undefined],
  [
    "a policy that ignores its failures",
    [{ name: "a", failurePolicy: "Ignore" }, { name: "b" }],
    [deny("a"), deny("b")],
    "failurePolicy Ignore",
  ],
] as const)("%s", (_, p, b, problem) => {
  const answer = policyProblem(required, p, b);
  if (problem === undefined) expect(answer).toBeUndefined();
  else expect(answer).toContain(problem);
});
