'use client';

import { useTranslations } from 'next-intl';
import { Input, Select, type ControlProps } from '@/components/ui';

export const UNIT_SECONDS = { seconds: 1, minutes: 60, hours: 3600, days: 86400 } as const;
export type DurationUnit = keyof typeof UNIT_SECONDS;
export type Duration = { amount: string; unit: DurationUnit };

/** The largest of `units` that expresses `seconds` exactly (e.g. 604800 → 7 days). */
export function toDuration(seconds: number, units: readonly DurationUnit[]): Duration {
  const fitting = [...units].sort((a, b) => UNIT_SECONDS[b] - UNIT_SECONDS[a]).find((u) => seconds % UNIT_SECONDS[u] === 0);
  const unit = fitting ?? units[0]!;
  return { amount: String(seconds / UNIT_SECONDS[unit]), unit };
}

/** Seconds of a duration, or null when the amount is not a positive number. */
export function toSeconds(duration: Duration): number | null {
  const amount = Number(duration.amount);
  if (!duration.amount.trim() || !Number.isFinite(amount) || amount <= 0) return null;
  return Math.round(amount * UNIT_SECONDS[duration.unit]);
}

/** A number with its unit (minutes, hours, days…); the label belongs to the number. */
export function DurationInput({ control, value, onChange, units, disabled }: { control: ControlProps; value: Duration; onChange: (d: Duration) => void; units: readonly DurationUnit[]; disabled?: boolean }) {
  const t = useTranslations('console.units');
  return (
    <div className="flex gap-2">
      <Input {...control} type="number" inputMode="decimal" min={0} step="any" className="w-32" value={value.amount} disabled={disabled} onChange={(e) => onChange({ ...value, amount: e.target.value })} />
      <Select aria-label={t('unit')} className="w-32" value={value.unit} disabled={disabled} onChange={(e) => onChange({ ...value, unit: e.target.value as DurationUnit })}>
        {units.map((u) => (
          <option key={u} value={u}>
            {t(u)}
          </option>
        ))}
      </Select>
    </div>
  );
}
