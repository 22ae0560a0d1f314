// Lint rules that guard the layer order, Temporal's determinism rules and unhandled async work.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// Each layer imports only from the ones before it: common -> platform -> contracts -> store -> processes ->
// api / workers -> scripts. store/ is the durable record relayflow keeps beside Temporal (counters, links, campaign
// recipients); workflow code never touches it. Type imports count too: a type import still couples the layers.
// The sandbox plays the platform, so it shares nothing with relayflow but common/.
const LAYERS = ['common', 'platform', 'contracts', 'store', 'processes', 'api | workers', 'scripts'];
// Inside processes/, each file's role is its folder: `workflow/` (runs in Temporal's sandbox), `activities/`,
// `routes/` (a Fastify plugin); every other file (kind.ts, family.ts, contract.ts) is pure data the others share.
const ROLES = ['workflow', 'activities', 'routes'];
const forbidden = {
  common: ['platform', 'contracts', 'store', 'processes', 'api', 'workers', 'scripts', 'sandbox'],
  platform: ['contracts', 'store', 'processes', 'api', 'workers', 'scripts', 'sandbox'],
  contracts: ['store', 'processes', 'api', 'workers', 'scripts', 'sandbox'],
  // The store keeps what contracts/ describe; a process kind's own files are beyond it.
  store: ['processes', 'api', 'workers', 'scripts', 'sandbox'],
  // Descriptors and contracts: pure data that workflows import too, so nothing a workflow may not import either.
  'processes (contracts)': ['store', ...ROLES, 'api', 'workers', 'scripts', 'sandbox'],
  // Workflow code reads the platform's shapes through contracts (they are bundled into Temporal's sandbox).
  'processes (workflow)': ['platform', 'store', 'activities', 'routes', 'api', 'workers', 'scripts', 'sandbox'],
  'processes (activities)': ['workflow', 'routes', 'api', 'workers', 'scripts', 'sandbox'],
  'processes (routes)': ['activities', 'workers', 'scripts', 'sandbox'],
  api: ['activities', 'workers', 'scripts', 'sandbox'],
  workers: ['api', 'routes', 'scripts', 'sandbox'],
  sandbox: ['platform', 'contracts', 'store', 'processes', 'api', 'workers', 'scripts'],
  // The client package and the example apps reach relayflow over HTTP only, as an integrator's code does.
  packages: ['common', 'platform', 'contracts', 'store', 'processes', 'api', 'workers', 'scripts', 'sandbox'],
  examples: ['common', 'platform', 'contracts', 'store', 'processes', 'api', 'workers', 'scripts', 'sandbox'],
};
const WORKFLOW_FILES = ['processes/**/workflow/**/*.ts', 'processes/workflows.ts'];
const ACTIVITY_FILES = ['processes/**/activities/**/*.ts', 'processes/activities.ts'];
const ROUTE_FILES = ['processes/**/routes/**/*.ts'];
const files = {
  'processes (contracts)': ['processes/**/*.ts'],
  'processes (workflow)': WORKFLOW_FILES,
  'processes (activities)': ACTIVITY_FILES,
  'processes (routes)': ROUTE_FILES,
};
const ignores = { 'processes (contracts)': [...WORKFLOW_FILES, ...ACTIVITY_FILES, ...ROUTE_FILES] };
// Relative paths only: `**/api` would also match a package such as @opentelemetry/api.
const layerPatterns = (layer) =>
  forbidden[layer].map((other) => ({
    group: [`**/${other}/**`, `**/${other}`, '!@*/**'],
    message: `${layer} must not import ${other}/ (layer order: ${LAYERS.join(' -> ')}; in processes/, workflow/ and activities/ never import each other, and only routes/ and api/ read workflow/, as types; the sandbox uses common/ only).`,
  }));
// Workflow code runs in Temporal's deterministic sandbox: no Node built-ins either (nor in the contracts it imports).
const noBuiltins = nodeBuiltins.map((name) => ({ name, message: 'Workflow code must not use Node built-ins.' }));
const pure = new Set(['processes (contracts)', 'processes (workflow)']);

export default tseslint.config(
  // The client's types are generated (npm run client:generate), as openapi-typescript prints them.
  { ignores: ['dist/', 'node_modules/', '.relayflow/', 'packages/client/src/openapi.d.ts'] },
  js.configs.recommended,
  // The audit page's script runs in the browser, as it is (no build step).
  {
    files: ['api/routes/ui/static/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        ['document', 'location', 'sessionStorage', 'fetch', 'URLSearchParams', 'URL', 'Blob', 'Option', 'history', 'setTimeout', 'crypto'].map((g) => [
          g,
          'readonly',
        ]),
      ),
    },
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test's describe/test return promises the runner tracks itself.
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'test', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  ...Object.keys(forbidden).map((layer) => ({
    files: files[layer] ?? [`${layer}/**/*.ts`],
    ...(ignores[layer] ? { ignores: ignores[layer] } : {}),
    rules: { 'no-restricted-imports': ['error', { ...(pure.has(layer) ? { paths: noBuiltins } : {}), patterns: layerPatterns(layer) }] },
  })),
  {
    // The API starts, signals and reads workflows by name through the Temporal client: from workflow/ it may
    // import types only (a workflow function's type for a typed handle), never values, so no workflow code is
    // loaded into the API process. Shared values live in the kind's contract.
    files: ['api/**/*.ts', ...ROUTE_FILES],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/workflow/**', '**/workflows.js', '!@*/**'],
              allowTypeImports: true,
              message: 'the API may import only types from workflow/ (import type); shared values belong in the contract.',
            },
          ],
        },
      ],
    },
  },
);
