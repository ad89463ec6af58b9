import postgres from 'postgres';

/** Runs `run` on a one-connection client to `url` (CREATE/DROP DATABASE and the like), then closes it. */
export async function asAdmin(url: string, run: (admin: postgres.Sql) => Promise<unknown>, connectTimeout?: number) {
  const admin = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: connectTimeout });
  try {
    await run(admin);
  } finally {
    await admin.end();
  }
}

/** `url` with its database name replaced. */
export function databaseUrl(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
