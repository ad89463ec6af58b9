import { expect } from 'vitest';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Res = { status: number; headers: Headers; body: any };

/** The one error shape: {errors:[{code,message,meta}], trace_id}, JSON, never a 500. */
export function expectError(res: Res, status: number, code: string, meta?: Record<string, unknown>) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.status).not.toBe(500);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(['errors', 'trace_id']);
  expect(res.body.trace_id).toEqual(expect.any(String));
  expect(res.body.trace_id.length).toBeGreaterThan(0);
  expect(res.headers.get('x-request-id')).toBe(res.body.trace_id);
  expect(Array.isArray(res.body.errors)).toBe(true);
  expect(res.body.errors.length).toBeGreaterThan(0);
  for (const e of res.body.errors) {
    expect(typeof e.code).toBe('string');
    expect(typeof e.message).toBe('string');
    expect(e.meta).toEqual(expect.any(Object));
    expect(Array.isArray(e.meta)).toBe(false);
    expect(JSON.stringify(e)).not.toMatch(/\bat .*\.ts:\d+|stack/i);
  }
  expect(res.body.errors[0].code).toBe(code);
  if (meta) expect(res.body.errors[0].meta).toMatchObject(meta);
  return res.body.errors[0] as { code: string; message: string; meta: Record<string, unknown> };
}
