'use client';

import type { Error as ApiErrorBody, Localization } from '@/lib/generated/dashboard';
import { ApiError, NetworkError } from '../api-client';
import type { InstanceItem, InstanceResponse } from './types';

/** The email-template and localization answers (types generated from server/api/dashboard/localization.ts). */
export type { EmailTemplate as EmailTemplateDetail, Localization } from '@/lib/generated/dashboard';
export type LocalizationContent = Localization['content'];
export type EmailContent = Extract<LocalizationContent, { mjml: string }>;
type EmailTemplateSummary = InstanceItem<'GET /email_templates'>;
export type TemplateState = EmailTemplateSummary['state'];
export type Revision = InstanceItem<'GET /email_templates/{template}/revisions'>;
export type Preview = InstanceResponse<'POST /email_templates/{template}/preview'>;
export type LocalizationList = InstanceResponse<'GET /localizations'>;
export type CatalogResource = LocalizationList['catalog']['resources'][number];

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

type ErrorEntry = Partial<ApiErrorBody['errors'][number]>;

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
