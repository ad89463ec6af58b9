'use client';

import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useForm } from '@/lib/use-form';

/** A hosted page's form state (lib/use-form.ts), its failures in the hosted pages' copy (`hosted.errors`). */
export function useFormErrors(fields: readonly string[]) {
  return useForm(fields, useFapiError());
}
