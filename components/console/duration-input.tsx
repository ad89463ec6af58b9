'use client';

import { useTranslations } from 'next-intl';
import { Input, Select, type ControlProps } from '@/components/ui';
import type { Duration, DurationUnit } from '@/lib/console/duration';

/** A number with its unit (minutes, hours, days…); the label belongs to the number. */
export function DurationInput({
  control,
  value,
  onChange,
  units,
  disabled,
}: {
  control: ControlProps;
  value: Duration;
  onChange: (d: Duration) => void;
  units: readonly DurationUnit[];
  disabled?: boolean;
}) {
  const t = useTranslations('console.units');
  return (
    <div className="flex max-w-xs gap-2">
      <div className="min-w-0 flex-1">
        <Input
          {...control}
          type="number"
          inputMode="decimal"
          min={0}
          step="any"
          value={value.amount}
          disabled={disabled}
          onChange={(e) => onChange({ ...value, amount: e.target.value })}
        />
      </div>
      <div className="min-w-0 flex-1">
        <Select
          aria-label={t('unit')}
          value={value.unit}
          disabled={disabled}
          onChange={(e) => onChange({ ...value, unit: e.target.value as DurationUnit })}
          options={units}
          optionLabel={(u) => t(u)}
        />
      </div>
    </div>
  );
}
