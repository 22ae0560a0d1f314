// Injected faults and added latency, set through /_sandbox control routes (callback faults: callback-hub.ts).
import type { AreaName } from './area-mount.js';

export interface FaultRuleInput {
  area?: AreaName;
  method?: string;
  pathContains?: string;
  status: number;
  count: number;
  retryAfterSeconds?: number;
  /** Answer body; default: the area's error body for `status`. */
  body?: unknown;
}

export interface FaultRule extends FaultRuleInput {
  id: number;
  remaining: number;
}

export interface FaultTarget {
  area: AreaName;
  method: string;
  /** Path with query string. */
  url: string;
}

export class FaultStore {
  private rules: FaultRule[] = [];
  private nextId = 1;

  add(input: FaultRuleInput): FaultRule {
    const rule: FaultRule = { ...input, method: input.method?.toUpperCase(), id: this.nextId++, remaining: input.count };
    this.rules.push(rule);
    return rule;
  }

  /** The first matching rule, with one use consumed; rules are removed once used up. */
  take(t: FaultTarget): FaultRule | undefined {
    const rule = this.rules.find(
      (r) =>
        (r.area === undefined || r.area === t.area) &&
        (r.method === undefined || r.method === t.method.toUpperCase()) &&
        (r.pathContains === undefined || t.url.includes(r.pathContains)),
    );
    if (!rule) return undefined;
    rule.remaining--;
    if (rule.remaining <= 0) this.rules = this.rules.filter((r) => r !== rule);
    return rule;
  }

  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  clear(): void {
    this.rules = [];
  }
}

/** Added delay per area; a rule without area applies to every area that has none of its own. */
/**
 * Added latency per area. `before`: the request waits before it is handled (a slow platform). `after`: it is
 * handled at once and its answer waits (the work is done while the client may already have given up: the
 * classic duplicate, when the client retries).
 */
export type LatencyPhase = 'before' | 'after';

export class LatencyStore {
  private readonly byArea = new Map<string, number>();

  set(area: AreaName | undefined, ms: number, phase: LatencyPhase = 'before'): void {
    const key = `${phase}:${area ?? '*'}`;
    if (ms <= 0) this.byArea.delete(key);
    else this.byArea.set(key, ms);
  }

  delayFor(area: AreaName, phase: LatencyPhase = 'before'): number {
    return this.byArea.get(`${phase}:${area}`) ?? this.byArea.get(`${phase}:*`) ?? 0;
  }

  /** `{area: ms}` for the before phase (as it always was), `{"after:area": ms}` for answers held back. */
  list(): Record<string, number> {
    return Object.fromEntries([...this.byArea].map(([k, ms]) => [k.startsWith('before:') ? k.slice('before:'.length) : k, ms]));
  }

  clear(): void {
    this.byArea.clear();
  }
}
