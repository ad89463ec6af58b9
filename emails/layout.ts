/**
 * The look shared by the built-in emails: the app name above a white card on a light
 * grey page, system fonts, no remote images or fonts. Buttons take the branding's primary
 * colour (`brand_color`, a style over the dark default) when the instance has one. `layout()` returns a complete MJML
 * document, which is what a template override replaces.
 */

const FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
const MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace";

export interface LayoutInput {
  lang: string;
  /** The document title (shown by some clients) and the preview line of inboxes. */
  title: string;
  preview: string;
  /** MJML placed in the card's column: mj-text, mj-button, mj-table, mj-divider … */
  content: string;
  footer: string;
}

export function layout(input: LayoutInput): string {
  return `<mjml lang="${input.lang}">
  <mj-head>
    <mj-title>${input.title}</mj-title>
    <mj-preview>${input.preview}</mj-preview>
    <mj-attributes>
      <mj-all font-family="${FONT}" />
      <mj-text font-size="15px" line-height="24px" color="#3f3f46" padding="0 0 16px 0" />
      <mj-button css-class="lk-button" background-color="#18181b" color="#ffffff" font-size="15px" font-weight="600" border-radius="8px" inner-padding="12px 24px" padding="8px 0 24px 0" align="left" />
      <mj-table font-size="14px" line-height="22px" color="#3f3f46" padding="0 0 16px 0" />
      <mj-class name="heading" font-size="20px" line-height="28px" font-weight="700" color="#18181b" />
      <mj-class name="code" font-family="${MONO}" font-size="32px" line-height="40px" font-weight="700" letter-spacing="8px" color="#18181b" align="center" container-background-color="#f4f4f5" padding="20px 0" />
      <mj-class name="muted" font-size="13px" line-height="20px" color="#71717a" />
    </mj-attributes>
    <mj-style>{{#if brand_color}}.lk-button td, .lk-button a { background: {{brand_color}} !important; }{{/if}}</mj-style>
  </mj-head>
  <mj-body background-color="#f4f4f5" width="560px">
    <mj-section padding="40px 16px 16px 16px">
      <mj-column>
        <mj-text align="center" padding="0" line-height="0">{{#if logo_url}}<img src="{{logo_url}}" alt="" width="48" height="48" style="display:inline-block;border-radius:8px;margin-bottom:8px">{{/if}}</mj-text>
        <mj-text align="center" font-size="18px" line-height="26px" font-weight="700" color="#18181b" padding="0">{{app_name}}</mj-text>
      </mj-column>
    </mj-section>
    <mj-wrapper padding="0 16px">
      <mj-section background-color="#ffffff" border="1px solid #e4e4e7" border-radius="12px" padding="32px 32px 16px 32px">
        <mj-column>
${input.content
  .trim()
  .split('\n')
  .map((l) => `          ${l}`)
  .join('\n')}
        </mj-column>
      </mj-section>
    </mj-wrapper>
    <mj-section padding="16px 16px 40px 16px">
      <mj-column>
        <mj-text mj-class="muted" align="center" padding="0">${input.footer}{{#if support_email}}<br>{{support_email}}{{/if}}</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>
`;
}
