// MMS sandbox area, media rules (docs/mms-wire.md "Media rules"): each media URL is fetched when the MMS is
// sent or saved; it must answer 200 (or one redirect, followed once) with Content-Length and Content-Type,
// else 400 E227 and nothing is accepted or saved. Each URL is fetched once a minute at most (reset forgets),
// and sendsavedmms does not fetch again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closedPort, startStub, type Stub } from '../../helpers/stub-server.js';
import { assertRefused, assertSuccess, mmsSuite, saveBody, sendBody, sendSavedBody } from '../../helpers/sandbox-mms.js';

const PNG = Buffer.from('89504e470d0a1a0a', 'hex');

/** A media host: answers by path and counts the requests to each. */
class MediaHost {
  hits: Record<string, number> = {};
  /** Paths answered 404 from now on. */
  gone = new Set<string>();
  base = '';
  private stub?: Stub;

  private answer(req: IncomingMessage, res: ServerResponse) {
    const path = req.url ?? '';
    this.hits[path] = (this.hits[path] ?? 0) + 1;
    if (this.gone.has(path)) return res.writeHead(404).end();
    switch (path) {
      case '/no-type.png':
        return res.writeHead(200, { 'content-length': PNG.length }).end(PNG);
      case '/no-location':
        return res.writeHead(302).end();
      case '/see-other':
        return res.writeHead(303, { location: '/ok.png' }).end();
      case '/temporary':
        return res.writeHead(307, { location: `${this.base}/ok.png` }).end();
      case '/error':
        return res.writeHead(500).end();
      default:
        return res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length }).end(PNG);
    }
  }

  async start(): Promise<void> {
    this.stub = await startStub((req, res) => this.answer(req, res));
    this.base = this.stub.url;
  }

  async stop(): Promise<void> {
    await this.stub?.close();
  }
}

describe('MMS sandbox: media the platform must fetch', () => {
  const { send, stats, control, media } = mmsSuite();
  const host = new MediaHost();
  before(() => host.start());
  after(() => host.stop());
  const withImage = (url: string, to = '15551230001') => sendBody(to, { slide: [{ 'message-text': 'Look', image: { url } }] });

  test("the sandbox's own media routes: a file, one redirect accepted; chunked, two redirects, 404 refused with E227", async () => {
    assertSuccess(await send(withImage(media('media/a.png'))), 'a file with Content-Length and Content-Type');
    assertSuccess(await send(withImage(media('media-redirect/1/b.png'))), 'one redirect is followed');
    const chunked = await send(withImage(media('media-chunked/c.png')));
    assertRefused(chunked, 400, 'E227', 'chunked');
    assert.match(chunked.body['error-info']!, /Content-Length/);
    const twice = await send(withImage(media('media-redirect/2/d.png')));
    assertRefused(twice, 400, 'E227', 'two redirects');
    assert.match(twice.body['error-info']!, /more than once/);
    assertRefused(await send(withImage(media('no-such-route/e.png'))), 400, 'E227', '404');
    const s = await stats();
    assert.deepEqual([s.accepted, s.requests], [2, 5]);
  });

  test('a file without Content-Type, a redirect without Location, a 500 or an unreachable host is E227; 303 and 307 redirects are followed', async () => {
    const port = await closedPort();
    const refused: [string, string][] = [
      ['no Content-Type', `${host.base}/no-type.png`],
      ['redirect without Location', `${host.base}/no-location`],
      ['500', `${host.base}/error`],
      ['connection refused', `http://127.0.0.1:${port}/a.png`],
    ];
    for (const [what, url] of refused) {
      const res = await send(withImage(url));
      assertRefused(res, 400, 'E227', what);
      assert.ok(res.body['error-info']!.includes(url), `${what}: error-info names the URL: ${res.body['error-info']}`);
    }
    assertSuccess(await send(withImage(`${host.base}/see-other`)), '303 with a relative Location');
    assertSuccess(await send(withImage(`${host.base}/temporary`)), '307');
    assert.equal((await stats()).accepted, 2);
  });

  test('one bad file among good ones refuses the whole MMS, on savemms too; nothing is accepted or saved', async () => {
    const good = { url: `${host.base}/good.png` };
    const slides = [
      { image: good, audio: good },
      { 'message-text': 'p2', pdf: { url: media('media-chunked/menu.pdf') } },
    ];
    assertRefused(await send(sendBody('15551230001', { slide: slides })), 400, 'E227', 'sendmms');
    assertRefused(await send(saveBody({ slide: slides })), 400, 'E227', 'savemms');
    const s = await stats();
    assert.deepEqual([s.accepted, s.saved, s.distinctRecipients], [0, 0, 0]);
  });

  test('each URL is fetched once within a minute; reset forgets; sendsavedmms does not fetch again', async () => {
    const path = `/cached-${Date.now()}.png`;
    const url = `${host.base}${path}`;
    assertSuccess(await send(withImage(url, '15551230001')));
    assertSuccess(await send(sendBody('15551230002', { slide: [{ image: { url } }, { video: { url } }] })));
    const mmsId = assertSuccess(await send(saveBody({ slide: [{ image: { url } }] })), 'savemms');
    assert.equal(host.hits[path], 1, 'one fetch for three uses');

    host.gone.add(path);
    assertSuccess(await send(sendSavedBody(mmsId, '15551230003')), 'sendsavedmms uses the saved MMS');
    assertSuccess(await send(withImage(url, '15551230004')), 'the cached verdict stands for a minute');
    assert.equal(host.hits[path], 1);

    assert.equal((await control('POST', '/reset')).status, 200);
    assertRefused(await send(withImage(url, '15551230005')), 400, 'E227', 'fetched again after reset: now 404');
    assert.equal(host.hits[path], 2);
  });
});
