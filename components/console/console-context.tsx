'use client';

import { createContext, useContext } from 'react';
import type { Account, Instance, Me } from '@/lib/console/types';

export type ConsoleContextValue = {
  me: Me;
  account: Account;
  instances: Instance[] | undefined;
  instancesError: unknown;
  reloadInstances: () => void;
  reloadMe: () => void;
  /** Admins and owners change things; viewers read. */
  canWrite: boolean;
  isOwner: boolean;
};

export const ConsoleContext = createContext<ConsoleContextValue | null>(null);

/** The signed-in operator, the current account and its instances (inside the console shell). */
export function useConsole(): ConsoleContextValue {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole() outside the console shell');
  return value;
}
