// Freezes a release's replay fixtures: writes every test/fixtures/histories/<workflowType>/<case>.json with its
// SHA-256 under the version in released.json. The replay test then fails on any change to them, and replays them
// against the code of every later release (docs/upgrades.md). Usage: npx tsx scripts/freeze-fixtures.ts 1.0.0
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = 'test/fixtures/histories';
const MANIFEST = join(DIR, 'released.json');

const version = process.argv[2];
if (!version || !/^\d+\.\d+\.\d+$/.test(version)) {
  process.stderr.write('usage: npx tsx scripts/freeze-fixtures.ts <version> (a release, e.g. 1.0.0)\n');
  process.exit(2);
}
const released = existsSync(MANIFEST) ? (JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, Record<string, string>>) : {};
if (released[version]) {
  process.stderr.write(`${version} is frozen already: a release's fixtures never change\n`);
  process.exit(1);
}
const files = readdirSync(DIR, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json') && f.includes('/'))
  .sort();
released[version] = Object.fromEntries(
  files.map((f) => [
    f,
    createHash('sha256')
      .update(readFileSync(join(DIR, f)))
      .digest('hex'),
  ]),
);
writeFileSync(MANIFEST, `${JSON.stringify(released, null, 2)}\n`);
process.stdout.write(`froze ${files.length} fixtures as ${version} in ${MANIFEST}\n`);
