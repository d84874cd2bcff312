// Our discovery document exactly as the server builds it (src/discovery/router.ts `describe`): the
// real route table, scopes and common parameters; only rootUrl and endpoints, which the comparison
// ignores, are the test's.
import { restDescription } from "../../src/discovery/document.js";
import type { RestDescription } from "../../src/discovery/format.js";
import { ROUTES, SCOPE_DESCRIPTIONS } from "../../src/rest/routes.js";
import { COMMON_PARAMETERS } from "../../src/rest/system-parameters.js";

export function servedDocument(rootUrl = "http://localhost:8080/"): RestDescription {
  return restDescription(ROUTES, {
    rootUrl,
    endpoints: [],
    scopes: SCOPE_DESCRIPTIONS,
    parameters: COMMON_PARAMETERS,
  });
}
