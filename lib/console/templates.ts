'use client';

import { ApiError, NetworkError } from '../api-client';

/** Shapes of the email-template and localization routes (server/localization/routes.ts). */
export type TemplateVariable = { name: string; type: 'string' | 'number' | 'url'; required: boolean; description: string; sample: string | number };

export type EmailContent = { subject: string; mjml: string; text: string | null };
export type LocalizationContent = EmailContent | { body: string } | { text: string };
export type ResourceKind = 'email' | 'sms' | 'hosted';

export type Localization = {
  object: 'localization';
  id: string;
  locale: string;
  resource: string;
  kind: ResourceKind;
  content: LocalizationContent;
  enabled: boolean;
  updated_by: string | null;
  created_at: number;
  updated_at: number;
};

export type TemplateState = 'built_in' | 'overridden' | 'disabled';

export type EmailTemplateSummary = {
  object: 'email_template';
  name: string;
  description: string;
  variables: TemplateVariable[];
  built_in_locales: string[];
  state: TemplateState;
  overrides: Localization[];
};

export type EmailTemplateDetail = EmailTemplateSummary & {
  locale: string;
  base: EmailContent & { locale: string };
  override: Localization | null;
  effective: EmailContent & { locale: string; source: 'override' | 'built_in' };
};

export type Revision = { object: 'localization_revision'; id: string; locale: string; resource: string; content: LocalizationContent; enabled: boolean; actor: string; created_at: number };

export type Preview = { object: 'email_preview'; template: string; locale: string; subject: string; html: string; text: string };

export type CatalogResource = { key: string; kind: ResourceKind; description: string; variables: TemplateVariable[]; base: Record<string, LocalizationContent> };
export type LocalizationList = {
  object: 'list';
  data: Localization[];
  has_more: boolean;
  catalog: { built_in_locales: string[]; supported_languages: string[]; resources: CatalogResource[] };
};

/** One problem of a refused template: its part, where, and what. */
export type Problem = { part: string; line: number; column: number; reason: string; message: string };

/** A refused write with every problem the server listed (one error entry each). */
export class ProblemsError extends Error {
  constructor(
    readonly problems: Problem[],
    readonly first: ApiError,
  ) {
    super(first.message);
  }
}

type ErrorEntry = { code?: string; message?: string; meta?: Record<string, unknown> };

/**
 * A JSON call to the dashboard API that keeps every error entry: a 422 about template
 * parts becomes ProblemsError (each with part, line, column), others ApiError.
 */
export async function callTemplates<T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, json?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      credentials: 'include',
      headers: { accept: 'application/json', ...(json !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: json !== undefined ? JSON.stringify(json) : undefined,
    });
  } catch (cause) {
    throw new NetworkError('network', { cause });
  }
  const text = await response.text();
  const body = text ? (JSON.parse(text) as unknown) : null;
  if (response.ok) return body as T;
  const entries = ((body as { errors?: ErrorEntry[] } | null)?.errors ?? []) as ErrorEntry[];
  const first = entries[0];
  const error = new ApiError(response.status, first?.code ?? 'INTERNAL_ERROR', first?.message ?? response.statusText, first?.meta ?? {});
  const problems = entries
    .filter((e) => typeof e.meta?.line === 'number' && typeof e.meta?.part === 'string')
    .map((e) => ({
      part: e.meta!.part as string,
      line: e.meta!.line as number,
      column: e.meta!.column as number,
      reason: String(e.meta!.reason ?? ''),
      message: String(e.message ?? '').replace(/^\w+ \d+:\d+: /, ''),
    }));
  if (problems.length) throw new ProblemsError(problems, error);
  if (response.status === 401 && typeof window !== 'undefined') window.location.assign('/sign-in');
  throw error;
}

/** The languages the locale pickers offer first: the built-in ones. */
export const BUILT_IN_LOCALES = ['en', 'fr', 'de'];

/** A language's name in the reader's language (`fr` → "French"), or the tag. */
export function localeName(tag: string, displayLocale: string): string {
  try {
    return new Intl.DisplayNames([displayLocale], { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}
