// A batch send over the MMS area, message by message at the campaign's rate.
import { campaignKind } from '../campaign-kind.js';

export const mmsCampaign = campaignKind('mms');
