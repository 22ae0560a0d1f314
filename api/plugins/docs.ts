// OpenAPI document built from the route schemas, with its UI at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export async function registerDocs(app: FastifyInstance): Promise<void> {
  // The docs routes are public: they describe the API, they do not operate it.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config as object), auth: 'public' };
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'relayflow', version: '0.1.0', description: 'Durable processes for the messaging and telephony platform.' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key from RELAYFLOW_API_KEYS' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
}
