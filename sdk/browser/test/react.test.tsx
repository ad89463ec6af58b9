import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Latchkey } from '../src/index';
import { LatchkeyProvider, SignedIn, SignedOut, useSession } from '../src/react';

const PK = `pk_test_${Buffer.from('auth.example.com/fapi/ins_1$').toString('base64url')}`;
const session = { object: 'session', id: 'sess_1', user_id: 'user_1', status: 'active', tasks: [] };
const clientOf = (signedIn: boolean) => ({
  object: 'client',
  id: 'cli_1',
  sessions: [],
  last_active_session_id: null,
  session: signedIn ? session : null,
  created_at: 1,
  updated_at: 1,
});

async function loaded(signedIn: boolean) {
  const lk = new Latchkey({
    publishableKey: PK,
    locks: null,
    channel: null,
    fetch: (async () => Response.json(clientOf(signedIn))) as typeof fetch,
  });
  await lk.load();
  return lk;
}

function SessionId() {
  const { session, isSignedIn } = useSession();
  return <i>{isSignedIn ? session!.id : 'none'}</i>;
}

const page = (lk: Latchkey) =>
  renderToStaticMarkup(
    <LatchkeyProvider latchkey={lk}>
      <SignedIn>
        <b>hello</b>
      </SignedIn>
      <SignedOut>
        <a>sign in</a>
      </SignedOut>
      <SessionId />
    </LatchkeyProvider>,
  );

describe('React bindings', () => {
  it('<SignedIn>, <SignedOut> and useSession follow the session', async () => {
    expect(page(await loaded(true))).toBe('<b>hello</b><i>sess_1</i>');
    expect(page(await loaded(false))).toBe('<a>sign in</a><i>none</i>');
  });

  it('renders nothing before the client has booted', () => {
    const lk = new Latchkey({
      publishableKey: PK,
      locks: null,
      channel: null,
      fetch: (async () => Response.json(clientOf(true))) as typeof fetch,
    });
    expect(page(lk)).toBe('');
  });
});
