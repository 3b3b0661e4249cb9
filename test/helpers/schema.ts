import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { expect } from 'vitest';
import type { Answer } from './server.js';

/** Asserts that `value` matches `schema`, listing every schema error so that a failure names the field. */
export function expectSchema(schema: TSchema, value: unknown, what = 'body'): void {
  const errors = [...Value.Errors(schema, value)].map((e) => `${e.path}: ${e.message}`);
  expect(errors, `${what} must match the schema`).toEqual([]);
  expect(Value.Check(schema, value)).toBe(true);
}

/** The body of an answer, checked to come with `status` and to match `schema`. */
export function checkedBody(answer: Answer, schema: TSchema, status = 200): any {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expectSchema(schema, answer.body);
  return answer.body;
}
