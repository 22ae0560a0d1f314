// The campaign's API operations (pause, resume, cancel, rate), each answered once per operationId.
import { condition } from '@temporalio/workflow';
import { cancelCampaignUpdate, pauseCampaignUpdate, resumeCampaignUpdate, setCampaignRateUpdate, type CampaignOperationOutcome } from '../contract.js';
import { CAMPAIGN_STATES } from '../states.js';
import { operationsOn } from '../../shared/workflow/actions.js';
import type { CampaignRun } from './campaign-state.js';

export function handleCampaignOperations(run: CampaignRun): void {
  const { details: d, tracker } = run;
  const refuse = (reason: string): CampaignOperationOutcome => ({ accepted: false, state: run.state, reason });
  const ended = () => CAMPAIGN_STATES.final.includes(run.state);
  const operation = operationsOn(run.operations, 'remember');

  operation(pauseCampaignUpdate, async (req) => {
    if (ended()) return refuse(`the campaign has ended (${run.state})`);
    if (run.allSent) return refuse('every message has been sent; the campaign is only waiting for confirmations');
    if (run.paused) return { accepted: true, state: run.state };
    run.pause(`paused through the API${req.reason ? `: ${req.reason}` : ''}`, 'caller');
    await run.halt('paused');
    return { accepted: true, state: 'PAUSED' };
  });

  operation(resumeCampaignUpdate, async () => {
    if (ended()) return refuse(`the campaign has ended (${run.state})`);
    if (!run.paused) return { accepted: true, state: run.state };
    await run.control.setCampaignHalt({ campaignId: run.campaignId, halt: null });
    run.resumed();
    return { accepted: true, state: run.state };
  });

  operation(cancelCampaignUpdate, async (req) => {
    if (ended()) return refuse(`the campaign has ended (${run.state})`);
    if (run.allSent) return refuse('every message has been sent; nothing is left to cancel');
    run.cancel(`cancelled through the API${req.reason ? `: ${req.reason}` : ''}`);
    await run.halt('cancelled');
    return { accepted: true, state: 'CANCELLED' };
  });

  operation(setCampaignRateUpdate, async (req) => {
    if (ended()) return refuse(`the campaign has ended (${run.state})`);
    if (!(req.rate > 0)) return refuse('rate must be above 0');
    if (run.waitingForStart) return refuse('the campaign has not started yet: its rate can be set once it sends');
    // prepareCampaign sets the store's rate: a change asked for meanwhile applies after it, so it is not overwritten.
    await condition(() => run.isPrepared || ended());
    if (ended()) return refuse(`the campaign has ended (${run.state})`);
    const rate = Math.min(req.rate, d.platformRate);
    await run.control.setCampaignRate({ campaignId: run.campaignId, rate });
    d.rate = rate;
    tracker.moveTo(run.state, `rate set to ${rate}/s through the API${rate < req.rate ? ` (capped at the platform's ${d.platformRate}/s)` : ''}`);
    return { accepted: true, state: run.state, rate };
  });
}
