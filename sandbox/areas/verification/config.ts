// Per-sandbox verification settings: start from the sandbox options, changed by
// PUT /_sandbox/verification/config, back to the options on reset.
import type { VerificationOptions } from '../../core/options.js';
import { templateLanguage } from './language.js';
import type { CalloutStartDetails as CalloutPolling } from '../../../common/wire/verification.js';

/** The spec calls the SMS receipt SmsDeliveredEvent; the platform sends VerificationSmsDeliveredEvent (the default). */
export const SMS_DELIVERED_EVENT_NAMES = ['VerificationSmsDeliveredEvent', 'SmsDeliveredEvent'] as const;
type SmsDeliveredEventName = (typeof SMS_DELIVERED_EVENT_NAMES)[number];

export interface VerificationSettings {
  callbackUrl: string | undefined;
  /** Overrides every account's default language when set. */
  defaultLanguage: string | undefined;
  expiryMs: number;
  carrierLanguageOverrides: Record<string, string>;
  undeliverableNumbers: ReadonlySet<string>;
  unreachableNumbers: ReadonlySet<string>;
  callout: CalloutPolling;
  requestEventTimeoutMs: number;
  smsDeliveryDelayMs: number;
  smsDeliveredEventName: SmsDeliveredEventName;
  /** false: the application has no WhatsApp verification (an older account), and a whatsapp start is refused. */
  whatsappEnabled: boolean;
}

export interface SettingsPatch {
  callbackUrl?: string | null;
  defaultLanguage?: string;
  expiryMs?: number;
  carrierLanguageOverrides?: Record<string, string>;
  undeliverableNumbers?: string[];
  unreachableNumbers?: string[];
  callout?: CalloutPolling;
  smsDeliveredEventName?: SmsDeliveredEventName;
  whatsappEnabled?: boolean;
}

/** The first problem with a patch (field and description), so the control route can answer 400. */
export function patchProblem(p: SettingsPatch): { field: string; description: string } | undefined {
  if (p.callbackUrl != null && !/^https?:\/\/[^/]/.test(p.callbackUrl)) {
    return { field: 'callbackUrl', description: 'must be an http(s) URL' };
  }
  if (p.defaultLanguage !== undefined && !templateLanguage(p.defaultLanguage)) {
    return { field: 'defaultLanguage', description: 'has no template in the sandbox' };
  }
  for (const [prefix, tag] of Object.entries(p.carrierLanguageOverrides ?? {})) {
    if (!templateLanguage(tag)) return { field: `carrierLanguageOverrides.${prefix}`, description: 'has no template in the sandbox' };
  }
  return undefined;
}

function fromOptions(o: VerificationOptions): VerificationSettings {
  return {
    callbackUrl: o.callbackUrl,
    defaultLanguage: undefined,
    expiryMs: o.expiryMs,
    carrierLanguageOverrides: { ...o.carrierLanguageOverrides },
    undeliverableNumbers: new Set(o.undeliverableNumbers),
    unreachableNumbers: new Set(o.unreachableNumbers),
    callout: { ...o.callout },
    requestEventTimeoutMs: o.requestEventTimeoutMs,
    smsDeliveryDelayMs: o.smsDeliveryDelayMs,
    smsDeliveredEventName: SMS_DELIVERED_EVENT_NAMES[0],
    whatsappEnabled: true,
  };
}

export class VerificationConfig {
  private settings: VerificationSettings;

  constructor(private readonly options: VerificationOptions) {
    const problem = patchProblem({ carrierLanguageOverrides: options.carrierLanguageOverrides });
    if (problem) throw new Error(`sandbox option carrierLanguageOverrides: ${problem.field} ${problem.description}`);
    this.settings = fromOptions(options);
  }

  get current(): Readonly<VerificationSettings> {
    return this.settings;
  }

  /** Callers check patchProblem first. */
  update(p: SettingsPatch): void {
    const s = this.settings;
    if (p.callbackUrl !== undefined) s.callbackUrl = p.callbackUrl ?? undefined;
    if (p.defaultLanguage !== undefined) s.defaultLanguage = templateLanguage(p.defaultLanguage);
    if (p.expiryMs !== undefined) s.expiryMs = p.expiryMs;
    if (p.carrierLanguageOverrides !== undefined) s.carrierLanguageOverrides = { ...p.carrierLanguageOverrides };
    if (p.undeliverableNumbers !== undefined) s.undeliverableNumbers = new Set(p.undeliverableNumbers);
    if (p.unreachableNumbers !== undefined) s.unreachableNumbers = new Set(p.unreachableNumbers);
    if (p.callout !== undefined) s.callout = { ...p.callout };
    if (p.smsDeliveredEventName !== undefined) s.smsDeliveredEventName = p.smsDeliveredEventName;
    if (p.whatsappEnabled !== undefined) s.whatsappEnabled = p.whatsappEnabled;
  }

  reset(): void {
    this.settings = fromOptions(this.options);
  }

  /**
   * What a restart keeps: the dashboard's settings (callback URL, default language). The rest are the run's test
   * knobs and come from the options again.
   */
  save(): { callbackUrl: string | null; defaultLanguage: string | null } {
    return { callbackUrl: this.settings.callbackUrl ?? null, defaultLanguage: this.settings.defaultLanguage ?? null };
  }

  load(saved: { callbackUrl: string | null; defaultLanguage: string | null }): void {
    this.settings.callbackUrl = saved.callbackUrl ?? undefined;
    this.settings.defaultLanguage = saved.defaultLanguage ?? undefined;
  }

  view(): Record<string, unknown> {
    const s = this.settings;
    return {
      callbackUrl: s.callbackUrl ?? null,
      defaultLanguage: s.defaultLanguage ?? null,
      expiryMs: s.expiryMs,
      carrierLanguageOverrides: s.carrierLanguageOverrides,
      undeliverableNumbers: [...s.undeliverableNumbers],
      unreachableNumbers: [...s.unreachableNumbers],
      callout: s.callout,
      requestEventTimeoutMs: s.requestEventTimeoutMs,
      smsDeliveryDelayMs: s.smsDeliveryDelayMs,
      smsDeliveredEventName: s.smsDeliveredEventName,
      whatsappEnabled: s.whatsappEnabled,
    };
  }
}
