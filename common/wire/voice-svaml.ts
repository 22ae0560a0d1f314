// Which SVAML the platform takes as the answer to each callback (wire notes): exactly one action, legal for the
// event, and instructions that are. relayflow checks its own answers with this before sending them, since an
// illegal answer is treated by the platform like no answer at all; the sandbox applies the same table.
// Wire shapes, once, so client and sandbox cannot drift: the platform's request and response shapes live in common/wire/<area>.ts, imported by
// relayflow's clients (platform/) and by the sandbox; the sandbox keeps its own validation and internal records.
export type SvamlActionName = 'hangup' | 'continue' | 'connectPstn' | 'connectMxp' | 'connectConf' | 'connectSip' | 'runMenu' | 'park';
export type SvamlInstructionName = 'answer' | 'playFiles' | 'say' | 'sendDtmf' | 'setCookie' | 'startRecording' | 'stopRecording';

export interface Svaml {
  instructions?: Array<{ name: SvamlInstructionName } & Record<string, unknown>>;
  action: { name: SvamlActionName } & Record<string, unknown>;
}

export type CallbackEventName = 'ice' | 'ace' | 'dice' | 'pie' | 'notify';

const ACTIONS: Record<SvamlActionName, ReadonlySet<CallbackEventName>> = {
  hangup: new Set(['ice', 'ace', 'pie']),
  continue: new Set(['ace', 'pie']),
  connectPstn: new Set(['ice', 'pie']),
  connectMxp: new Set(['ice']),
  connectConf: new Set(['ice', 'ace', 'pie']),
  connectSip: new Set(['ice', 'pie']),
  runMenu: new Set(['ice', 'ace', 'pie']),
  park: new Set(['ice']),
};

const INSTRUCTIONS: Record<SvamlInstructionName, ReadonlySet<CallbackEventName>> = {
  answer: new Set(['ice']),
  playFiles: new Set(['ice', 'ace', 'pie']),
  say: new Set(['ice', 'ace', 'pie']),
  sendDtmf: new Set(['ice', 'ace', 'pie']),
  setCookie: new Set(['ice', 'ace', 'pie']),
  startRecording: new Set(['ice', 'ace', 'pie']),
  stopRecording: new Set(['ice', 'ace', 'pie']),
};

/** What is wrong with `svaml` as the answer to `event` (empty: it is legal). DiCE and Notify take no SVAML. */
export function svamlViolations(event: CallbackEventName, svaml: unknown): string[] {
  if (event === 'dice' || event === 'notify') return [`${event} is answered with an empty body, not SVAML`];
  if (typeof svaml !== 'object' || svaml === null || Array.isArray(svaml)) return ['the answer must be an object {instructions?, action}'];
  const s = svaml as Partial<Svaml>;
  const problems: string[] = [];
  const action = s.action as { name?: unknown } | undefined;
  if (!action || typeof action !== 'object' || Array.isArray(action)) problems.push('action: exactly one action is required');
  else if (typeof action.name !== 'string' || !(action.name in ACTIONS)) problems.push(`action.name: unknown action ${JSON.stringify(action.name)}`);
  else if (!ACTIONS[action.name as SvamlActionName].has(event)) problems.push(`action.name: ${action.name} is not allowed in answer to ${event.toUpperCase()}`);
  if (s.instructions !== undefined) {
    if (!Array.isArray(s.instructions)) problems.push('instructions: must be a list');
    else {
      s.instructions.forEach((ins: { name?: unknown }, i) => {
        const name = ins && typeof ins === 'object' ? ins.name : undefined;
        if (typeof name !== 'string' || !(name in INSTRUCTIONS)) problems.push(`instructions[${i}].name: unknown instruction ${JSON.stringify(name)}`);
        else if (!INSTRUCTIONS[name as SvamlInstructionName].has(event))
          problems.push(`instructions[${i}].name: ${name} is not allowed in answer to ${event.toUpperCase()}`);
      });
    }
  }
  return problems;
}

/** Only playFiles and say may manage a call leg. */
export function legInstructionViolations(instructions: unknown): string[] {
  if (!Array.isArray(instructions) || instructions.length === 0) return ['instructions: a non-empty list is required'];
  return instructions.flatMap((ins: { name?: unknown }, i) => {
    const name = ins && typeof ins === 'object' ? ins.name : undefined;
    return name === 'playFiles' || name === 'say' ? [] : [`instructions[${i}].name: only playFiles and say manage a call leg`];
  });
}
