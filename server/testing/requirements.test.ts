import { afterEach, describe, expect, it, vi } from 'vitest';
import { processDatabase } from './processes';
import { required } from './requirements';

/** Nothing listens on port 1: a PostgreSQL server that is not there. */
const NO_POSTGRES = 'postgres://postgres@127.0.0.1:1/test';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('a test that needs something missing', () => {
  it('is skipped with a line on stderr outside CI', async () => {
    vi.stubEnv('CI', '');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(required('Chromium at /nowhere/chromium', false, 'the Chromium tests')).toBe(false);
    expect(String(stderr.mock.calls[0]?.[0])).toBe('the Chromium tests skipped: Chromium at /nowhere/chromium is missing\n');

    vi.stubEnv('DATABASE_URL', NO_POSTGRES);
    expect((await processDatabase('requirements')).available).toBe(false);
  });

  it('fails under CI=true instead of passing quietly', async () => {
    vi.stubEnv('CI', 'true');
    expect(() => required('Chromium at /nowhere/chromium', false, 'the Chromium tests')).toThrow(
      'CI=true: Chromium at /nowhere/chromium is missing, so the Chromium tests cannot run (skipped only outside CI)',
    );
    vi.stubEnv('DATABASE_URL', NO_POSTGRES);
    await expect(processDatabase('requirements')).rejects.toThrow(`CI=true: PostgreSQL at ${NO_POSTGRES} is missing`);
  });

  it('runs when present, in CI or not', () => {
    vi.stubEnv('CI', 'true');
    expect(required('Chromium', true, 'the Chromium tests')).toBe(true);
  });
});
