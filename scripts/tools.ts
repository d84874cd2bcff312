// `npm run tools`: builds (once per machine) the pinned control-plane binaries and checks system packages.
import { ensureSystemPackages } from "../testbed/system.js";
import { ensureTools } from "../testbed/tools.js";

ensureSystemPackages();
const tools = await ensureTools();
for (const [name, file] of Object.entries(tools.paths)) process.stderr.write(`[tools] ${name}: ${file}\n`);
