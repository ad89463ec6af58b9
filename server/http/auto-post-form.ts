import { createHash } from 'node:crypto';
import { htmlPage } from './endpoint';

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Hidden inputs carrying `fields` in a form. */
export const hiddenInputs = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');

const SUBMIT = 'document.forms[0].submit()';
const SUBMIT_HASH = `'sha256-${createHash('sha256').update(SUBMIT).digest('base64')}'`;

/**
 * A form that posts `fields` to `action` as soon as the page loads (SAML HTTP-POST binding,
 * OAuth form_post), with `noscriptButton` for a browser without script, and the CSP of its page:
 * only that one script runs (by hash). `formActionOrigin` pins where the form may go; leave it out
 * when the post is followed by redirects to other sites (Chromium applies form-action to them).
 */
export function autoPost(
  action: string,
  fields: Record<string, string>,
  noscriptButton: string,
  policy: { inlineStyles?: boolean; formActionOrigin?: string } = {},
) {
  const markup = `<form method="post" action="${escapeHtml(action)}">${hiddenInputs(fields)}<noscript>${noscriptButton}</noscript></form><script>${SUBMIT}</script>`;
  const csp = [
    "default-src 'none'",
    ...(policy.inlineStyles ? ["style-src 'unsafe-inline'"] : []),
    `script-src ${SUBMIT_HASH}`,
    ...(policy.formActionOrigin ? [`form-action ${policy.formActionOrigin}`] : []),
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { markup, headers: { 'cache-control': 'no-store', 'content-security-policy': csp } };
}

/** A bare page around autoPost (the SSO surface's SAML request to an HTTP-POST-only IdP). */
export function autoPostForm(action: string, fields: Record<string, string>, title = 'Continuing…') {
  const { markup, headers } = autoPost(action, fields, '<button type="submit">Continue</button>');
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>` +
    `<body>${markup}</body></html>`;
  return htmlPage(html, 200, headers);
}
