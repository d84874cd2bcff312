// The ValidatingAdmissionPolicy that decides who may point a group at a target, or widen what it takes
// from it. The operator scales any kind through /scale with its own wide grant, so a group must not let
// its author scale what they could not scale themselves: creating an InstanceGroupManager, or changing
// any of its widening fields (api/group-widening.ts: targetRef, maxSize, minSize, readiness …), requires
// that the requesting user may `update` the target's `scale` subresource, in the group's namespace, and
// cluster-wide too when the kind is listed as a cluster-scoped target (CEL has no discovery to tell). A
// node selector of the user's choosing reads Nodes' labels back through the group's status, so it also
// needs `list nodes` (a Karpenter NodePool's own label, fixed by its target, does not).
// The CRD's grammar (api/target-ref.ts) leaves one reading of apiVersion: the group before its only `/`.
// The resource is guessed from the kind as Kubernetes does (api/target-kinds.ts, guessResource); the
// operator refuses a target whose served resource or scope this check does not cover
// (targets/access.ts).
import { WIDENING_FIELD_NAMES } from "../api/group-widening.js";
import { KARPENTER } from "../api/readiness.js";
import { DEFAULT_CLUSTER_SCOPED_TARGETS } from "../api/target-kinds.js";
import { GROUP, INSTANCE_GROUP_MANAGER, TARGET_POLICY_NAME, VERSION } from "../api/names.js";
import { denyingBinding, validatingPolicy } from "./admission.js";

export { TARGET_POLICY_NAME };

/** The variable the chart overrides with its value clusterScopedTargets (a CEL list of `Kind.group`). */
export const CLUSTER_SCOPED_TARGETS_VARIABLE = "clusterScopedTargets";

const ref = "object.spec.targetRef";
const v = (name: string): string => `variables.${name}`;

/** CEL of api/target-kinds.ts: apiGroupOf, guessResource, groupKindOf, qualifiedResource. */
const VARIABLES = [
  {
    name: "apiGroup",
    expression: `${ref}.apiVersion.contains('/') ? ${ref}.apiVersion.split('/')[0] : ''`,
  },
  { name: "lowerKind", expression: `${ref}.kind.lowerAscii()` },
  {
    name: "resource",
    expression: [
      `${v("lowerKind")}.endsWith('endpoints') ? ${v("lowerKind")}`,
      `${v("lowerKind")}.endsWith('s') ? ${v("lowerKind")} + 'es'`,
      `${v("lowerKind")}.endsWith('y') ? ${v("lowerKind")}.substring(0, size(${v("lowerKind")}) - 1) + 'ies'`,
      `${v("lowerKind")} + 's'`,
    ].join(" : "),
  },
  {
    name: "groupKind",
    expression: `${v("apiGroup")} == '' ? ${ref}.kind : ${ref}.kind + '.' + ${v("apiGroup")}`,
  },
  {
    name: "scaleSubresource",
    expression: `(${v("apiGroup")} == '' ? ${v("resource")} : ${v("resource")} + '.' + ${v("apiGroup")}) + '/scale'`,
  },
  { name: "clusterScoped", expression: `${v("groupKind")} in ${v(CLUSTER_SCOPED_TARGETS_VARIABLE)}` },
  {
    // The widening fields this request sets or changes (all of them set on a create).
    name: "widened",
    expression: WIDENING_FIELD_NAMES.map(
      (f) => `(request.operation == 'CREATE' || oldObject.spec.?${f} != object.spec.?${f} ? ['${f}'] : [])`,
    ).join(" + "),
  },
  {
    name: "action",
    expression: [
      `request.operation == 'CREATE' ? 'creating an ${INSTANCE_GROUP_MANAGER.kind} over '`,
      `'targetRef' in ${v("widened")} ? 'pointing ${INSTANCE_GROUP_MANAGER.kind} ' + object.metadata.name + ' at '`,
      `'changing spec.' + ${v("widened")}.join(', spec.') + ' of ${INSTANCE_GROUP_MANAGER.kind} ' + object.metadata.name + ' over '`,
    ]
      .join(" : ")
      .replace(/^/, "(")
      .concat(`) + ${ref}.kind + ' ' + ${ref}.name`),
  },
  {
    // A node selector the target fixes: a Karpenter NodePool's own label, naming the pool.
    name: "selectorOfTarget",
    expression: `${v("apiGroup")} == '${KARPENTER.group}' && ${ref}.kind == '${KARPENTER.nodePool}' && object.spec.readiness.nodeSelector == {'${KARPENTER.nodePoolLabel}': ${ref}.name}`,
  },
];

const check = (namespaced: boolean): string =>
  `authorizer.group(${v("apiGroup")}).resource(${v("resource")}).subresource('scale')${namespaced ? ".namespace(object.metadata.namespace)" : ""}.name(${ref}.name).check('update').allowed()`;

/** Who lacks what, `where` being a CEL string expression. */
const lacks = (where: string): string =>
  `request.userInfo.username + ' lacks verb "update" on ' + ${v("scaleSubresource")} + ' "' + ${ref}.name + '" ' + ${where}`;

/** With the default list of cluster-scoped targets; the chart renders its value clusterScopedTargets. */
export function targetPolicy() {
  return validatingPolicy(TARGET_POLICY_NAME, {
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: [GROUP],
          apiVersions: [VERSION],
          operations: ["CREATE", "UPDATE"],
          resources: [INSTANCE_GROUP_MANAGER.plural],
        },
      ],
    },
    // An update that widens nothing (status, labels, provisioningTimeout, `kubectl apply` of the same
    // spec) is not this policy's business.
    matchConditions: [
      {
        name: "target-set-or-widened",
        expression: [
          "request.operation == 'CREATE'",
          ...WIDENING_FIELD_NAMES.map((f) => `oldObject.spec.?${f} != object.spec.?${f}`),
        ].join(" || "),
      },
    ],
    variables: [
      { name: CLUSTER_SCOPED_TARGETS_VARIABLE, expression: JSON.stringify(DEFAULT_CLUSTER_SCOPED_TARGETS) },
      ...VARIABLES,
    ],
    validations: [
      {
        expression: check(true),
        messageExpression: `${v("action")} + ' requires permission to scale it: ' + ${lacks("'in namespace ' + object.metadata.namespace")}`,
        reason: "Forbidden",
      },
      {
        expression: `!${v("clusterScoped")} || ${check(false)}`,
        messageExpression: `${v("action")} + ' requires permission to scale it cluster-wide (' + ${v("groupKind")} + ' is listed as a cluster-scoped target kind): ' + ${lacks("'at the cluster scope'")}`,
        reason: "Forbidden",
      },
      {
        expression: `!('readiness' in ${v("widened")}) || !has(object.spec.readiness) || ${v("selectorOfTarget")} || authorizer.group('').resource('nodes').check('list').allowed()`,
        messageExpression: `'setting spec.readiness.nodeSelector of ${INSTANCE_GROUP_MANAGER.kind} ' + object.metadata.name + ' requires permission to list Nodes (the group counts and reports the Nodes it selects): ' + request.userInfo.username + ' lacks verb "list" on nodes at the cluster scope'`,
        reason: "Forbidden",
      },
    ],
  });
}

export const targetPolicyBinding = () => denyingBinding(TARGET_POLICY_NAME);
