/**
 * Every `meta.reason` instance settings and platform setup answer with. Clients branch on
 * these: a reason is never renamed (README, "Stable reasons").
 */
export const REASONS = {
  invalid_origin: 'invalid_origin',
  setup_token_invalid: 'setup_token_invalid',
} as const;
