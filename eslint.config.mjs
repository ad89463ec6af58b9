import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '.next/**',
      'node_modules/**',
      'data/**',
      'drizzle/**',
      'next-env.d.ts',
      'bench/results/**',
      'e2e/screenshots/**',
      'sdk/*/dist/**',
      'examples/*/.next/**',
      'examples/*/next-env.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // The API surfaces set an answer's headers with setAnswerHeader (server/http/answer-headers.ts):
    // the router renders its answers from those, so a header given to Hono's c.header would be lost.
    files: ['server/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='c'][callee.property.name='header']",
          message: "Set an answer's header with setAnswerHeader (server/http/answer-headers.ts), not Hono's c.header.",
        },
      ],
    },
  },
  {
    // Operator scripts run by Node directly and report on the console.
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { URL: 'readonly', console: 'readonly', process: 'readonly' } },
    rules: { 'no-console': 'off' },
  },
);
