// Two pictures read from the process's own status (GET /v1/processes/:id): a verification's fallback chain (each
// method in order, the platform verifications sent for it, their outcome and time) and a voice callout's calls
// (each leg, each call placed for it, every callback answered, by whom, and the recordings the platform told of). Rows of labelled boxes: the words are
// in the boxes, the colour only repeats them. Phone numbers masked.
import { clock, el, icon, mask } from './dom.js';

const FINAL = ['SUCCESSFUL', 'FAIL', 'DENIED', 'ABORTED', 'ERROR', 'CANCELLED', 'ABANDONED'];
const TONE = { succeeded: '✔', failed: '✖', current: '▶', untried: '○' };

/** When a platform verification was sent: the timeline's platform call that named it (its start's answer). */
function sentAt(timeline, verificationId) {
  const entry = (timeline.entries || []).find((e) => e.kind === 'platform call' && JSON.stringify(e.details || {}).includes(verificationId));
  return entry ? entry.at : undefined;
}

function box(tone, title, lines, label) {
  const li = el('li', undefined, `try try-${tone}`);
  const h = el('h4');
  h.append(icon(TONE[tone]), ` ${title}`);
  const ul = el('ul');
  for (const line of lines) ul.append(el('li', mask(line)));
  li.append(h, ul);
  li.setAttribute('aria-label', mask(label));
  return li;
}

/** A verification's methods along its fallback chain, each with the platform verifications sent for it. */
export function verificationChain(v, timeline) {
  const d = v.details;
  const sends = d.platformVerifications || [];
  const running = !FINAL.includes(v.state);
  const chain = el('ol', undefined, 'chain');
  chain.setAttribute('aria-label', 'Fallback chain: each method in the order tried');
  d.steps.forEach((step, i) => {
    const mine = sends.filter((s) => s.step === i);
    let tone = 'untried';
    if (mine.some((s) => s.status === 'SUCCESSFUL')) tone = 'succeeded';
    else if (i < d.currentStep || (i === d.currentStep && !running && mine.length)) tone = 'failed';
    else if (i === d.currentStep && running) tone = 'current';
    const lines = mine.length
      ? mine.map((s) => {
          // An SDK's verification was not sent by relayflow: its time is when its request came.
          if (v.kind === 'sdk-verification')
            return `${d.request ? `requested ${clock(d.request.at)}` : 'requested'}: ${s.status}${s.reason ? ` — ${s.reason}` : ''}`;
          const at = sentAt(timeline, s.verificationId);
          // A send still PENDING on a step the process has left had no result in time.
          const status = s.status === 'PENDING' && tone !== 'current' ? 'no result in time' : s.status;
          return `${at ? `sent ${clock(at)}` : 'sent'}: ${status}${s.reason ? ` — ${s.reason}` : ''}`;
        })
      : [tone === 'current' ? 'starting' : 'not tried'];
    const outcome = {
      succeeded: 'succeeded',
      failed: i < d.currentStep ? 'gave way to the next method' : `ended ${v.state}`,
      current: 'under way',
      untried: 'not tried',
    }[tone];
    const title = `${i + 1}. ${step.method}`;
    const li = el('li');
    if (i > 0) {
      const then = el('span', '→', 'then');
      then.setAttribute('aria-hidden', 'true');
      li.append(then);
    }
    li.append(box(tone, `${title}: ${outcome}`, lines, `Method ${title}, ${outcome}: ${lines.join('; ')}`));
    li.firstElementChild.dataset.method = step.method;
    chain.append(li);
  });
  const parts = [el('h3', 'Methods tried'), chain];
  // An SDK's verification (sdk-verification) was started and reported by the app: relayflow only answered its request.
  const sdk = d.request ? `started by an SDK; relayflow answered ${d.request.action}: ${d.request.why}` : 'started by an SDK; its request was not seen';
  const counts = v.kind === 'sdk-verification' ? [sdk] : [`${d.attempts || 0} code reports`, `${d.resends || 0} resends`];
  if (d.smsDelivery) counts.push(`SMS delivery: ${d.smsDelivery}`);
  parts.push(el('p', counts.join(' · '), 'bar-notes'));
  return parts;
}

const CALL_TONE = (a) => (a.outcome === 'answered' || a.state === 'answered' ? 'succeeded' : a.state === 'ended' ? 'failed' : 'current');

/** A callout's legs, each call placed for it, and what was answered to each of its callbacks. */
export function calloutCalls(v) {
  const parts = [el('h3', 'Calls and answers')];
  for (const leg of v.details.legs) {
    const section = el('div', undefined, 'leg');
    section.dataset.leg = String(leg.index);
    const head = `Leg ${leg.index + 1} to ${leg.destination}: ${leg.outcome || 'no outcome yet'}${leg.nextAttemptAt ? `, next call ${clock(leg.nextAttemptAt)}` : ''}`;
    section.append(el('h4', mask(head)));
    const calls = el('ol', undefined, 'calls');
    calls.setAttribute('aria-label', mask(`Calls of leg ${leg.index + 1}`));
    for (const a of leg.attempts) {
      const lines = [`placed ${clock(a.placedAt)}`];
      if (a.answeredAt) lines.push(`answered ${clock(a.answeredAt)}`);
      if (a.endedAt) lines.push(`ended ${clock(a.endedAt)}${a.durationSeconds !== undefined ? `, ${a.durationSeconds} s` : ''}`);
      if (a.result) lines.push(`result ${a.result}${a.reason ? ` (${a.reason})` : ''}`);
      if (a.amd) lines.push(`machine detection: ${a.amd.status}${a.amd.reason ? ` (${a.amd.reason})` : ''}`);
      for (const ans of a.answers || []) lines.push(`${clock(ans.at)} ${ans.event} → ${ans.action}${ans.input ? ` (input ${ans.input})` : ''}, by ${ans.by}`);
      if (!(a.answers || []).length) lines.push(a.state === 'ended' ? 'no callback answered' : 'no callback answered yet');
      // The platform's recording notifications about this call (its conference's recording when it left last).
      for (const r of (v.details.recordings || []).filter((x) => x.callId === a.callId)) {
        lines.push(`${clock(r.receivedAt)} ${r.type.replace('_', ' ')}${r.destination ? `: ${r.destination}` : ''}`);
      }
      const title = `Call ${a.attempt}: ${a.outcome || a.state}`;
      const b = box(CALL_TONE(a), title, lines, `${title}; ${lines.join('; ')}`);
      b.dataset.call = String(a.attempt);
      calls.append(b);
    }
    if (!leg.attempts.length) calls.append(box('untried', 'no call placed yet', [], 'No call placed yet'));
    section.append(calls);
    parts.push(section);
  }
  if (v.details.fallbacks) parts.push(el('p', `${v.details.fallbacks} callbacks answered by the intake's fallback (the process was late)`, 'bar-notes'));
  return parts;
}
