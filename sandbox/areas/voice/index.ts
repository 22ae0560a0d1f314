// Area A's voice switch (docs/voice-wire.md "Sandbox switch"): callouts, calls and conferences on the calling
// address of each region, simulated calls that ring numbers by test-set rules and ask the application by signed
// ICE/ACE/PIE callbacks what to do, and control routes under /_sandbox/voice. Callback URLs and number owners
// come from the configuration area's state (the same instance: voiceConfigStateOf). Calls and conferences are live
// simulations and stay in memory even in a persistent sandbox: a restart ends them (the configuration is kept).
import type { SandboxArea } from '../../core/area.js';
import { voiceConfigStateOf } from '../voice-config/state.js';
import { CallEngine } from './calls.js';
import { voiceControlRoutes } from './control.js';
import { callingRoutes } from './routes.js';
import { VoiceState } from './state.js';

export const voiceArea: SandboxArea = {
  name: 'voice',
  setup(ctx) {
    const config = voiceConfigStateOf(ctx);
    const state = new VoiceState();
    const engine = new CallEngine(ctx, state, config);
    // Calls are marked ended first, so flows woken by the cancelled timers stand down.
    ctx.own({ parts: [state, engine] });
    return {
      routes: async (app, mount) => {
        await app.register(callingRoutes(ctx, engine, mount));
      },
      control: (app) => voiceControlRoutes(app, ctx, engine, config),
    };
  },
};
