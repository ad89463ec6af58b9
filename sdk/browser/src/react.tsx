import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import { Latchkey, type LatchkeyOptions, type SessionState } from './core.js';

const Ctx = createContext<Latchkey | null>(null);

/** Boots one `Latchkey` for the tree (or uses the one given) and re-renders on session changes. */
export function LatchkeyProvider(props: { children: ReactNode; latchkey?: Latchkey } & Partial<LatchkeyOptions>) {
  const [lk] = useState(() => props.latchkey ?? new Latchkey(props as LatchkeyOptions));
  // A Latchkey handed over already loaded renders at once (and on the server).
  const [loaded, setLoaded] = useState(() => lk.client !== null);
  useEffect(() => {
    let live = true;
    if (lk.client !== null) return;
    lk.load().finally(() => live && setLoaded(true));
    return () => {
      live = false;
    };
  }, [lk]);
  return <Ctx.Provider value={lk}>{loaded ? props.children : null}</Ctx.Provider>;
}

export function useLatchkey(): Latchkey {
  const lk = useContext(Ctx);
  if (!lk) throw new Error('useLatchkey must be used inside <LatchkeyProvider>.');
  return lk;
}

const useSessionState = (lk: Latchkey): SessionState['session'] =>
  useSyncExternalStore(
    (cb) => lk.addListener(cb),
    () => lk.session,
    () => lk.session,
  );

export function useSession() {
  const lk = useLatchkey();
  const session = useSessionState(lk);
  return { session, isSignedIn: session?.status === 'active', getToken: (o?: { skipCache?: boolean }) => lk.getToken(o) };
}

export function useUser() {
  const lk = useLatchkey();
  const session = useSessionState(lk);
  const [user, setUser] = useState<Awaited<ReturnType<Latchkey['getUser']>>>(null);
  useEffect(() => {
    let live = true;
    if (!session) setUser(null);
    else
      lk.getUser().then(
        (u) => live && setUser(u),
        () => live && setUser(null),
      );
    return () => {
      live = false;
    };
  }, [lk, session]);
  return { user, isSignedIn: session?.status === 'active' };
}

export function SignedIn({ children }: { children: ReactNode }) {
  return useSession().isSignedIn ? <>{children}</> : null;
}
export function SignedOut({ children }: { children: ReactNode }) {
  return useSession().isSignedIn ? null : <>{children}</>;
}
