// The benchmark's baseline: a bare workflow started (update-with-start) and answered by an update.
import { condition, defineUpdate, setHandler } from '@temporalio/workflow';

export const baselineStarted = defineUpdate<string>('baselineStarted');
export const baselineAnswer = defineUpdate<string, [string]>('baselineAnswer');

export async function baselineVerification(): Promise<string> {
  let answer: string | undefined;
  setHandler(baselineStarted, () => 'started');
  setHandler(baselineAnswer, (code) => {
    answer = code;
    return 'SUCCESSFUL';
  });
  await condition(() => answer !== undefined);
  return answer!;
}
