// Reading provisioning error answers. errors.ts already turns `{errorCode, message, resolution,
// additionalInformation?, validationErrors?}` into a PlatformError with `code` = errorCode and
// `details` = {resolution?, additionalInformation?, validationErrors?}; these helpers give that a type.
import { PlatformError } from '../errors.js';

/** The error codes the provisioning contract names. */
export const PROVISIONING_ERROR_CODES = {
  invalidInput: 'invalid_input',
  notFound: 'not_found',
  conflict: 'conflict',
  rateLimited: 'rate_limited',
  internal: 'internal',
  unavailable: 'unavailable',
  addTestNumberNotAllowedBeforeLaunch: 'add_test_number_not_allowed_before_launch',
  templateNotUpdatable: 'template_not_updatable',
  questionnaireIncomplete: 'questionnaire_incomplete',
  fileHasWrongDimensions: 'file_has_wrong_dimensions',
  wrongOtp: 'wrong_otp',
} as const;

export type ProvisioningErrorCode = (typeof PROVISIONING_ERROR_CODES)[keyof typeof PROVISIONING_ERROR_CODES];

/** One broken field of an `invalid_input` answer (enum errors list the valid values in `description`). */
interface ProvisioningFieldError {
  field: string;
  description: string;
}

/** `PlatformError.details` of a provisioning answer. */
export interface ProvisioningErrorDetails {
  resolution?: string;
  /** e.g. `{requiredWidth: 1440, requiredHeight: 448}` for file_has_wrong_dimensions. */
  additionalInformation?: Record<string, unknown>;
  validationErrors?: ProvisioningFieldError[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The typed details of a provisioning PlatformError; `{}` for anything else. */
export function provisioningErrorDetails(err: unknown): ProvisioningErrorDetails {
  if (!(err instanceof PlatformError) || err.area !== 'provisioning' || !isObj(err.details)) return {};
  const d = err.details;
  const out: ProvisioningErrorDetails = {};
  if (typeof d.resolution === 'string') out.resolution = d.resolution;
  if (isObj(d.additionalInformation)) out.additionalInformation = d.additionalInformation;
  if (Array.isArray(d.validationErrors)) {
    out.validationErrors = d.validationErrors.filter(isObj).map((e) => ({ field: String(e.field ?? ''), description: String(e.description ?? '') }));
  }
  return out;
}

/** True for a provisioning PlatformError with this errorCode. */
export function isProvisioningError(err: unknown, code: ProvisioningErrorCode | (string & {})): err is PlatformError {
  return err instanceof PlatformError && err.area === 'provisioning' && err.code === code;
}
