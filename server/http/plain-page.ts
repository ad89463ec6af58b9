import { escapeHtml } from './auto-post-form';

/**
 * The look of the server's own HTML pages (the OpenID Provider's consent, device and logout
 * pages, the mock social provider's page): one centred card, light and dark, no script.
 */
const STYLE =
  'body{font-family:system-ui,sans-serif;background:#f6f7f9;color:#18181b;margin:0;display:flex;justify-content:center}main{background:#fff;margin:48px 16px;padding:32px;border-radius:12px;max-width:420px;width:100%;box-shadow:0 1px 3px #0002}h1{font-size:1.25rem}ul{padding-left:1.2rem}label{display:block;margin-top:12px;font-weight:600;font-size:.9rem}input{display:block;width:100%;box-sizing:border-box;margin-top:4px;padding:8px;font-size:1rem;border:1px solid #a1a1aa;border-radius:6px}input[name=user_code]{font-size:1.5rem;letter-spacing:.15em}.actions{display:flex;gap:8px;margin-top:24px}button{flex:1;padding:10px;border-radius:8px;border:1px solid #a1a1aa;background:#fff;color:#18181b;font-size:1rem;cursor:pointer}button[value=allow],button.primary{background:#18181b;color:#fff;border-color:#18181b}small{color:#52525b}[role=alert]{color:#b91c1c;font-weight:600}@media (prefers-color-scheme:dark){body{background:#09090b;color:#f4f4f5}main{background:#18181b}input{background:#09090b;color:#f4f4f5}button{background:#27272a;color:#f4f4f5}button[value=allow],button.primary{background:#f4f4f5;color:#18181b}small{color:#a1a1aa}[role=alert]{color:#f87171}}';

/** A whole page: `title` as its title and heading, `body` (markup the caller escaped) below. */
export const plainPage = (locale: string, title: string, body: string) =>
  `<!doctype html><html lang="${escapeHtml(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
