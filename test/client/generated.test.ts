// The client's checked-in types are what the generator makes of the API as it is now: a route or schema changed
// without `npm run client:generate` fails here, naming the command.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { CLIENT_TYPES_FILE, generateClientTypes } from '../../scripts/client-generate.js';

test('packages/client/src/openapi.d.ts is generated from the current OpenAPI document', async () => {
  const [fresh, checkedIn] = await Promise.all([generateClientTypes(), readFile(CLIENT_TYPES_FILE, 'utf8')]);
  assert.match(fresh, /"\/v1\/verifications\/\{processId\}\/report": \{/, 'the generated types name the API routes');
  if (fresh === checkedIn) return;
  const freshLines = fresh.split('\n');
  const checkedInLines = checkedIn.split('\n');
  const first = freshLines.findIndex((line, i) => line !== checkedInLines[i]);
  assert.fail(
    `${CLIENT_TYPES_FILE} is stale: run \`npm run client:generate\` and commit the result. First difference at line ${first + 1}:\n` +
      `  checked in: ${checkedInLines[first] ?? '(end of file)'}\n  generated:  ${freshLines[first] ?? '(end of file)'}`,
  );
});
