// What a verification process shows as its status's details (the view the status query returns).
import type { StepStartInfo, VerificationInput } from '../../contract.js';

export interface VerificationDetails {
  identity: string;
  reference?: string;
  /** The caller's own `custom`: kept here, never sent to the platform (its `custom` carries the routing token). */
  custom?: string;
  steps: { method: string; timeoutMs: number }[];
  currentStep: number;
  current?: StepStartInfo;
  attempts: number;
  resends: number;
  smsDelivery?: string;
  /** Platform verifications of this process, newest last. */
  platformVerifications: { verificationId: string; token: string; step: number; method: string; status: string; reason?: string; language?: string }[];
}

export const initialDetails = (input: VerificationInput): VerificationDetails => ({
  identity: input.identity,
  ...(input.reference ? { reference: input.reference } : {}),
  ...(input.custom ? { custom: input.custom } : {}),
  steps: input.steps,
  currentStep: 0,
  attempts: 0,
  resends: 0,
  platformVerifications: [],
});
