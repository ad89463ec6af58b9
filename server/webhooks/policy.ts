/** Delays before attempts 2…8; the first attempt is immediate. After the 8th failure the message is failed. */
export const RETRY_SCHEDULE_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000];
/** An endpoint whose attempts have all failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;
/** How long a previous secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 3_600_000;
export const DELIVERY_TIMEOUT_MS = 15_000;
export const RESPONSE_KEEP_BYTES = 4096;
/** A Retry-After beyond this is capped. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;
