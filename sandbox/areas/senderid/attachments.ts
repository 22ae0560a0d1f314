// Attachment upload (docs/senderid-wire.md "Attachments"): JSON with the file in base64, checked
// against the definition's MIME types and size before anything is stored; WAITING, then final.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { policyById } from './catalogue.js';
import { PROJECT, projectGuard, type ProjectParams } from '../../core/guards.js';
import { type SenderIdDeps } from './context.js';
import { FINAL_STATES, platformTime } from './model.js';
import type { Attachment } from '../../../common/wire/senderid.js';
import { bodyObject, conflict, notFound, optionalString, unknownKeys, violations } from './validate.js';

type Params = ProjectParams & { registrationId: string; attachmentId: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function attachmentRoutes(deps: SenderIdDeps) {
  const { store, reviewer } = deps;
  return async (app: FastifyInstance) => {
    app.post<{ Params: Params }>(
      `${PROJECT}/registrations/:registrationId/attachments/:attachmentId`,
      { preValidation: projectGuard(deps.ctx) },
      async (request) => {
        const { projectId, registrationId, attachmentId } = request.params;
        const r = store.get(projectId, registrationId);
        if (!r) throw notFound('Registration', registrationId);
        const def = policyById(r.policyId)?.attachmentDefinitions.find((d) => d.id === attachmentId);
        if (!def) throw notFound(`Attachment definition of policy ${r.policyId}`, attachmentId);

        const body = bodyObject(request.body);
        const v = violations();
        unknownKeys(v, body, ['fileName', 'mimeType', 'content', 'documentType']);
        const fileName = optionalString(v, body, 'fileName', { max: 255 });
        if (body.fileName === undefined) v.add('file.fileName', 'fileName is required', 'required');
        const documentType = optionalString(v, body, 'documentType', { max: 100 });
        const mimeType = body.mimeType;
        if (typeof mimeType !== 'string' || mimeType === '') v.add('file.mimeType', 'mimeType is required', 'required');
        else if (!def.acceptedMimeTypes.includes(mimeType)) v.add('file.mimeType', `mimeType must be one of ${def.acceptedMimeTypes.join(', ')}`, 'mimeType');
        const content = body.content;
        if (typeof content !== 'string' || content === '') v.add('file.content', 'content (the file in base64) is required', 'required');
        else if (!BASE64.test(content)) v.add('file.content', 'content must be base64', 'type');
        else {
          const size = Buffer.from(content, 'base64').length;
          if (size === 0) v.add('file.content', 'the file is empty', 'required');
          else if (size > def.maxSizeBytes) v.add('file.content', `the file has ${size} bytes; at most ${def.maxSizeBytes} are accepted`, 'maxSize');
        }
        v.check('Attachment validation error');
        if (FINAL_STATES.includes(r.status)) throw conflict(`Registration ${r.id} is ${r.status}; attachments can no longer be added`);

        const now = platformTime();
        const a: Attachment = {
          attachmentId: randomUUID(),
          attachmentDefinitionId: def.id,
          fileName: fileName!,
          mimeType: mimeType as string,
          documentType: documentType ?? def.title,
          uploadStatus: 'WAITING',
          createTime: now,
          updateTime: now,
        };
        r.attachments = [...r.attachments.filter((x) => x.attachmentDefinitionId !== def.id), a];
        r.updateTime = now;
        reviewer.uploaded(r, a);
        return a;
      },
    );
  };
}
