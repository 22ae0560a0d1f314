// The version the API tells is the package's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { RELAYFLOW_VERSION } from '../../common/version.js';

test("common/version.ts says package.json's version", () => {
  assert.equal(RELAYFLOW_VERSION, (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
});
