// docs/configuration.md, generated from the configuration schema (common/config/schema.ts): a table per section,
// each variable with its default, its rule and its description, between the page's own prose below.
// test/common/config-doc.test.ts fails when the page is stale.
//   npx tsx scripts/config-doc.ts [--write]    prints the page; --write puts it into docs/configuration.md
import { writeFile } from 'node:fs/promises';
import type { TObject } from 'typebox';
import { CONFIG_SECTIONS } from '../common/config/schema.js';
import { fieldOf, FORMATS, type Field } from '../common/config/validate.js';

export const CONFIG_DOC = 'docs/configuration.md';

const INTRO = `# Configuration

<!-- Generated from common/config/schema.ts by \`npx tsx scripts/config-doc.ts --write\`: edit the schema or the script, not this page. -->

Read and validated once at start-up, from the environment, against one schema of every variable
(\`common/config/schema.ts\`, checked by [env-schema](https://github.com/fastify/env-schema), what \`@fastify/env\`
wraps). What a schema cannot say runs after it as small named rules: the codec's keys, the API keys file, geo rules and
rate limits, Temporal's own variables, and the rules between variables (the credentials of the enabled areas, a
previous secret and its end). A blank variable counts as unset. Every problem stops the process with a message that
names the variable and the rule, and all of them are reported at once: one line per bad variable.

A variable ending in \`_MS\` is a duration in milliseconds. A secret is never shown in an error message.`;

const OUTRO = `## Temporal

The connection to Temporal follows Temporal's standard variables and profile files (\`TEMPORAL_ADDRESS\`,
\`TEMPORAL_NAMESPACE\`, \`TEMPORAL_API_KEY\`, \`TEMPORAL_TLS_*\`, \`TEMPORAL_PROFILE\`, ...), read by
\`@temporalio/envconfig\`; a bad one is reported as \`TEMPORAL_*\`. Unset, \`npm start\` runs a local dev server.

## \`npm start\` and \`npm run sandbox\` only

Not read by the API or the workers.

| variable | default | meaning |
|---|---|---|
| \`RELAYFLOW_TEMPORAL_PORT\`, \`RELAYFLOW_TEMPORAL_UI_PORT\` | \`7233\`, \`8233\` | the local Temporal dev server and its web UI (\`RELAYFLOW_TEMPORAL_PORT=0\`: a free port, chosen again if taken before the server binds it) |
| \`RELAYFLOW_DEV_CODEC_PORT\` | \`8234\` | the web UI's codec listener (\`0\`: any free port) |
| \`SANDBOX_PORT\` | \`4010\` | the sandbox |
| \`SANDBOX_HOST\` | \`127.0.0.1\` | \`npm run sandbox\` only: the address the standalone sandbox listens on |
| \`SANDBOX_DATA_DIR\` | none: in memory | \`npm run sandbox\` only: where the standalone sandbox keeps its state (\`npm start\` uses \`.relayflow/sandbox\`) |
| \`SANDBOX_TOKEN_LIFETIME_SECONDS\`, \`SANDBOX_SUBPROJECT_READY_MS\` | \`3600\`, \`5000\` | \`npm run sandbox\` only: how long its OAuth tokens last; how long a new subproject waits before it is usable |`;

const UNITS: [number, string][] = [
  [86_400_000, 'day'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1_000, 's'],
];

/** 300000 as "5 min", 604800000 as "7 days"; below a second, as it is. */
function duration(ms: number): string {
  if (ms === 0) return '0';
  const [size, unit] = UNITS.find(([size]) => ms % size === 0) ?? [1, 'ms'];
  const n = ms / size;
  return unit === 'day' && n !== 1 ? `${n} days` : `${n} ${unit}`;
}

const code = (value: unknown) => `\`${String(value)}\``;

function defaultOf(field: Field, required: boolean): string {
  const said = field['x-default'];
  if (field.default !== undefined) {
    const shown = code(field.default);
    return field['x-unit'] === 'ms' && typeof field.default === 'number' && field.default >= 1_000 ? `${shown} (${duration(field.default)})` : shown;
  }
  if (required) return said ? `required; ${said}` : 'required';
  return said ?? 'none';
}

function ruleOfField(field: Field): string {
  const secret = field['x-secret'] ? '; a secret' : '';
  if (field['x-rule']) return field['x-rule'].replace(/^must be /, '') + secret;
  if (field.enum) return `one of ${field.enum.map(code).join(', ')}`;
  if (field.type === 'integer' || field.type === 'number') {
    const what = field.type === 'integer' ? 'whole number' : 'number';
    if (field['x-unit'] === 'ms') return `${what}, ${duration(field.minimum ?? 0)} to ${duration(field.maximum ?? 0)}`;
    return `${what}, ${field.minimum} to ${field.maximum}`;
  }
  if (field.format) return (FORMATS[field.format]?.says ?? field.format) + secret;
  if (field.minLength !== undefined) return `${field.minLength} to ${field.maxLength} characters${secret}`;
  return `text${secret}`;
}

const cell = (text: string) => text.replaceAll('|', '\\|');

function sectionTable(title: string, schema: TObject): string {
  const required = new Set<string>((schema as TObject & { required?: string[] }).required ?? []);
  const rows = Object.keys(schema.properties).map((name) => {
    const field = fieldOf(schema, name);
    return `| \`${name}\` | ${cell(defaultOf(field, required.has(name)))} | ${cell(ruleOfField(field))} | ${cell(field.description ?? '')} |`;
  });
  return [`## ${title}`, '', '| variable | default | rule | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** The whole page. */
export function configPage(): string {
  return `${[INTRO, ...CONFIG_SECTIONS.map((s) => sectionTable(s.title, s.schema)), OUTRO].join('\n\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--write')) {
    await writeFile(CONFIG_DOC, configPage());
    process.stdout.write(`configuration page written to ${CONFIG_DOC}\n`);
  } else process.stdout.write(configPage());
}
