import type { ChannelLike, LockManagerLike } from '../src/index';

/** Web Locks for tabs of one origin, in memory: one holder of a name at a time, in request order. */
export function memoryLocks(): LockManagerLike {
  const tails = new Map<string, Promise<unknown>>();
  const held = new Map<string, number>();
  return {
    request<T>(name: string, options: { ifAvailable?: boolean }, cb: (lock: object | null) => Promise<T>) {
      if (options.ifAvailable && (held.get(name) ?? 0) > 0) return cb(null);
      held.set(name, (held.get(name) ?? 0) + 1);
      const hold = () => cb({ name }).finally(() => held.set(name, held.get(name)! - 1));
      const run = (tails.get(name) ?? Promise.resolve()).then(hold, hold);
      tails.set(
        name,
        run.catch(() => undefined),
      );
      return run;
    },
  };
}

/** BroadcastChannel between tabs, in memory: a message reaches every other member, asynchronously. */
export function channelHub() {
  const members = new Set<{ listeners: ((e: { data: unknown }) => void)[] }>();
  return (): ChannelLike => {
    const me = { listeners: [] as ((e: { data: unknown }) => void)[] };
    members.add(me);
    return {
      postMessage(data) {
        const copy = structuredClone(data);
        for (const m of members) if (m !== me) setTimeout(() => m.listeners.forEach((l) => l({ data: copy })), 0);
      },
      addEventListener: (_t, l) => void me.listeners.push(l),
      close: () => void members.delete(me),
    };
  };
}
