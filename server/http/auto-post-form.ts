import { createHash } from 'node:crypto';
import { htmlPage } from './endpoint';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const SUBMIT = 'document.forms[0].submit()';
const SUBMIT_HASH = `'sha256-${createHash('sha256').update(SUBMIT).digest('base64')}'`;

/**
 * A page that posts `fields` to `action` as soon as it loads (SAML HTTP-POST binding, OAuth
 * form_post), with a button for a browser without script. Its own CSP lets only that one
 * script run (by hash). No form-action: Chromium applies it to the redirects that follow the post.
 */
export function autoPostForm(action: string, fields: Record<string, string>, title = 'Continuing…') {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>` +
    `<body><form method="post" action="${escapeHtml(action)}">${inputs}<noscript><button type="submit">Continue</button></noscript></form>` +
    `<script>${SUBMIT}</script></body></html>`;
  return htmlPage(html, 200, {
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; script-src ${SUBMIT_HASH}; base-uri 'none'; frame-ancestors 'none'`,
  });
}
