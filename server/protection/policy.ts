import type { Deps } from '../deps';
import type { AuditContext } from '../http/actor';
import { getInstance, instanceContext, updateInstanceSettings } from '../instances/instances';
import { instanceSettings } from '../instances/settings';
import type { AttackProtection, AttackProtectionPatch, RiskBasedMfa, RiskBasedMfaPatch } from '../instances/protection-settings';

type D = Pick<Deps, 'db' | 'clock' | 'caches' | 'config'>;

const attackProtectionView = (p: AttackProtection) => ({ object: 'attack_protection' as const, ...p });

const riskBasedMfaView = (deps: Pick<Deps, 'geoip'>, p: RiskBasedMfa) => ({
  object: 'risk_based_mfa' as const,
  enabled: p.enabled,
  geoip_enabled: deps.geoip !== undefined,
});

export async function getAttackProtection(deps: D, instanceId: string) {
  return attackProtectionView((await instanceContext(deps, instanceId)).settings.attack_protection);
}

export async function getRiskBasedMfa(deps: D & Pick<Deps, 'geoip'>, instanceId: string) {
  return riskBasedMfaView(deps, (await instanceContext(deps, instanceId)).settings.risk_based_mfa);
}

/** The stored settings, read fresh (not from the cache) so a patch merges into the latest. */
async function storedSettings(deps: D, instanceId: string) {
  return instanceSettings((await getInstance(deps, instanceId)).settings);
}

const defined = <T extends object>(o: T | undefined) => Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined));

/** Merges the patch into the stored settings; audited as attack_protection.updated. */
export async function updateAttackProtection(deps: D, instanceId: string, patch: AttackProtectionPatch, ctx: AuditContext) {
  const current = (await storedSettings(deps, instanceId)).attack_protection;
  const next: AttackProtection = {
    user_lockout: { ...current.user_lockout, ...defined(patch.user_lockout) },
    breached_passwords: { ...current.breached_passwords, ...defined(patch.breached_passwords) },
  };
  const saved = await updateInstanceSettings(deps, instanceId, { attack_protection: next }, ctx, 'attack_protection.updated');
  return attackProtectionView(saved.attack_protection);
}

/** Merges the patch into the stored settings; audited as risk_based_mfa.updated. */
export async function updateRiskBasedMfa(deps: D & Pick<Deps, 'geoip'>, instanceId: string, patch: RiskBasedMfaPatch, ctx: AuditContext) {
  const current = (await storedSettings(deps, instanceId)).risk_based_mfa;
  const saved = await updateInstanceSettings(
    deps,
    instanceId,
    { risk_based_mfa: { ...current, ...defined(patch) } },
    ctx,
    'risk_based_mfa.updated',
  );
  return riskBasedMfaView(deps, saved.risk_based_mfa);
}
