export default function Home() {
  return (
    <main className="mx-auto flex max-w-2xl flex-col gap-6 px-6 py-16">
      <h1 className="text-3xl font-semibold tracking-tight">Latchkey</h1>
      <p className="text-zinc-600 dark:text-zinc-400">
        The backend API is running. Its OpenAPI document describes every route.
      </p>
      <ul className="flex flex-col gap-2 text-sm">
        <li>
          <a className="font-medium text-indigo-600 underline-offset-4 hover:underline focus-visible:outline-2" href="/v1/openapi.json">
            /v1/openapi.json
          </a>
        </li>
        <li>
          <a className="font-medium text-indigo-600 underline-offset-4 hover:underline focus-visible:outline-2" href="/readyz">
            /readyz
          </a>
        </li>
      </ul>
    </main>
  );
}
