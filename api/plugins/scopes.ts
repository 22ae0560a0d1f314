// Which scope a route needs, from one rule over method and route pattern, so a new route is covered without
// anyone remembering to mark it. A route may still say `config: { scope }` to override the rule.
import { SCOPES, type Scope } from '../../common/api-keys.js';

/**
 * Changes to configuration rather than to a process: the voice application's numbers and callback URLs,
 * the incoming-call rules, and the codec (a POST, but it decrypts any payload, phone numbers included).
 */
const ADMIN_PATHS = [/^\/codec\//, /^\/v1\/voice\/numbers(\/|$)/, /^\/v1\/voice\/callback-urls$/, /^\/v1\/voice\/incoming-rules(\/|$)/];

/** Reads need read-only; anything that starts or changes a process needs operator; configuration needs admin. */
export function requiredScope(method: string | string[], url: string, config?: { scope?: Scope }): Scope {
  if (config?.scope) return config.scope;
  if ([method].flat().every((m) => m.toUpperCase() === 'GET' || m.toUpperCase() === 'HEAD')) return 'read-only';
  return ADMIN_PATHS.some((p) => p.test(url)) ? 'admin' : 'operator';
}

/** Each scope includes the ones before it in SCOPES. */
export const scopeAllows = (held: Scope, needed: Scope) => SCOPES.indexOf(held) >= SCOPES.indexOf(needed);
