import { z } from 'zod';

/** An email address or E.164 phone number as a request may name one (a user's, an invitee's, a message's recipient). */
export const emailAddress = z
  .string()
  .trim()
  .max(320)
  .pipe(z.email({ message: 'must be a valid email address' }));
export const phoneNumber = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number such as +14155550100');
