// One test per class of finding schemathesis made over /docs/json (npm run fuzz): undeclared methods, page
// tokens, the document's security and statuses, parameters the router refused before validation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Type from 'typebox';
import { ApiError } from '../../api/errors.js';
import { validatorCompiler } from '../../api/plugins/validation.js';
import { PageTokens, pageTokenKey, ProcessService } from '../../api/processes/find.js';
import { PhoneNumber, PROCESS_ID_MAX_LENGTH } from '../../api/schemas.js';
import { startHarness, TEST_API_KEY, uniqueName, type Harness } from '../helpers/harness.js';

type Operation = { security?: unknown[]; responses: Record<string, unknown>; parameters?: { name: string; in: string; required?: boolean }[] };
type Doc = { paths: Record<string, Record<string, Operation>> };

describe('fuzz findings', () => {
  let h: Harness;
  let doc: Doc;
  before(async () => {
    h = await startHarness();
    doc = (await h.app.inject({ method: 'GET', url: '/docs/json' })).json();
  });
  after(async () => h.close());

  const field = (res: { json(): { error: { details?: { field: string; rule: string }[] } } }) => res.json().error.details?.map((d) => d.field);

  describe('a method a known path does not have is a 405 with Allow', () => {
    for (const [method, url, allow] of [
      ['DELETE', '/v1/processes', 'GET, HEAD, OPTIONS'],
      ['TRACE', '/v1/subprojects', 'GET, HEAD, OPTIONS, POST'],
      ['PUT', `/v1/processes/${encodeURIComponent('subproject:p:n')}`, 'GET, HEAD, OPTIONS'],
      ['PATCH', '/healthz', 'GET, HEAD, OPTIONS'],
      // Fastify wants a Content-Type on QUERY before routing; it got a 400 for it.
      ['QUERY', '/v1/processes', 'GET, HEAD, OPTIONS'],
    ] as const) {
      test(`${method} ${url}`, async () => {
        const res = await h.api({ method: method as 'GET', url });
        assert.equal(res.statusCode, 405, res.body);
        assert.equal(res.headers.allow, allow);
        assert.equal(res.json().error.code, 'method_not_allowed');
        assert.ok(res.json().requestId);
      });
    }

    test('without an API key too: nothing is operated, and the document is public anyway', async () => {
      const res = await h.app.inject({ method: 'DELETE', url: '/v1/processes' });
      assert.equal(res.statusCode, 405);
      assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS');
    });

    test('OPTIONS on a known path answers Allow; an unknown path is still a 404', async () => {
      const options = await h.app.inject({ method: 'OPTIONS', url: '/v1/subprojects' });
      assert.equal(options.statusCode, 204);
      assert.equal(options.headers.allow, 'GET, HEAD, OPTIONS, POST');
      const unknown = await h.api({ method: 'DELETE', url: '/v1/nothing-here' });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.headers.allow, undefined);
      const routes = await h.api({ method: 'GET', url: '/v1/processes' });
      assert.equal(routes.statusCode, 200, 'declared methods are unaffected');
    });
  });

  describe('a page token the API did not give out is a 400 naming query.pageToken, answered at once', () => {
    // Each was sent to Temporal, which retried for ~20 s and then answered 500.
    for (const [what, token] of [
      ['a word', 'garbage'],
      ['characters outside base64url', 'a+b/c=='],
      ['a long one', 'A'.repeat(300)],
      ['too short to be one', 'AB'],
    ] as const) {
      for (const path of ['/v1/processes', '/v1/subprojects']) {
        test(`${what} on ${path}`, async () => {
          const t0 = Date.now();
          const res = await h.api({ method: 'GET', url: `${path}?pageToken=${encodeURIComponent(token)}` });
          assert.equal(res.statusCode, 400, res.body);
          assert.deepEqual(field(res), ['query.pageToken']);
          assert.match(res.json().error.message, /query\.pageToken/);
          // At once, not after Temporal's ~20 s of retries; 3 s leaves room for a loaded machine.
          assert.ok(Date.now() - t0 < 3_000, `answered in ${Date.now() - t0} ms`);
        });
      }
    }

    test('pages still follow one another, and an altered token is refused', async () => {
      for (let i = 0; i < 2; i++) {
        const res = await h.api({ method: 'POST', url: '/v1/subprojects', payload: { displayName: uniqueName('paged') } });
        assert.ok([200, 202].includes(res.statusCode), res.body);
      }
      let first: { processes: unknown[]; nextPageToken: string } = { processes: [], nextPageToken: '' };
      for (let i = 0; i < 50 && !first.nextPageToken; i++) {
        first = (await h.api({ method: 'GET', url: '/v1/subprojects?pageSize=1' })).json();
        if (!first.nextPageToken) await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(first.nextPageToken, 'two subprojects make two pages');
      const second = await h.api({ method: 'GET', url: `/v1/subprojects?pageSize=1&pageToken=${first.nextPageToken}` });
      assert.equal(second.statusCode, 200, second.body);
      assert.equal(second.json().processes.length, 1);
      const bytes = Buffer.from(first.nextPageToken, 'base64url');
      bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
      const altered = await h.api({ method: 'GET', url: `/v1/subprojects?pageSize=1&pageToken=${bytes.toString('base64url')}` });
      assert.equal(altered.statusCode, 400);
      assert.deepEqual(field(altered), ['query.pageToken']);
    });

    test('a token of ours that Temporal cannot read is a 400 too, within the list deadline', async () => {
      const key = pageTokenKey(h.config.codecKeys);
      const processes = new ProcessService(h.client, { pageTokenKey: key, listTimeoutMs: 1_000 });
      const t0 = Date.now();
      await assert.rejects(processes.list({ pageToken: new PageTokens(key).encode(Buffer.from('not a Temporal token')) }), (err: ApiError) => {
        assert.equal(err.statusCode, 400);
        assert.equal(err.details?.[0]?.field, 'query.pageToken');
        return true;
      });
      assert.ok(Date.now() - t0 < 4_000, `answered in ${Date.now() - t0} ms`);
    });

    test('the document says a page token is one given out, and pageSize is optional', () => {
      const params = doc.paths['/v1/processes']!.get!.parameters!;
      const pageSize = params.find((p) => p.name === 'pageSize')!;
      assert.notEqual(pageSize.required, true, 'a list without pageSize is valid: the default applies');
      const pageToken = params.find((p) => p.name === 'pageToken') as unknown as { schema: { format?: string } };
      assert.equal(pageToken.schema.format, 'page-token');
    });
  });

  test('health routes are public in the document; every other operation keeps the API-key security', () => {
    assert.deepEqual(doc.paths['/healthz']!.get!.security, []);
    assert.deepEqual(doc.paths['/readyz']!.get!.security, []);
    assert.equal(doc.paths['/v1/processes']!.get!.security, undefined, 'inherits the document-wide API-key schemes');
    assert.equal(doc.paths['/codec/decode']!.post!.security, undefined);
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (op.security?.length === 0) assert.ok(['/healthz', '/readyz'].includes(path), `${method} ${path} is public`);
        else assert.ok(op.responses['401'], `${method.toUpperCase()} ${path} declares 401`);
      }
    }
  });

  test('every status the framework answers is declared: 400 for parameters and bodies, 413 and 415 for bodies', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const takesBody = !!(op as { requestBody?: unknown }).requestBody;
        if (takesBody || op.parameters?.length) assert.ok(op.responses['400'], `${method.toUpperCase()} ${path} declares 400`);
        if (takesBody) for (const s of ['413', '415']) assert.ok(op.responses[s], `${method.toUpperCase()} ${path} declares ${s}`);
      }
    }
    assert.ok(doc.paths['/codec/encode']!.post!.responses['422'], 'codec_failed is declared');
  });

  test('the codec routes answer a missing or wrong body with a declared 400 or 415', async () => {
    const none = await h.api({ method: 'POST', url: '/codec/encode' });
    assert.equal(none.statusCode, 400, none.body);
    assert.ok(doc.paths['/codec/encode']!.post!.responses['400']);
    const xml = await h.api({ method: 'POST', url: '/codec/decode', payload: '<payloads/>', headers: { 'content-type': 'application/xml' } });
    assert.equal(xml.statusCode, 415);
    assert.equal(xml.json().error.code, 'unsupported_media_type');
  });

  describe("a long parameter is a 400 naming it, not the router's 414", () => {
    test("over the schema's maxLength", async () => {
      const res = await h.api({ method: 'GET', url: `/v1/processes/${'a'.repeat(1500)}` });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json().error.details, [
        { field: 'path.processId', rule: 'maxLength', message: `must NOT have more than ${PROCESS_ID_MAX_LENGTH} characters` },
      ]);
    });

    test('within maxLength but long once URL-encoded', async () => {
      const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent('é'.repeat(300))}` });
      assert.equal(res.statusCode, 404, res.body);
    });

    test("a request line over Node's 16 KiB is a 400 with the error body, not a bare 431", async () => {
      const res = await fetch(`${h.apiUrl}/v1/processes?${'state=AAAAAAAAAA&'.repeat(2000)}`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } });
      assert.equal(res.status, 400);
      const body = (await res.json()) as { error: { code: string }; requestId: string };
      assert.equal(body.error.code, 'request_too_large');
      assert.ok(body.requestId);
    });
  });

  test('a phone number must exist, not just look like one (format e164), with a message naming it', () => {
    const validate = validatorCompiler({ schema: Type.Object({ identity: PhoneNumber() }), httpPart: 'body', method: 'POST', url: '/x' }) as ((
      v: unknown,
    ) => boolean) & { errors?: unknown[] };
    assert.equal(validate({ identity: '+46701234567' }), true);
    assert.equal(validate({ identity: '+1000000' }), false, 'the shape of E.164, but no such number');
    assert.equal(validate({ identity: '0701234567' }), false, 'not international');
  });
});
