// `helm test` check, run with `node --input-type=module -e <this file> <base URL>` in the operator's
// image: the operator behind the chart's Service is ready and publishes its discovery document.
/* global process, fetch, console, setTimeout, AbortSignal */
const base = (process.argv[1] ?? "").replace(/\/+$/, "");
if (!base) {
  console.error("usage: smoke-test <base URL>");
  process.exit(2);
}

async function get(path) {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, text: await res.text() };
}

// A rollout or a leader change can make /readyz briefly fail; give it a minute.
let ready;
for (let attempt = 0; attempt < 30; attempt++) {
  ready = await get("/readyz").catch((err) => ({ status: 0, text: String(err) }));
  if (ready.status === 200) break;
  await new Promise((resolve) => setTimeout(resolve, 2000));
}
if (ready.status !== 200 || ready.text.trim() !== "ok") {
  console.error(`FAIL ${base}/readyz: HTTP ${ready.status}: ${ready.text}`);
  process.exit(1);
}
console.log(`ok   ${base}/readyz`);

const discovery = await get("/discovery/v1/apis/compute/v1/rest");
let doc;
try {
  doc = JSON.parse(discovery.text);
} catch {
  doc = undefined;
}
if (discovery.status !== 200 || doc?.kind !== "discovery#restDescription" || doc?.id !== "compute:v1") {
  console.error(
    `FAIL ${base}/discovery/v1/apis/compute/v1/rest: HTTP ${discovery.status}: ${discovery.text.slice(0, 300)}`,
  );
  process.exit(1);
}
console.log(`ok   ${base}/discovery/v1/apis/compute/v1/rest (${doc.id}, rootUrl ${doc.rootUrl})`);
