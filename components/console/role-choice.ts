/** A role as pickers and badges show it: its name, its key kept as the value (and shown on hover). */
export type RoleChoice = { key: string; name: string };

/** Before the instance's roles have loaded: the two built-in ones. */
export const DEFAULT_ROLES: RoleChoice[] = [
  { key: 'org:admin', name: 'Admin' },
  { key: 'org:member', name: 'Member' },
];

/** The role's name; its key when the role is not known here (deleted since, say). */
export const roleName = (roles: RoleChoice[], key: string) => roles.find((r) => r.key === key)?.name ?? key;

/** The keys to offer, `value` first when it is not among them. */
export function keysWith(roles: RoleChoice[], value: string): string[] {
  const keys = roles.map((r) => r.key);
  return keys.includes(value) ? keys : [value, ...keys];
}
