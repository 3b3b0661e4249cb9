import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** A compiled run-time check of a wire schema: answers null when the value fits, else where and why it does not. */
export function validator(schema: TSchema): (value: unknown) => string | null {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  const ready = check;
  return (value) => {
    if (ready.Check(value)) return null;
    const first = ready.Errors(value).First();
    return first ? `${first.path || '/'} ${first.message}`.slice(0, 300) : 'does not match the expected shape';
  };
}
