/** Domains anyone can get an address at: they say nothing about affiliation, so they cannot be added to an organization. */
export const PUBLIC_EMAIL_DOMAINS = new Set([
  'gmail.com', 'googlemail.com', 'yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'yahoo.de', 'ymail.com', 'hotmail.com', 'hotmail.co.uk',
  'hotmail.fr', 'outlook.com', 'outlook.fr', 'live.com', 'live.fr', 'msn.com', 'icloud.com', 'me.com', 'mac.com', 'aol.com',
  'protonmail.com', 'proton.me', 'pm.me', 'gmx.com', 'gmx.de', 'gmx.net', 'gmx.fr', 'web.de', 'mail.com', 'zoho.com', 'yandex.com',
  'yandex.ru', 'mail.ru', 'qq.com', '163.com', '126.com', 'fastmail.com', 'tutanota.com', 'hey.com', 'orange.fr', 'free.fr',
  'laposte.net', 'wanadoo.fr', 't-online.de', 'libero.it', 'naver.com', 'rediffmail.com',
]);

export const isPublicEmailDomain = (domain: string) => PUBLIC_EMAIL_DOMAINS.has(domain.toLowerCase());
