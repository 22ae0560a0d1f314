// Area "auth": the OAuth 2.0 token endpoint (the implementation lives in the core; every OAuth area depends on it).
import { tokenEndpoint } from '../core/token-endpoint.js';
import type { SandboxArea } from '../core/area.js';

export const authArea: SandboxArea = {
  name: 'auth',
  setup: (ctx) => (app) => tokenEndpoint(app, ctx),
};
