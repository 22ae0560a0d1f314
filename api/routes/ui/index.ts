// The audit page (`/ui`): a list of processes and one process's timeline, for the person asked "what happened to
// this customer's template?". Plain HTML, CSS and JavaScript served as they are (no build step: the script is split
// into ES modules the browser loads itself); the page calls the API's own routes with a key the person pastes, so
// the page itself is public and holds no data.
import { readdirSync, readFileSync } from 'node:fs';
import type { FastifyPluginAsync } from 'fastify';
import { SCOPES } from '../../../common/api-keys.js';
import { COLLECTIONS, PROCESS_KINDS } from '../../../processes/kinds.js';
import { requiredScope } from '../../plugins/scopes.js';

const STATIC = new URL('./static/', import.meta.url);
const file = (name: string) => readFileSync(new URL(name, STATIC), 'utf8');
const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

// The page runs only its own files: a script injected into a timeline entry would not run.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' blob:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

/** The actions the page may offer: each a POST below a process (`{step}` for an onboarding's step). */
const ACTIONS = ['pause', 'resume', 'cancel', 'stop', 'steps/:step/retry', 'steps/:step/skip'];

export const uiRoutes: FastifyPluginAsync = async (app) => {
  const assets = new Map(
    readdirSync(STATIC)
      .filter((name) => TYPES[name.split('.').pop()!])
      .map((name) => [name, { type: TYPES[name.split('.').pop()!]!, body: file(name) }]),
  );
  const options = { config: { auth: 'public' as const }, schema: { hide: true } as never };

  // Which of ACTIONS each kind's routes have, and the scope each needs: read from the registered routes once every
  // route is (the first request), so the page offers what the API answers and no more.
  let html: string | undefined;
  const page = () => {
    if (html) return html;
    const actions: Record<string, Record<string, { path: string; scope: string }>> = {};
    for (const collection of COLLECTIONS) {
      for (const action of ACTIONS) {
        const url = `${collection.path}/:processId/${action}`;
        if (!app.hasRoute({ method: 'POST', url })) continue;
        const path = url.replace(':processId', '{processId}').replace(':step', '{step}');
        for (const kind of collection.kinds) (actions[kind] ??= {})[action.replace('steps/:step/', 'step-')] = { path, scope: requiredScope('POST', url) };
      }
    }
    const data = `data-kinds="${escapeAttr(PROCESS_KINDS.join(','))}" data-scopes="${escapeAttr(SCOPES.join(','))}" data-actions="${escapeAttr(JSON.stringify(actions))}"`;
    return (html = file('page.html').replace('<body>', `<body ${data}>`));
  };

  app.get('/ui', options, async (_req, reply) => reply.header('content-security-policy', CSP).type('text/html; charset=utf-8').send(page()));
  for (const [name, asset] of assets) {
    app.get(`/ui/${name}`, options, async (_req, reply) => reply.type(asset.type).header('cache-control', 'no-cache').send(asset.body));
  }
};
