// A batch send over the conversation area, message by message at the campaign's rate.
import { campaignKind } from '../campaign-kind.js';

export const conversationCampaign = campaignKind('conversation');
