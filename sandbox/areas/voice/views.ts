// How a call is shown: the platform's GET /calls/id/{callId} answer, and the sandbox's own records for tests
// (a summary per call, and the full record with everything played and every callback sent).
import { callResourceUrl, USER_RATE } from './callbacks.js';
import { currentMenu } from './menus.js';
import { durationOf, type Call } from './state.js';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The platform's call information. */
export function callInfo(call: Call): Record<string, unknown> {
  const duration = durationOf(call);
  const minutes = call.answeredAt === undefined ? 0 : Math.max(1, Math.ceil(duration / 60));
  return {
    from: call.from,
    to: { type: call.to.type, endpoint: call.to.endpoint },
    domain: call.domain,
    callId: call.callId,
    duration,
    status: call.status,
    result: call.result,
    reason: call.reason,
    timestamp: iso(call.createdAt),
    custom: call.custom,
    userRate: { ...USER_RATE },
    debit: { currencyId: USER_RATE.currencyId, amount: Math.round(minutes * USER_RATE.amount * 10_000) / 10_000 },
  };
}

export function callSummary(call: Call): Record<string, unknown> {
  return {
    callId: call.callId,
    kind: call.kind,
    region: call.region,
    applicationKey: call.account.appKey,
    from: call.from,
    ...(call.inApp ? { user: call.inApp.user } : {}),
    to: call.to.endpoint,
    status: call.status,
    result: call.result,
    reason: call.reason,
    phase: call.phase,
    createdAt: iso(call.createdAt),
  };
}

export function callRecord(call: Call): Record<string, unknown> {
  return {
    ...callSummary(call),
    to: { ...call.to },
    domain: call.domain,
    custom: call.custom,
    callResourceUrl: callResourceUrl(call),
    answeredAt: iso(call.answeredAt),
    endedAt: iso(call.endedAt),
    duration: durationOf(call),
    ...(call.answeredBy ? { answeredBy: call.answeredBy } : {}),
    ...(call.connectedTo ? { connectedTo: call.connectedTo } : {}),
    ...(call.conferenceId ? { conferenceId: call.conferenceId } : {}),
    options: {
      enableAce: call.options.enableAce,
      enableDice: call.options.enableDice,
      enablePie: call.options.enablePie,
      amd: call.options.amd,
      ...(call.options.text !== undefined ? { text: call.options.text } : {}),
      ...(call.options.conferenceId !== undefined ? { conferenceId: call.options.conferenceId } : {}),
    },
    menu: call.menu ? { current: currentMenu(call.menu).id, menus: call.menu.menus.map((m) => m.id), enteredAt: call.menu.enteredAt } : null,
    ...(call.lastMenuResult ? { lastMenuResult: call.lastMenuResult } : {}),
    played: call.played.map((p) => ({ ...p })),
    callbacks: call.callbacks.map((c) => ({ ...c })),
  };
}
