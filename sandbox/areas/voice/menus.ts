// runMenu, the platform's IVR: what a runMenu action must hold to be run, which menu is current, and what keys
// pressed (or none) come to: another menu, or a menu result for a PIE. Pure; the switch (actions.ts) keeps the
// timers and sends the PIE.
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface MenuOption {
  dtmf: string;
  /** `return(value)`, `return` (the value is the key) or `menu(id)`. */
  action: string;
}

export interface MenuDef {
  id: string;
  mainPrompt?: string;
  repeatPrompt?: string;
  repeats: number;
  maxDigits?: number;
  timeoutMills: number;
  options: MenuOption[];
}

export interface MenuState {
  menus: MenuDef[];
  current: string;
  locale?: string;
  enteredAt: string;
}

export interface MenuResult {
  menuId: string;
  type: 'return' | 'sequence' | 'timeout' | 'invalidinput';
  value: string;
  inputMethod: 'dtmf';
}

const DEFAULT_MENU_TIMEOUT_MS = 3000;
const OPTION_ACTION = /^(?:return(?:\((.*)\))?|menu\((.+)\))$/;

/** What makes a runMenu action impossible to run (empty: it can be run). */
export function menuProblems(action: Obj): string[] {
  const menus = action.menus;
  if (!Array.isArray(menus) || menus.length === 0) return ['action.menus: a non-empty list of menus is required'];
  const problems: string[] = [];
  const ids = new Set<string>();
  menus.forEach((m: unknown, i) => {
    if (!isObj(m) || typeof m.id !== 'string' || m.id === '') return void problems.push(`action.menus[${i}].id: required`);
    ids.add(m.id);
    for (const k of ['repeats', 'maxDigits', 'timeoutMills'] as const) {
      if (m[k] !== undefined && (typeof m[k] !== 'number' || !Number.isInteger(m[k]) || (m[k] as number) < 0))
        problems.push(`action.menus[${i}].${k}: a non-negative integer`);
    }
    if (m.options !== undefined && !Array.isArray(m.options)) problems.push(`action.menus[${i}].options: must be a list`);
  });
  menus.forEach((m: unknown, i) => {
    const options = isObj(m) && Array.isArray(m.options) ? (m.options as unknown[]) : [];
    options.forEach((o, j) => {
      const match = isObj(o) && typeof o.dtmf === 'string' && typeof o.action === 'string' ? OPTION_ACTION.exec(o.action) : null;
      if (!match) problems.push(`action.menus[${i}].options[${j}]: {dtmf, action: return(value) | menu(id)} required`);
      else if (match[2] !== undefined && !ids.has(match[2])) problems.push(`action.menus[${i}].options[${j}].action: no menu ${match[2]}`);
    });
  });
  if (action.mainMenu !== undefined && (typeof action.mainMenu !== 'string' || !ids.has(action.mainMenu)))
    problems.push('action.mainMenu: must name one of the menus');
  return problems;
}

/** The menu state for a runMenu action that menuProblems accepted. */
export function startMenu(action: Obj): MenuState {
  const menus = (action.menus as Obj[]).map((m): MenuDef => ({
    id: m.id as string,
    ...(typeof m.mainPrompt === 'string' ? { mainPrompt: m.mainPrompt } : {}),
    ...(typeof m.repeatPrompt === 'string' ? { repeatPrompt: m.repeatPrompt } : {}),
    repeats: typeof m.repeats === 'number' ? m.repeats : 0,
    ...(typeof m.maxDigits === 'number' ? { maxDigits: m.maxDigits } : {}),
    timeoutMills: typeof m.timeoutMills === 'number' ? m.timeoutMills : DEFAULT_MENU_TIMEOUT_MS,
    options: Array.isArray(m.options) ? (m.options as MenuOption[]).map((o) => ({ dtmf: o.dtmf, action: o.action })) : [],
  }));
  const current = typeof action.mainMenu === 'string' ? action.mainMenu : menus[0]!.id;
  return { menus, current, ...(typeof action.locale === 'string' ? { locale: action.locale } : {}), enteredAt: new Date().toISOString() };
}

export function currentMenu(state: MenuState): MenuDef {
  return state.menus.find((m) => m.id === state.current) ?? state.menus[0]!;
}

/** How long the current menu waits for keys: its timeout once per play (the first and each repeat). */
export function waitMsOf(def: MenuDef): number {
  return def.timeoutMills * (def.repeats + 1);
}

/** The text of a prompt: `#tts[Hello]` is said as `Hello`; anything else (a file, ssml) is kept as written. */
export function promptText(prompt: string): string {
  const m = /^#tts\[(.*)\]$/s.exec(prompt);
  return m ? m[1]! : prompt;
}

export type PressOutcome = { kind: 'menu'; menu: MenuDef } | { kind: 'result'; result: MenuResult };

/** Keys pressed in the current menu: an option's return or sub-menu, a free sequence, or invalid input. */
export function press(state: MenuState, digits: string): PressOutcome {
  const def = currentMenu(state);
  const option = def.options.find((o) => o.dtmf === digits);
  const result = (type: MenuResult['type'], value: string): PressOutcome => ({ kind: 'result', result: { menuId: def.id, type, value, inputMethod: 'dtmf' } });
  if (option) {
    const [, returned, menuId] = OPTION_ACTION.exec(option.action) ?? [];
    if (menuId !== undefined) {
      state.current = menuId;
      state.enteredAt = new Date().toISOString();
      return { kind: 'menu', menu: currentMenu(state) };
    }
    return result('return', returned ?? digits);
  }
  if (def.options.length === 0 && def.maxDigits !== undefined && digits.length <= def.maxDigits) return result('sequence', digits);
  return result('invalidinput', digits);
}

export function timeoutResult(state: MenuState): MenuResult {
  return { menuId: currentMenu(state).id, type: 'timeout', value: '', inputMethod: 'dtmf' };
}
