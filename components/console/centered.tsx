import type { ReactNode } from 'react';
import { Card, CardBody } from '@/components/ui';
import { LanguagePicker } from './language-picker';

/** The frame of the console's signed-out pages: logo, language picker, one centred card. */
export function Centered({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col">
      <header className="flex items-center justify-between px-4 py-4 sm:px-6">
        <span className="flex items-center gap-2 text-base font-semibold">
          <span aria-hidden className="grid size-7 place-items-center rounded-md bg-indigo-600 text-sm font-bold text-white">
            L
          </span>
          Latchkey
        </span>
        <LanguagePicker />
      </header>
      <main className="flex flex-1 items-start justify-center px-4 pb-16 pt-6 sm:items-center sm:pt-0">
        <div className="w-full max-w-md">{children}</div>
      </main>
    </div>
  );
}

/** A signed-out page's one card: its heading (`title`, `description`) above the content. */
export function CenteredCard({ title, description, children }: { title?: ReactNode; description?: ReactNode; children: ReactNode }) {
  return (
    <Centered>
      <Card>
        <CardBody className="flex flex-col gap-5 p-6 sm:p-8">
          {title && (
            <div>
              <h1 className="text-xl font-semibold tracking-tight">{title}</h1>
              {description && <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{description}</p>}
            </div>
          )}
          {children}
        </CardBody>
      </Card>
    </Centered>
  );
}
