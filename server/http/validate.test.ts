import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from './errors';
import { validate } from './validate';

const schema = z.strictObject({ name: z.string().min(2).max(5), age: z.number().int().min(18).max(130), tags: z.array(z.string()).max(1) });

function problems(input: unknown) {
  try {
    validate(schema, input);
  } catch (e) {
    return (e as AppError).entries().map((entry) => entry.meta);
  }
  throw new Error('valid');
}

describe('validate', () => {
  it('answers one entry per invalid field, each with the bound it missed', () => {
    expect(problems({ name: 'a', age: 200, tags: ['x', 'y'] })).toEqual([
      { param: 'name', reason: 'too_small', min_length: 2 },
      { param: 'age', reason: 'too_big', maximum: 130 },
      { param: 'tags', reason: 'too_big', max_items: 1 },
    ]);
    expect(problems({ name: 'abcdef', age: 3, tags: [] })).toEqual([
      { param: 'name', reason: 'too_big', max_length: 5 },
      { param: 'age', reason: 'too_small', minimum: 18 },
    ]);
  });

  it('names missing fields as required, without bounds', () => {
    expect(problems({})).toEqual([
      { param: 'name', reason: 'required' },
      { param: 'age', reason: 'required' },
      { param: 'tags', reason: 'required' },
    ]);
  });
});
