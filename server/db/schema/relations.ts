import { relations } from 'drizzle-orm';
import { emailAddresses, phoneNumbers, users } from './users';

export const usersRelations = relations(users, ({ many }) => ({
  emailAddresses: many(emailAddresses),
  phoneNumbers: many(phoneNumbers),
}));
export const emailAddressesRelations = relations(emailAddresses, ({ one }) => ({
  user: one(users, { fields: [emailAddresses.userId], references: [users.id] }),
}));
export const phoneNumbersRelations = relations(phoneNumbers, ({ one }) => ({
  user: one(users, { fields: [phoneNumbers.userId], references: [users.id] }),
}));
