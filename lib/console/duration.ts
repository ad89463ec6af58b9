/** Durations edited in human units and sent to the API in seconds. */
const UNIT_SECONDS = { seconds: 1, minutes: 60, hours: 3600, days: 86400 } as const;
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
