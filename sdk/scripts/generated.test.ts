import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { generatedFiles, toTs, uiGeneratedFiles } from './generate-types';

it('the SDKs’ generated API types match the route tables (run `npm run sdk:generate` after an API change)', () => {
  for (const [file, text] of Object.entries(generatedFiles())) {
    expect(readFileSync(join(__dirname, '..', file), 'utf8'), file).toBe(text);
  }
});

it('the UI’s generated API types match the route tables (run `npm run ui:generate` after an API change)', () => {
  for (const [file, text] of Object.entries(uiGeneratedFiles())) {
    expect(readFileSync(join(__dirname, '..', '..', file), 'utf8'), file).toBe(text);
  }
});

it('converts the JSON Schema zod emits into TypeScript', () => {
  expect(toTs({ type: 'object', properties: { a: { type: 'string' }, b: { type: ['integer', 'null'] } }, required: ['a'] })).toBe(
    '{\n  a: string;\n  b?: number | null;\n}',
  );
  expect(toTs({ anyOf: [{ $ref: '#/components/schemas/User' }, { type: 'null' }] })).toBe('(User) | (null)');
  expect(toTs({ type: 'array', items: { enum: ['a', 'b'] } })).toBe('Array<"a" | "b">');
});
