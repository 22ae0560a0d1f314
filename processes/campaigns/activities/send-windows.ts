// Quiet hours, applied in the store: which of a campaign's recipients are inside their send window now (by country),
// and when that changes next. The workflow sends the chunks that hold sendable rows and looks again at that time.
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { QuietHours, SendWindows } from '../contract.js';
import type { CampaignWindows } from '../../../store/index.js';
import { windowOf, zonesOf } from './quiet-hours.js';

export async function openSendWindows(
  windows: CampaignWindows,
  { campaignId, quietHours, chunkSize }: { campaignId: string; quietHours: QuietHours; chunkSize: number },
  now = new Date(),
): Promise<SendWindows> {
  await windows.fillCountries(campaignId, (n) => parsePhoneNumberFromString(n)?.country);
  const open: string[] = [];
  let next: Date | undefined;
  for (const country of await windows.countries(campaignId)) {
    const w = windowOf(zonesOf(country), quietHours, now);
    if (w.open) open.push(country);
    if (!next || w.changesAt < next) next = w.changesAt;
  }
  const { chunks, waiting } = await windows.apply(campaignId, open, chunkSize);
  return { chunks, waiting, ...(next ? { nextChangeAt: next.toISOString() } : {}) };
}
