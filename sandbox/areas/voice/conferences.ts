// Conferences: regional and per application (one application's `room1` on euc1 is not another's, nor the same
// name on use1). Created by the first call that joins, gone when the last one leaves; participants can be muted
// and held. Ending calls is the switch's business (calls.ts); this only keeps who is where.
import { durationOf, type Call } from './state.js';
import type { ParticipantCommand, VoiceRegion } from '../../../common/wire/voice.js';

export interface Participant {
  call: Call;
  joinedAt: number;
  muted: boolean;
  onhold: boolean;
  moh?: string;
}

export interface Conference {
  conferenceId: string;
  region: VoiceRegion;
  applicationKey: string;
  recorded: boolean;
  moh?: string;
  createdAt: string;
  participants: Map<string, Participant>;
}

const keyOf = (appKey: string, region: VoiceRegion, conferenceId: string) => `${appKey}\n${region}\n${conferenceId}`;

export class Conferences {
  /** Not kept: live simulations, which a restart ends. */
  private readonly all = new Map<string, Conference>();

  find(appKey: string, region: VoiceRegion, conferenceId: string): Conference | undefined {
    return this.all.get(keyOf(appKey, region, conferenceId));
  }

  /** Puts the call in the conference (created in the call's region if new); it leaves any other first. */
  join(call: Call, conferenceId: string, opts: { record?: boolean; moh?: string } = {}): { left?: Conference } {
    const left = call.conferenceId !== conferenceId ? this.leave(call) : undefined;
    const key = keyOf(call.account.appKey, call.region, conferenceId);
    let conf = this.all.get(key);
    if (!conf) {
      conf = {
        conferenceId,
        region: call.region,
        applicationKey: call.account.appKey,
        recorded: false,
        createdAt: new Date().toISOString(),
        participants: new Map(),
      };
      this.all.set(key, conf);
    }
    if (opts.record) conf.recorded = true;
    if (opts.moh) conf.moh = opts.moh;
    if (!conf.participants.has(call.callId)) conf.participants.set(call.callId, { call, joinedAt: Date.now(), muted: false, onhold: false });
    call.conferenceId = conferenceId;
    return left ? { left } : {};
  }

  /** Takes the call out of its conference; the conference it left if that was the last participant (now gone). */
  leave(call: Call): Conference | undefined {
    if (call.conferenceId === undefined) return undefined;
    // call.conferenceId stays: the call's record keeps the conference it was last in.
    const key = keyOf(call.account.appKey, call.region, call.conferenceId);
    const conf = this.all.get(key);
    if (!conf || !conf.participants.delete(call.callId)) return undefined;
    if (conf.participants.size > 0) return undefined;
    this.all.delete(key);
    return conf;
  }

  command(p: Participant, command: ParticipantCommand, moh?: string): void {
    if (command === 'mute' || command === 'unmute') p.muted = command === 'mute';
    else {
      p.onhold = command === 'onhold';
      if (p.onhold && moh) p.moh = moh;
      else delete p.moh;
    }
  }

  /** The platform's answer to GET /conferences/id/{id}. */
  view(conf: Conference): { participants: Array<{ cli: string; id: string; duration: number; muted: boolean; onhold: boolean }> } {
    const now = Date.now();
    return {
      participants: [...conf.participants.values()].map((p) => ({
        cli: participantCli(p.call),
        id: p.call.callId,
        duration: Math.floor((now - p.joinedAt) / 1000),
        muted: p.muted,
        onhold: p.onhold,
      })),
    };
  }

  controlView(): unknown[] {
    return [...this.all.values()].map((c) => ({
      conferenceId: c.conferenceId,
      region: c.region,
      applicationKey: c.applicationKey,
      recorded: c.recorded,
      createdAt: c.createdAt,
      participants: [...c.participants.values()].map((p) => ({
        callId: p.call.callId,
        cli: participantCli(p.call),
        muted: p.muted,
        onhold: p.onhold,
        ...(p.moh ? { moh: p.moh } : {}),
        callDuration: durationOf(p.call),
      })),
    }));
  }

  clear(): void {
    this.all.clear();
  }
}

/** The participant's own number: the caller of an incoming call, the called number of a callout. */
function participantCli(call: Call): string {
  return call.kind === 'incoming' ? call.from : (call.connectedTo ?? call.to.endpoint);
}
