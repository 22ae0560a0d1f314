// A customer onboarding: the other processes run as its steps, in dependency order.
import type { OnboardingState } from './contract.js';
import { defineKind, everyState } from '../../descriptor.js';

export const onboarding = defineKind<OnboardingState>()({
  kind: 'onboarding',
  family: 'onboarding',
  workflowType: 'onboarding',
  /** Keyed by the caller's onboarding key (CAMPAIGN_KEY_PATTERN). */
  id: (projectId: string, key: string) => `onboarding:${projectId}:${key}`,
  states: {
    all: everyState<OnboardingState>()(['RUNNING', 'WAITING_FOR_CALLER', 'COMPLETED', 'CANCELLING', 'CANCELLED']),
    initial: 'RUNNING',
    final: ['COMPLETED', 'CANCELLED'],
    succeeded: ['COMPLETED'],
    // A step failed or needs an input: the caller retries, skips or adds steps.
    waiting: ['WAITING_FOR_CALLER'],
  },
  signals: ['childState'],
  updates: ['retryStep', 'skipStep', 'cancelOnboarding', 'addSteps'],
  collection: { path: '/v1/onboardings', tag: 'onboardings' },
});
