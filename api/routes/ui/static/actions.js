// The actions the API has for the open process (pause, resume, cancel, stop; retry and skip an onboarding's step),
// as buttons where its state and the key's scope allow them. Each asks first in a modal dialog, sends a fresh
// Idempotency-Key (one operation per confirmation: a retried request would repeat its answer, a new click is a new
// operation) and tells the API's answer in a live region. The server says which kinds have which actions and the
// scope each needs (api/routes/ui/index.ts, from the registered routes), and the page learns the key's scope
// from GET /v1/keys/me: a key that may not act sees no buttons, and is told why.
import { el, icon, mask } from './dom.js';

const TABLE = JSON.parse(document.body.dataset.actions || '{}');
const SCOPES = (document.body.dataset.scopes || '').split(',');
const $ = (id) => document.getElementById(id);

/** The key's scope; undefined until known (then the buttons show, and a 403 is told like any answer). */
let held;
export const setScope = (scope) => {
  held = scope;
};
const allowed = (needed) => held === undefined || SCOPES.indexOf(held) >= SCOPES.indexOf(needed);

const FINAL_STEP = ['SUCCEEDED', 'SKIPPED', 'STOPPED'];
/** When each action makes sense; anything else the API refuses (409), so it is not offered. */
const WHEN = {
  pause: (v) => ['PREPARING', 'SENDING'].includes(v.state),
  resume: (v) => v.state === 'PAUSED',
  cancel: (v) => !['CANCELLING', 'SETTLING'].includes(v.state),
  stop: () => true,
};
const WORDS = {
  pause: { label: 'Pause', icon: '‖', question: 'Pause sending? Running chunks stop within a second; resume carries on from there.' },
  resume: { label: 'Resume', icon: '▶', question: 'Resume sending where it stopped?' },
  cancel: { label: 'Cancel', icon: '✖', question: 'Cancel the process? This cannot be undone.' },
  stop: { label: 'Stop', icon: '■', question: 'Stop the process? What it made on the platform stays as it is.' },
  'step-retry': { label: 'Retry', icon: '↻', question: 'Retry this failed step? The steps it blocks run again after it.' },
  'step-skip': { label: 'Skip', icon: '↷', question: 'Skip this step? The steps that cannot run without it are skipped too.' },
};

/** An operation ID no other click has: 128 random bits (crypto.randomUUID needs a secure context, this does not). */
const freshOperationId = () => `ui-${[...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;

/** Asks in the dialog; resolves to the reason typed (may be '') when confirmed, undefined when not. */
function confirmDialog({ title, question, yes, reason }) {
  const dialog = $('confirm');
  $('confirm-title').textContent = title;
  $('confirm-text').textContent = question;
  $('confirm-yes').textContent = yes;
  $('confirm-reason-row').hidden = !reason;
  $('confirm-reason').value = '';
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes' ? $('confirm-reason').value.trim() : undefined), { once: true });
    dialog.showModal();
  });
}
$('confirm-yes').addEventListener('click', () => $('confirm').close('yes'));
$('confirm-no').addEventListener('click', () => $('confirm').close('no'));
$('confirm-reason').addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter') {
    ev.preventDefault();
    $('confirm').close('yes');
  }
});

/**
 * The buttons' behaviour: `post(path, body, idempotencyKey)` answers { ok, status, body }; `done()` refreshes what
 * the page shows once the API has answered.
 */
export function createActions({ post, done }) {
  const answer = (text, ok) => {
    const p = $('action-answer');
    p.textContent = mask(text);
    p.className = ok ? 'answer ok' : 'answer refused';
    p.hidden = false;
  };

  function button(v, action, step) {
    const spec = TABLE[v.kind][action];
    const words = WORDS[action];
    const what = step ? `step ${step.name}` : v.processId;
    const b = el('button', undefined, `action action-${action}`);
    b.type = 'button';
    b.dataset.action = step ? `${action}:${step.name}` : action;
    b.append(icon(words.icon), ` ${words.label}${step ? ` ${step.name}` : ''}`);
    b.addEventListener('click', async () => {
      const title = `${words.label} ${what}?`;
      const reason = await confirmDialog({ title, question: words.question, yes: `${words.label} ${what}`, reason: action !== 'step-retry' });
      if (reason === undefined) return;
      const path = spec.path.replace('{processId}', encodeURIComponent(v.processId)).replace('{step}', encodeURIComponent(step ? step.name : ''));
      answer(`${words.label} ${what}: asking…`, true);
      try {
        const res = await post(path, reason ? { reason } : {}, freshOperationId());
        if (res.ok)
          answer(`${words.label} ${what}: accepted${res.body.state ? `, ${res.body.state} now` : ''}${res.body.reason ? ` — ${res.body.reason}` : ''}`, true);
        else answer(`${words.label} ${what} refused (${res.status}): ${res.body.error ? res.body.error.message : res.status}`, false);
      } catch (err) {
        answer(`${words.label} ${what}: no answer (${err.message})`, false);
      }
      done();
    });
    return b;
  }

  const offered = (v, action) => Boolean(TABLE[v.kind] && TABLE[v.kind][action]);
  /** Why a key sees no buttons where a process has actions. */
  const scopeNote = (v, actions) => {
    const needed = actions.map((a) => TABLE[v.kind][a].scope).find((s) => !allowed(s));
    return needed ? el('p', `This key (${held}) can look, not act: the actions need the ${needed} scope.`, 'note scope-note') : undefined;
  };

  return {
    /** The process's own actions (pause, resume, cancel, stop), while it runs. */
    forProcess(v) {
      if (!v.execution || v.execution.status !== 'RUNNING') return [];
      const actions = ['pause', 'resume', 'cancel', 'stop'].filter((a) => offered(v, a) && WHEN[a](v));
      const mine = actions.filter((a) => allowed(TABLE[v.kind][a].scope));
      if (!mine.length) {
        const note = scopeNote(v, actions);
        return note ? [note] : [];
      }
      return mine.map((a) => button(v, a));
    },
    /** An onboarding's step actions: retry a FAILED step, skip one not done; a list below the graph. */
    forSteps(v, steps) {
      if (!v.execution || v.execution.status !== 'RUNNING') return [];
      const rows = [];
      let refused;
      for (const s of steps) {
        const actions = [s.state === 'FAILED' ? 'step-retry' : '', FINAL_STEP.includes(s.state) ? '' : 'step-skip'].filter((a) => a && offered(v, a));
        const mine = actions.filter((a) => allowed(TABLE[v.kind][a].scope));
        if (mine.length < actions.length) refused = actions;
        if (!mine.length) continue;
        const li = el('li');
        li.dataset.step = s.name;
        li.append(el('span', `${s.name} (${s.state.toLowerCase()})`, 'step-action-name'), ...mine.map((a) => button(v, a, s)));
        rows.push(li);
      }
      if (!rows.length) {
        const note = refused && scopeNote(v, refused);
        return note ? [note] : [];
      }
      const ul = el('ul', undefined, 'step-actions');
      ul.setAttribute('aria-label', 'Actions on steps');
      ul.append(...rows);
      return [el('h3', 'Act on a step'), ul];
    },
  };
}
