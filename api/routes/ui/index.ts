// The audit page (`/ui`): a list of processes and one process's timeline, for the person asked "what happened to
// this customer's template?". Plain HTML, CSS and JavaScript served as they are (no build step); the page calls
// the API's own routes with a key the person pastes, so the page itself is public and holds no data.
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsync } from 'fastify';
import { PROCESS_KINDS } from '../../../contracts/ids.js';

const file = (name: string) => readFileSync(new URL(`./static/${name}`, import.meta.url), 'utf8');
const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

// The page runs only its own files: a script injected into a timeline entry would not run.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' blob:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

export const uiRoutes: FastifyPluginAsync = async (app) => {
  const html = file('page.html').replace('<body>', `<body data-kinds="${escapeAttr(PROCESS_KINDS.join(','))}">`);
  const assets: Record<string, { type: string; body: string }> = {
    'page.js': { type: 'text/javascript; charset=utf-8', body: file('page.js') },
    'page.css': { type: 'text/css; charset=utf-8', body: file('page.css') },
  };
  const options = { config: { auth: 'public' as const }, schema: { hide: true } as never };

  app.get('/ui', options, async (_req, reply) => reply.header('content-security-policy', CSP).type('text/html; charset=utf-8').send(html));
  for (const [name, asset] of Object.entries(assets)) {
    app.get(`/ui/${name}`, options, async (_req, reply) => reply.type(asset.type).header('cache-control', 'no-cache').send(asset.body));
  }
};
