// @vitest-environment happy-dom
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { NextIntlClientProvider } from 'next-intl';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HostedProvider, useHosted } from '@/components/auth/hosted-context';
import { DataProvider } from './provider';

/**
 * The hosted pages' environment and client (components/auth/hosted-context.tsx) load through
 * the shared cache: both are shown together, a failure is `loadError` and `retryLoad` fetches
 * again, `setClient` puts a write's client in front of every page. Next's router is the one
 * thing replaced (no app router runs here); the FAPI is a fetch answering as the server does.
 */
vi.mock('next/navigation', () => ({
  useRouter: () => ({ push: () => undefined }),
  useSearchParams: () => new URLSearchParams('redirect_url=https%3A%2F%2Fapp.example.com%2F'),
}));

const environment = {
  instance: { id: 'ins_1', name: 'Acme', publishable_key: 'pk_test_1' },
  localization: { locale: 'en', overrides: {} },
  redirect: { url: 'https://app.example.com/', allowed: true },
};
const client = (id: string) => ({ object: 'client', id, sessions: [], session: null });

let gets: string[] = [];
let failEnvironment = 0;
beforeEach(() => {
  gets = [];
  failEnvironment = 0;
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    gets.push(`${url} ${(init.headers as Record<string, string>)['x-publishable-key'] ?? '-'}`);
    if (url.startsWith('/fapi/ins_1/v1/environment')) {
      if (failEnvironment-- > 0) return Response.json({ errors: [{ code: 'INTERNAL_ERROR', message: 'down' }] }, { status: 500 });
      return Response.json(environment);
    }
    if (url === '/fapi/ins_1/v1/client') return Response.json(client('client_1'));
    return Response.json({ errors: [{ code: 'NOT_FOUND', message: 'no' }] }, { status: 404 });
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function Probe() {
  const { env, client: c, loadError, retryLoad, setClient } = useHosted();
  return (
    <div>
      <p data-testid="state">{loadError ? 'error' : env && c ? `${env.instance.name} ${c.id}` : env || c ? 'half' : 'loading'}</p>
      <button onClick={retryLoad}>retry</button>
      <button onClick={() => setClient(client('client_2') as never)}>set</button>
    </div>
  );
}

const renderHosted = () =>
  render(
    <DataProvider>
      <NextIntlClientProvider locale="en" messages={{}}>
        <HostedProvider instanceId="ins_1" base="/fapi/ins_1">
          <Probe />
        </HostedProvider>
      </NextIntlClientProvider>
    </DataProvider>,
  );

describe('HostedProvider loads through the shared cache', () => {
  it('shows the environment and the client together, the client read with the environment’s publishable key', async () => {
    renderHosted();
    expect(screen.getByTestId('state').textContent).toBe('loading');
    await waitFor(() => expect(screen.getByTestId('state').textContent).toBe('Acme client_1'));
    expect(gets).toEqual(['/fapi/ins_1/v1/environment?redirect_url=https%3A%2F%2Fapp.example.com%2F -', '/fapi/ins_1/v1/client pk_test_1']);
  });

  it('a failed load is loadError until retryLoad fetches again', async () => {
    failEnvironment = 1;
    renderHosted();
    await waitFor(() => expect(screen.getByTestId('state').textContent).toBe('error'));
    await act(async () => screen.getByText('retry').click());
    await waitFor(() => expect(screen.getByTestId('state').textContent).toBe('Acme client_1'));
  });

  it('setClient replaces the client every page sees, without a request', async () => {
    renderHosted();
    await waitFor(() => expect(screen.getByTestId('state').textContent).toBe('Acme client_1'));
    const before = gets.length;
    await act(async () => screen.getByText('set').click());
    await waitFor(() => expect(screen.getByTestId('state').textContent).toBe('Acme client_2'));
    expect(gets.length).toBe(before);
  });
});
