// @vitest-environment happy-dom
import { focusManager, onlineManager, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createQueryClient } from './client';
import { keyOf } from './keys';
import { useInvalidate, useResource, type Resource } from './use-resource';

/**
 * A server the hooks read from: each GET answers the path's current value and counts;
 * `fail` makes the next GETs of a path fail.
 */
function server(values: Record<string, string>) {
  const gets: string[] = [];
  const failing = new Set<string>();
  return {
    gets,
    set: (path: string, value: string) => (values[path] = value),
    fail: (path: string) => failing.add(path),
    heal: (path: string) => failing.delete(path),
    get: async (path: string) => {
      gets.push(path);
      await new Promise((r) => setTimeout(r, 1));
      if (failing.has(path)) throw new Error(`${path} failed`);
      return values[path.split('?')[0]!] ?? '—';
    },
  };
}

let api: ReturnType<typeof server>;
let wrapper: (props: { children: ReactNode }) => ReactNode;
let invalidate: ReturnType<typeof useInvalidate>;
const shown: Record<string, Resource<string>> = {};

function Show({ id, url }: { id: string; url: string | null }) {
  const resource = useResource(url, () => api.get(url!));
  shown[id] = resource;
  return <p data-testid={id}>{resource.error ? 'error' : resource.loading && !resource.data ? 'loading' : (resource.data ?? 'nothing')}</p>;
}

function Invalidator() {
  invalidate = useInvalidate();
  return null;
}

const text = (id: string) => screen.getByTestId(id).textContent;

beforeEach(() => {
  api = server({
    '/v1/dashboard/accounts/a/instances/i/users': 'users v1',
    '/v1/dashboard/accounts/a/instances/i/users/u1': 'ada v1',
    '/v1/dashboard/accounts/a/instances/i/users/u1/sessions': 'ada sessions v1',
    '/v1/dashboard/accounts/a/instances/i/organizations': 'orgs v1',
  });
  const client = createQueryClient();
  wrapper = ({ children }) => (
    <QueryClientProvider client={client}>
      <Invalidator />
      {children}
    </QueryClientProvider>
  );
});
afterEach(cleanup);

const U = '/v1/dashboard/accounts/a/instances/i/users';

describe('keyOf', () => {
  it('is the path segments and the query as an object, whatever its order', () => {
    expect(keyOf(`${U}?limit=20&query=ada`)).toEqual([
      'v1',
      'dashboard',
      'accounts',
      'a',
      'instances',
      'i',
      'users',
      { limit: '20', query: 'ada' },
    ]);
    expect(keyOf('/fapi/ins_1/v1/me/sessions')).toEqual(['fapi', 'ins_1', 'v1', 'me', 'sessions', {}]);
    expect(keyOf('/v1/x?a=1&a=2')).toEqual(['v1', 'x', { a: ['1', '2'] }]);
  });
});

describe('useResource', () => {
  it('fetches once for every component showing the same URL, and nothing for a null URL', async () => {
    render(
      <>
        <Show id="a" url={U} />
        <Show id="b" url={U} />
        <Show id="none" url={null} />
      </>,
      { wrapper },
    );
    expect(text('a')).toBe('loading');
    expect(text('none')).toBe('nothing');
    await waitFor(() => expect(text('b')).toBe('users v1'));
    expect(text('a')).toBe('users v1');
    expect(api.gets).toEqual([U]);
    expect(shown.none!.loading).toBe(false);
  });

  it('shows a failure at once, without retrying, and fetches again on reload', async () => {
    api.fail(U);
    render(<Show id="a" url={U} />, { wrapper });
    await waitFor(() => expect(text('a')).toBe('error'));
    expect(api.gets).toEqual([U]);
    api.heal(U);
    act(() => shown.a!.reload());
    await waitFor(() => expect(text('a')).toBe('users v1'));
    expect(api.gets).toEqual([U, U]);
  });

  it('sends nothing on its own: not on focus, not when back online, not as time passes', async () => {
    render(<Show id="a" url={U} />, { wrapper });
    await waitFor(() => expect(text('a')).toBe('users v1'));
    act(() => {
      focusManager.setFocused(false);
      focusManager.setFocused(true);
      window.dispatchEvent(new Event('visibilitychange'));
      onlineManager.setOnline(false);
      onlineManager.setOnline(true);
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(api.gets).toEqual([U]);
  });

  it('invalidating a path refetches that path and those below it on screen, not its siblings nor its parents', async () => {
    render(
      <>
        <Show id="list" url={`${U}?limit=20`} />
        <Show id="user" url={`${U}/u1`} />
        <Show id="sessions" url={`${U}/u1/sessions?limit=100`} />
        <Show id="orgs" url="/v1/dashboard/accounts/a/instances/i/organizations" />
      </>,
      { wrapper },
    );
    await waitFor(() => expect(text('sessions')).toBe('ada sessions v1'));
    api.gets.length = 0;
    api.set(`${U}/u1`, 'ada v2');
    api.set(`${U}/u1/sessions`, 'ada sessions v2');
    api.set(U, 'users v2');
    await act(() => invalidate(`${U}/u1`));
    await waitFor(() => expect(text('user')).toBe('ada v2'));
    await waitFor(() => expect(text('sessions')).toBe('ada sessions v2'));
    expect(text('list')).toBe('users v1');
    expect(api.gets.sort()).toEqual([`${U}/u1`, `${U}/u1/sessions?limit=100`]);

    api.gets.length = 0;
    await act(() => invalidate(U, { exact: true }));
    await waitFor(() => expect(text('list')).toBe('users v2'));
    expect(api.gets).toEqual([`${U}?limit=20`]);
  });

  it('a page opened again, or a component switching URL, fetches afresh and shows no older answer first', async () => {
    const { rerender } = render(<Show id="user" url={`${U}/u1`} />, { wrapper });
    await waitFor(() => expect(text('user')).toBe('ada v1'));
    rerender(<Show id="list" url={U} />);
    await waitFor(() => expect(text('list')).toBe('users v1'));
    api.set(`${U}/u1`, 'ada v2');
    rerender(<Show id="user" url={`${U}/u1`} />);
    expect(text('user')).toBe('loading');
    await waitFor(() => expect(text('user')).toBe('ada v2'));
    expect(api.gets).toEqual([`${U}/u1`, U, `${U}/u1`]);
  });

  it('a component mounting beside one already showing the answer waits for its own fetch, which both then show', async () => {
    const { rerender } = render(<Show id="a" url={`${U}/u1`} />, { wrapper });
    await waitFor(() => expect(text('a')).toBe('ada v1'));
    api.set(`${U}/u1`, 'ada v2');
    rerender(
      <>
        <Show id="a" url={`${U}/u1`} />
        <Show id="b" url={`${U}/u1`} />
      </>,
    );
    expect(text('b')).toBe('loading');
    await waitFor(() => expect(text('b')).toBe('ada v2'));
    expect(text('a')).toBe('ada v2');
    expect(api.gets).toEqual([`${U}/u1`, `${U}/u1`]);
  });

  it('setData replaces the answer for every component showing it, from a value or from the last answer', async () => {
    render(
      <>
        <Show id="a" url={`${U}/u1`} />
        <Show id="b" url={`${U}/u1`} />
      </>,
      { wrapper },
    );
    await waitFor(() => expect(text('a')).toBe('ada v1'));
    act(() => shown.a!.setData('ada (saved)'));
    await waitFor(() => expect(text('b')).toBe('ada (saved)'));
    act(() => shown.b!.setData((last) => `${last} again`));
    await waitFor(() => expect(text('a')).toBe('ada (saved) again'));
    expect(api.gets).toEqual([`${U}/u1`]);
  });
});
