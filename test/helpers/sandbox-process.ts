// A persistent sandbox in a process of its own, for killed.test.ts to SIGKILL: prints its URL, then serves
// until killed. Usage: node --import tsx sandbox-process.ts <dataDir>
import { createSandbox } from '../../sandbox/index.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: sandbox-process.ts <dataDir>');
const sb = await createSandbox({ dataDir, subprojectReadyAfterMs: 0 });
await sb.listen();
process.stdout.write(`listening on ${sb.url}\n`);
