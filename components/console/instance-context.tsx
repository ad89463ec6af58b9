'use client';

import { createContext, useContext, type ReactNode } from 'react';
import { api } from '@/lib/console/paths';
import type { Instance } from '@/lib/console/types';
import { useConsole } from './console-context';
import { PageSkeleton } from './console-shell';
import { ErrorState } from './states';

const InstanceContext = createContext<Instance | null>(null);

/** Finds the route's instance among the account's (already loaded by the shell). */
export function InstanceProvider({ instanceId, children }: { instanceId: string; children: ReactNode }) {
  const { instances, instancesError, reloadInstances } = useConsole();
  if (instancesError) return <ErrorState error={instancesError} onRetry={reloadInstances} />;
  if (!instances) return <PageSkeleton />;
  const instance = instances.find((i) => i.id === instanceId);
  if (!instance) return <ErrorState notFound />;
  return <InstanceContext.Provider value={instance}>{children}</InstanceContext.Provider>;
}

/** The current instance (inside InstanceProvider). */
export function useInstance(): Instance {
  const value = useContext(InstanceContext);
  if (!value) throw new Error('useInstance() outside InstanceProvider');
  return value;
}

/** The dashboard API path of the current instance, or of one of its collections (`resource`). */
export function useInstanceApi(resource = ''): string {
  const { account } = useConsole();
  const base = api.instance(account.id, useInstance().id);
  return resource ? `${base}/${resource}` : base;
}
