// Lint rules that guard the layer order, Temporal's determinism rules and unhandled async work.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// Each layer imports only from the ones before it: common -> platform -> contracts -> store -> processes ->
// activities / workflows -> api / workers -> scripts. store/ is the durable record of campaign recipients, shared by the
// send activities and the API; workflow code never touches it. Type imports count too: a type import still couples the layers.
// The sandbox plays the platform, so it shares nothing with relayflow but common/.
const LAYERS = ['common', 'platform', 'contracts', 'store', 'processes', 'activities | workflows', 'api | workers', 'scripts'];
const forbidden = {
  common: ['platform', 'contracts', 'store', 'processes', 'activities', 'workflows', 'api', 'workers', 'scripts', 'sandbox'],
  platform: ['contracts', 'store', 'processes', 'activities', 'workflows', 'api', 'workers', 'scripts', 'sandbox'],
  contracts: ['store', 'processes', 'activities', 'workflows', 'api', 'workers', 'scripts', 'sandbox'],
  store: ['processes', 'activities', 'workflows', 'api', 'workers', 'scripts', 'sandbox'],
  // The kinds' descriptors: pure data that workflows import too, so nothing a workflow may not import either.
  processes: ['platform', 'store', 'activities', 'workflows', 'api', 'workers', 'scripts', 'sandbox'],
  activities: ['workflows', 'api', 'workers', 'scripts', 'sandbox'],
  // Workflow code reads the platform's shapes through contracts/ (they are bundled into Temporal's sandbox).
  workflows: ['platform', 'store', 'activities', 'api', 'workers', 'scripts', 'sandbox'],
  api: ['workers', 'scripts', 'sandbox'],
  workers: ['api', 'scripts', 'sandbox'],
  sandbox: ['platform', 'contracts', 'store', 'processes', 'activities', 'workflows', 'api', 'workers', 'scripts'],
};
// Relative paths only: `**/api` would also match a package such as @opentelemetry/api.
const layerPatterns = (layer) =>
  forbidden[layer].map((other) => ({
    group: [`**/${other}/**`, `**/${other}`, '!@*/**'],
    message: `${layer}/ must not import ${other}/ (layer order: ${LAYERS.join(' -> ')}; the sandbox uses common/ only).`,
  }));

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.relayflow/'] },
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
  ...Object.keys(forbidden)
    .filter((layer) => layer !== 'workflows' && layer !== 'processes')
    .map((layer) => ({
      files: [`${layer}/**/*.ts`],
      rules: { 'no-restricted-imports': ['error', { patterns: layerPatterns(layer) }] },
    })),
  {
    // The API starts, signals and reads workflows by name through the Temporal client: from workflows/ it may
    // import types only (a workflow function's type for a typed handle), never values, so no workflow code is
    // loaded into the API process. Shared values live in contracts/.
    files: ['api/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/workflows/**', '**/workflows', '!@*/**'],
              allowTypeImports: true,
              message: 'api/ may import only types from workflows/ (import type); shared values belong in contracts/.',
            },
          ],
        },
      ],
    },
  },
  // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins either (nor in the descriptors it imports).
  ...['workflows', 'processes'].map((layer) => ({
    files: [`${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code must not use Node built-ins.' })),
          patterns: layerPatterns(layer),
        },
      ],
    },
  })),
);
