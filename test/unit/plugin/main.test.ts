// runPlugin() up to the cluster: help, usage errors and an unreadable kubeconfig, with kubectl's exit
// codes and messages (what happens against a cluster is test/integration/cli/kubectl-resize.test.ts).
import { HELP } from "../../../src/plugin/args.js";
import { runPlugin } from "../../../src/plugin/main.js";

async function plugin(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runPlugin(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}

test.each([
  [["--help"], HELP.root],
  [["wait", "-h"], HELP.wait],
  [["help", "queue"], HELP.queue],
])("%j prints its help and exits 0", async (argv, text) => {
  expect(await plugin(...argv)).toEqual({ code: 0, stdout: text, stderr: "" });
});

test("a usage error exits 1 with kubectl's hint at the command's help", async () => {
  expect(await plugin("cancel")).toEqual({
    code: 1,
    stdout: "",
    stderr:
      "error: cancel needs the name of a ResizeRequest\nSee 'kubectl resize cancel --help' for usage.\n",
  });
  expect((await plugin("scale", "x")).stderr).toBe(
    'error: unknown command "scale" for "kubectl resize"\nSee \'kubectl resize --help\' for usage.\n',
  );
});

test("a kubeconfig that cannot be read", async () => {
  const missing = await plugin("queue", "pool", "--kubeconfig", "/nonexistent/kubeconfig");
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(
    /^error: ENOENT: no such file or directory, open '\/nonexistent\/kubeconfig'/,
  );
});
