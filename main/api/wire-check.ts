import type { TSchema } from '@sinclair/typebox';
import type * as Wire from './schemas.js';

/** The name of a wire schema in main/api/schemas.ts. */
export type WireSchemaName = { [K in keyof typeof Wire]: (typeof Wire)[K] extends TSchema ? K : never }[keyof typeof Wire];

/**
 * The client's check of one kind of answer (main/api/checks.ts, compiled ahead of time from the wire schema it
 * names): `test` answers whether a parsed body has the schema's shape.
 */
export interface WireCheck<T> {
  readonly schema: WireSchemaName;
  readonly test: (value: unknown) => value is T;
}
