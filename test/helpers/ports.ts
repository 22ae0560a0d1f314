// The same free-port finder the dev server uses.
export { freePort } from '../../scripts/lib/dev-server.js';
