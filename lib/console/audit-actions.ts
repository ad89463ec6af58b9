'use client';

import { useTranslations } from 'next-intl';

/** An audit action (`organization_membership.role_changed`) as its resource and verb. */
export function splitAction(action: string): { resource: string; verb: string } {
  const dot = action.indexOf('.');
  return dot < 0 ? { resource: action, verb: '' } : { resource: action.slice(0, dot), verb: action.slice(dot + 1) };
}

/** Words of an unknown code, as a last resort: `role_changed` → `role changed`. */
const words = (code: string) => code.replace(/[_.]/g, ' ');

/** Names an audit action for people ("Organization member: role changed"); an action no catalog knows reads as its words. */
export function useAuditActionLabel(): (action: string) => string {
  const t = useTranslations('console.audit');
  return (action) => {
    const { resource, verb } = splitAction(action);
    const r = t.has(`resources.${resource}`) ? t(`resources.${resource}`) : words(resource);
    if (!verb) return r;
    const v = t.has(`verbs.${verb}`) ? t(`verbs.${verb}`) : words(verb);
    return t('actionLabel', { resource: r, verb: v });
  };
}
