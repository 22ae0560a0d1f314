// Request schemas of the onboarding routes, composed from each process's own start schema (plus `step`, and a
// template's `sender`) so a plan item is exactly what that process's route takes. Spread properties rather
// than Intersect/Evaluate: those drop additionalProperties: false, and an unknown field must stay a 400.
import Type from 'typebox';
import { CAMPAIGN_KEY_PATTERN } from '../../../../contracts/ids.js';
import { STEP_NAME_PATTERN } from '../contract.js';
import { PROVISIONING_TRIGGERS } from '../../../../platform/provisioning/types.js';
import { Relaunch, Resubmit, StartBundle, StartChataSender, StartChatbSender, StartRcsSender, StartTemplate } from '../../../provisioning/routes/schemas.js';
import { StartRegistration } from '../../../senderid/senderid-registration/routes/schemas.js';
import { StartSubproject } from '../../../subprojects/subproject/routes/schemas.js';

const MAX_ITEMS = 50;

export const StepName = (description = "The step's name in the plan (1..64 of A-Za-z0-9._-); subproject, bundle and webhook are the singletons'") =>
  Type.String({ pattern: STEP_NAME_PATTERN.source, maxLength: 64, description });

const RcsSenderStep = Type.Object({ step: StepName(), ...StartRcsSender.properties }, { additionalProperties: false });
const ChataSenderStep = Type.Object({ step: StepName(), ...StartChataSender.properties }, { additionalProperties: false });
const ChatbSenderStep = Type.Object({ step: StepName(), ...StartChatbSender.properties }, { additionalProperties: false });
const TemplateStep = Type.Object(
  {
    step: StepName(),
    sender: StepName("The step of the CHATA or CHATB sender the template is for (in this plan, or already in the onboarding): its channel is the template's"),
    ...StartTemplate.properties,
  },
  { additionalProperties: false },
);
const SenderIdStep = Type.Object({ step: StepName(), ...StartRegistration.properties }, { additionalProperties: false });

const items = <T extends Parameters<typeof Type.Array>[0]>(item: T) => Type.Optional(Type.Array(item, { maxItems: MAX_ITEMS }));

/** The steps a plan lists by kind; also the body that adds steps to a running onboarding. */
const stepItems = {
  rcsSenders: items(RcsSenderStep),
  chataSenders: items(ChataSenderStep),
  chatbSenders: items(ChatbSenderStep),
  templates: items(TemplateStep),
  senderIds: items(SenderIdStep),
};

const Webhook = Type.Object(
  {
    target: Type.String({
      format: 'uri',
      pattern: '^https?://',
      maxLength: 2000,
      description: 'Where the platform delivers the provisioning events (http or https)',
    }),
    secret: Type.String({ minLength: 8, maxLength: 256, description: 'The HMAC key of the deliveries' }),
    triggers: Type.Optional(
      Type.Array(Type.Enum([...PROVISIONING_TRIGGERS]), { minItems: 1, uniqueItems: true, description: 'Every provisioning trigger when absent' }),
    ),
  },
  { additionalProperties: false },
);

export const StartOnboarding = Type.Object(
  {
    key: Type.String({
      pattern: CAMPAIGN_KEY_PATTERN.source,
      description: 'Your key for the onboarding (1..64 of A-Za-z0-9._-): the same key and plan answer the same process; another plan under it is a 409',
    }),
    subproject: Type.Optional(
      Type.Pick(StartSubproject, ['displayName'], { additionalProperties: false, description: 'A subproject of the project; the bundle goes in it' }),
    ),
    bundle: Type.Optional(
      Type.Omit(StartBundle, ['key', 'subprojectId'], {
        additionalProperties: false,
        description: "The bundle, keyed by the onboarding's key; in the plan's subproject when there is one",
      }),
    ),
    webhook: Type.Optional(Webhook),
    ...stepItems,
  },
  { additionalProperties: false },
);

export const AddSteps = Type.Object(stepItems, { additionalProperties: false });

export const RetryBody = Type.Object(
  {
    /** A REJECTED template step: edited and resubmitted with these. */
    resubmit: Type.Optional(Resubmit),
    /** A REJECTED or PARTIALLY_LAUNCHED RCS sender step: relaunched with these. */
    relaunch: Type.Optional(Relaunch),
  },
  { additionalProperties: false },
);
