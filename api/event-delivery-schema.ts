// What an event subscription's URL receives (workers/events/post.ts builds it), as the OpenAPI document's
// `webhooks.processEvent`: the typed client and any integrator read the body's shape from the document.
import Type from 'typebox';

export const ProcessEventDelivery = Type.Object(
  {
    type: Type.Enum(['process.started', 'process.state_changed'], { description: "process.started for a process's first event (no previousState)" }),
    timestamp: Type.String({ format: 'date-time', description: 'When the change happened (the same as data.at)' }),
    data: Type.Object({
      eventId: Type.String({ description: 'The event ID, also the webhook-id header: the same on every retry and replay' }),
      processId: Type.String(),
      kind: Type.String({ description: 'The process kind' }),
      state: Type.String({ description: 'The state the process is in now, as listings show it' }),
      previousState: Type.Optional(Type.String()),
      reason: Type.Optional(Type.String({ description: 'Why it moved, phone numbers masked' })),
      at: Type.String({ format: 'date-time' }),
      businessKey: Type.String({ description: 'The process ID without its kind' }),
      tenant: Type.Optional(
        Type.String({ description: "The process's customer (its API key's tenant, or its parent's); absent for a process of no customer" }),
      ),
    }),
  },
  { description: 'Signed per Standard Webhooks: webhook-id, webhook-timestamp and webhook-signature headers over the raw body' },
);

/** The document's `webhooks` section (OpenAPI 3.1). */
export const EVENT_WEBHOOKS = {
  processEvent: {
    post: {
      summary: "A process's start or state change, POSTed to every subscription that wants it (docs/events.md)",
      operationId: 'receiveProcessEvent',
      tags: ['events'],
      parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({
        name,
        in: 'header' as const,
        required: true,
        schema: { type: 'string' as const },
      })),
      requestBody: { required: true, content: { 'application/json': { schema: ProcessEventDelivery } } },
      responses: { '2XX': { description: 'Taken: any 2xx within RELAYFLOW_EVENTS_TIMEOUT_MS; anything else is retried' } },
    },
  },
};
