// Jest setup (integration project, setupFilesAfterEnv): a test file that restarted the shared API
// server does not end before the cluster works again (controllers, scheduler, kwok and nodes), so no
// other file inherits a cluster whose pods are never created or never run. Files that restart it
// mid-test and need the whole cluster afterwards await untilClusterRecovered() themselves.
import { apiServerRestarted } from "../../testbed/components.js";
import { untilClusterRecovered } from "./kube.js";

afterAll(async () => {
  if (apiServerRestarted()) await untilClusterRecovered();
}, 420_000);
