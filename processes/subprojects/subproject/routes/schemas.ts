// The subproject start request (also the onboarding's subproject, by its displayName).
import Type from 'typebox';

export const StartSubproject = Type.Object(
  {
    parentProjectId: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$', description: 'Defaults to the configured project (PLATFORM_PROJECT_ID)' }),
    ),
    displayName: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[^\\u0000-\\u001f]+$',
      description: 'Unique per parent: starting twice with the same name returns the same process',
    }),
  },
  { additionalProperties: false },
);
