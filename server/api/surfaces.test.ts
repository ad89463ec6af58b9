import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { config as proxyConfig } from '../../proxy';
import { FAPI_BASE, isApiPath, SURFACES, surfaceOf } from './surfaces';

const ROOT = path.resolve(__dirname, '../..');
const INSTANCE = 'ins_01J0000000000000000000000';

/** Every `route.ts` under app/ that hands requests to the API routers, as a path pattern. */
function apiRouteHandlerPaths(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name === 'route.ts' && readFileSync(full, 'utf8').includes('apiRouteHandlers')) {
        const rel = path.relative(path.join(ROOT, 'app'), path.dirname(full)).split(path.sep);
        out.push(
          `/${rel
            .filter((p) => p !== '[[...path]]')
            .map((p) => (p === '[instanceId]' ? ':instanceId' : p))
            .join('/')}`,
        );
      }
    }
  };
  walk(path.join(ROOT, 'app'));
  return out.sort();
}

const fullPrefixes = () => SURFACES.flatMap((s) => s.prefixes.map((p) => (s.base === 'fapi_url' ? `${FAPI_BASE}${p}` : p))).sort();

describe('the surfaces registry', () => {
  it('dispatches each path to the surface with the most specific prefix', () => {
    expect(surfaceOf('/v1/users')?.name).toBe('bapi');
    expect(surfaceOf('/v1')?.name).toBe('bapi');
    expect(surfaceOf('/v1/dashboard/me')?.name).toBe('dashboard');
    expect(surfaceOf('/v1/dashboardx')?.name).toBe('bapi');
    expect(surfaceOf(`/fapi/${INSTANCE}/v1/client`)?.name).toBe('fapi');
    expect(surfaceOf(`/fapi/${INSTANCE}/.well-known/jwks.json`)?.name).toBe('oidc');
    expect(surfaceOf(`/fapi/${INSTANCE}/oauth2/token`)?.name).toBe('oidc');
    expect(surfaceOf(`/fapi/${INSTANCE}/lti/launch`)?.name).toBe('lti');
    expect(surfaceOf('/healthz')?.name).toBe('ops');
    expect(surfaceOf('/internal/cli')?.name).toBe('ops');
    expect(isApiPath(`/fapi/${INSTANCE}/sign-in`)).toBe(false);
    expect(isApiPath(`/fapi/${INSTANCE}`)).toBe(false);
    expect(isApiPath(`/fapi/${INSTANCE}/v1x`)).toBe(false);
    expect(isApiPath('/healthzx')).toBe(false);
    expect(isApiPath('/')).toBe(false);
  });

  it('has a Next.js route handler for each prefix, and none elsewhere', () => {
    expect(apiRouteHandlerPaths()).toEqual(fullPrefixes());
  });

  it('keeps proxy.ts (pages only) off every API prefix', () => {
    const [matcher] = proxyConfig.matcher as string[];
    const pages = new RegExp(`^${matcher}$`);
    for (const prefix of fullPrefixes()) {
      const sample = prefix.replace(':instanceId', INSTANCE);
      expect(pages.test(`${sample}/x`), `${sample}/x reaches the page proxy`).toBe(false);
    }
    expect(pages.test(`/fapi/${INSTANCE}/sign-in`)).toBe(true);
    expect(pages.test('/accounts/acct_1')).toBe(true);
  });
});
