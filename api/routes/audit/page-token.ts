// Timeline page tokens: where the next page starts, for which process and chain, behind a MAC (PageTokens
// from api/processes/find.ts, with a key of its own), so a made-up or foreign token is a 400, never a guess.
import { createHmac } from 'node:crypto';
import { PageTokens } from '../../processes/find.js';

interface Position {
  processId: string;
  firstRunId: string;
  offset: number;
}

export class TimelinePageTokens {
  private readonly tokens: PageTokens;

  constructor(key: Buffer) {
    this.tokens = new PageTokens(createHmac('sha256', key).update('relayflow timeline page token').digest());
  }

  encode(p: Position): string {
    return this.tokens.encode(Buffer.from(JSON.stringify([p.processId, p.firstRunId, p.offset])));
  }

  /** The offset the token points at, or undefined when it is not a token of this process's timeline. */
  decode(token: string, processId: string, firstRunId: string): number | undefined {
    const raw = this.tokens.decode(token);
    if (!raw) return undefined;
    try {
      const [p, r, o] = JSON.parse(raw.toString('utf8')) as [unknown, unknown, unknown];
      return p === processId && r === firstRunId && Number.isSafeInteger(o) && (o as number) >= 0 ? (o as number) : undefined;
    } catch {
      return undefined;
    }
  }
}
