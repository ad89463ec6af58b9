import { describe, expect, it } from 'vitest';
import { createTestUser, eventsOf, signedInClient } from '../testing/fapi-helpers';
import { expectError } from '../testing/expect';
import { sharedHarness, sharedInstance } from '../testing/harness';

const h = sharedHarness();
const A = sharedInstance(h);
const B = sharedInstance(h);

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]);

let n = 0;
const signedInUser = async () => {
  const userId = await createTestUser(h, A, { email_address: [`avatar${++n}@example.com`] });
  return { userId, ...(await signedInClient(h, A, userId)) };
};

/** A multipart/form-data body with a `file` part, as a browser's FormData sends it. */
async function multipart(file: Blob) {
  const form = new FormData();
  form.append('file', file, 'avatar');
  const req = new Request('http://localhost/', { method: 'POST', body: form });
  return { raw: new Uint8Array(await req.arrayBuffer()), type: req.headers.get('content-type')! };
}

describe('profile images', () => {
  it('the signed-in user uploads one (JSON), it is served with immutable caching, and removes it', async () => {
    const { userId, b } = await signedInUser();
    const set = await b.call('POST', '/v1/me/profile_image', { body: { content_type: 'image/png', data: PNG.toString('base64') } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ id: userId, has_image: true });
    expect(set.body.private_metadata).toBeUndefined();
    const url = new URL(set.body.image_url);
    expect(url.pathname).toMatch(new RegExp(`^/fapi/${A.instanceId}/v1/users/${userId}/profile_image/[0-9a-f]{16}$`));
    expect((await h.call('GET', `/v1/users/${userId}`, { key: A.secret })).body).toMatchObject({
      has_image: true,
      image_url: set.body.image_url,
    });
    const updated = (await eventsOf(h, A.instanceId, 'user.updated')).filter((e) => e.data.id === userId);
    expect(updated.some((e) => e.data.has_image === true)).toBe(true);

    const image = await h.request('GET', url.pathname);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await h.request('GET', url.pathname, { headers: { 'if-none-match': image.headers.get('etag')! } })).status).toBe(304);
    expect((await h.request('GET', url.pathname.replace(/[0-9a-f]{16}$/, '0000000000000000'))).status).toBe(404);
    // Another instance's FAPI does not serve it.
    expect((await h.request('GET', url.pathname.replace(A.instanceId, B.instanceId))).status).toBe(404);

    const removed = await b.call('DELETE', '/v1/me/profile_image');
    expect(removed.body).toMatchObject({ has_image: false, image_url: '' });
    expect((await h.request('GET', url.pathname)).status).toBe(404);
    expect((await b.call('DELETE', '/v1/me/profile_image')).status).toBe(404);
  });

  it('takes a multipart upload, the type read from the bytes when the part has none', async () => {
    const { b } = await signedInUser();
    const typed = await multipart(new Blob([JPEG], { type: 'image/jpeg' }));
    const jpeg = await b.call('POST', '/v1/me/profile_image', { raw: typed.raw, headers: { 'content-type': typed.type } });
    expect(jpeg.status, JSON.stringify(jpeg.body)).toBe(200);
    expect((await h.request('GET', new URL(jpeg.body.image_url).pathname)).headers.get('content-type')).toBe('image/jpeg');
    const untyped = await multipart(new Blob([PNG]));
    const png = await b.call('POST', '/v1/me/profile_image', { raw: untyped.raw, headers: { 'content-type': untyped.type } });
    expect(png.status).toBe(200);
    expect(png.body.image_url).not.toBe(jpeg.body.image_url);
    expect((await h.request('GET', new URL(png.body.image_url).pathname)).headers.get('content-type')).toBe('image/png');
  });

  it('refuses what is not the image it claims, too big, or from another site', async () => {
    const { b } = await signedInUser();
    expectError(
      await b.call('POST', '/v1/me/profile_image', { body: { content_type: 'image/png', data: JPEG.toString('base64') } }),
      422,
      'VALIDATION_FAILED',
      { reason: 'type_mismatch' },
    );
    const html = await multipart(new Blob(['<html><script>alert(1)</script></html>'], { type: 'image/png' }));
    expectError(
      await b.call('POST', '/v1/me/profile_image', { raw: html.raw, headers: { 'content-type': html.type } }),
      422,
      'VALIDATION_FAILED',
      { reason: 'type_mismatch' },
    );
    expectError(await b.call('POST', '/v1/me/profile_image', { body: { data: '' } }), 422, 'VALIDATION_FAILED');
    const big = Buffer.concat([PNG, Buffer.alloc(600 * 1024)]).toString('base64');
    expect((await b.call('POST', '/v1/me/profile_image', { body: { data: big } })).status).toBeGreaterThanOrEqual(413);
    const cross = await b.call('POST', '/v1/me/profile_image', { body: { data: PNG.toString('base64') }, origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
  });

  it('the BAPI sets and removes a user’s image; another instance’s key cannot', async () => {
    const userId = await createTestUser(h, A, { email_address: [`avatar${++n}@example.com`] });
    const set = await h.call('POST', `/v1/users/${userId}/profile_image`, { key: A.secret, body: { data: PNG.toString('base64') } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.has_image).toBe(true);
    expect(
      (await h.call('POST', `/v1/users/${userId}/profile_image`, { key: B.secret, body: { data: PNG.toString('base64') } })).status,
    ).toBe(404);
    expect((await h.call('DELETE', `/v1/users/${userId}/profile_image`, { key: A.secret })).body).toMatchObject({
      has_image: false,
      image_url: '',
    });
  });
});
