// The SVAML that carries out one step of a call script, for the callback it answers (pure; run by the callback
// intake and inside workflows). Menus are run one at a time with every option returning its key, so the choice
// comes back as a PIE and the call's driver decides what follows: an IVR is a small state machine, not a static tree.
import type { CallScript, CallStep, Menu, Svaml } from './contract.js';

type Event = 'ice' | 'ace' | 'pie';
type Instruction = NonNullable<Svaml['instructions']>[number];

const DEFAULT_LOCALE = 'en-US';
/** A menu shown this many times in one call (invalid keys, timeouts, going back) ends it: no caller is stuck forever. */
export const MAX_MENU_ROUNDS = 10;
export const MENU_GIVE_UP_TEXT = 'Sorry, we could not understand your choice. Goodbye.';

const say = (text: string, locale: string | undefined): Instruction => ({ name: 'say', text, locale: locale ?? DEFAULT_LOCALE });
/** ICE must answer the call before anything is played to the caller. */
const answered = (event: Event, rest: Instruction[]): Instruction[] => (event === 'ice' ? [{ name: 'answer' }, ...rest] : rest);

export const hangup = (text?: string, locale?: string): Svaml => ({ ...(text ? { instructions: [say(text, locale)] } : {}), action: { name: 'hangup' } });
export const continueCall = (): Svaml => ({ action: { name: 'continue' } });

export function runMenu(id: string, menu: Menu, event: Event, preface?: string): Svaml {
  const locale = menu.locale ?? DEFAULT_LOCALE;
  const instructions = answered(event, preface ? [say(preface, locale)] : []);
  return {
    ...(instructions.length ? { instructions } : {}),
    action: {
      name: 'runMenu',
      locale,
      mainMenu: id,
      menus: [
        {
          id,
          mainPrompt: `#tts[${menu.prompt}]`,
          repeats: menu.repeats ?? 2,
          maxDigits: 1,
          timeoutMills: (menu.timeoutSeconds ?? 5) * 1000,
          options: Object.keys(menu.options).map((dtmf) => ({ dtmf, action: `return(${dtmf})` })),
        },
      ],
    },
  };
}

/** The SVAML for `step` in answer to `event`; the caller checks legality (svamlViolations) before sending it. */
export function svamlOfStep(step: CallStep, event: Event, script: CallScript, opts: { cli?: string } = {}): Svaml {
  switch (step.type) {
    case 'play':
      return { instructions: answered(event, [say(step.text, step.locale)]), action: { name: 'hangup' } };
    case 'hangup':
      return hangup(step.text);
    case 'connect': {
      const cli = step.cli ?? opts.cli;
      return { action: { name: 'connectPstn', number: step.number, ...(cli ? { cli } : {}) } };
    }
    case 'conference': {
      const instructions = answered(event, step.greeting ? [say(step.greeting, undefined)] : []);
      return {
        ...(instructions.length ? { instructions } : {}),
        action: { name: 'connectConf', conferenceId: step.conferenceId, ...(step.moh ? { moh: step.moh } : {}), ...(step.record ? { record: true } : {}) },
      };
    }
    case 'menu': {
      const menu = script.menus?.[step.menu];
      // Scripts are checked at the API (scriptViolations); a missing menu here is a bug, so end the call politely.
      return menu ? runMenu(step.menu, menu, event) : hangup(MENU_GIVE_UP_TEXT);
    }
  }
}

/** Where a script is wrong, field by field (`start.number`, `menus.main.options.1.menu`); empty when it is fine. */
export function scriptViolations(script: CallScript, startsOn: Event): Array<{ field: string; rule: string; message: string }> {
  const problems: Array<{ field: string; rule: string; message: string }> = [];
  const menus = script.menus ?? {};
  const check = (step: CallStep, field: string, on: Event) => {
    if (step.type === 'menu' && !(step.menu in menus))
      problems.push({ field: `${field}.menu`, rule: 'exists', message: `no menu named ${JSON.stringify(step.menu)} in menus` });
    if (step.type === 'connect' && on === 'ace')
      problems.push({
        field: `${field}.type`,
        rule: 'legal',
        message: 'connect cannot answer an answered callout (the platform allows connectPstn only on ICE and PIE)',
      });
  };
  check(script.start, 'start', startsOn);
  for (const [id, menu] of Object.entries(menus)) {
    if (Object.keys(menu.options).length === 0)
      problems.push({ field: `menus.${id}.options`, rule: 'minProperties', message: 'a menu needs at least one option' });
    for (const [key, step] of Object.entries(menu.options)) {
      if (!/^[0-9*#]$/.test(key)) problems.push({ field: `menus.${id}.options.${key}`, rule: 'key', message: 'option keys are one of 0-9, * and #' });
      check(step, `menus.${id}.options.${key}`, 'pie');
    }
  }
  return problems;
}
