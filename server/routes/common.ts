import { Type } from '@sinclair/typebox';
import { invalid } from '../errors.js';

/** A positive entry id; ids beyond what the database can hold are invalid data, not a server fault. */
export const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

/** Entry ids arrive as integers or as digit strings (the document declares both forms). */
export const IdList = Type.Array(
  Type.Union([Id, Type.String({ pattern: '^[1-9][0-9]{0,15}$' })]),
  { minItems: 1, maxItems: 1000 },
);

export const EntryIdParams = Type.Object({ entryId: Id });

/** A request body naming entries and nothing else. */
export const IdsBody = Type.Object({ entryIds: IdList });

export const toIds = (ids: ReadonlyArray<number | string>): number[] => [...new Set(ids.map(Number))];

/** A true/false flag sent as a boolean, a string or a number. */
export const Flag = Type.Union([Type.Boolean(), Type.String({ maxLength: 10 }), Type.Integer()]);

export function flag(value: boolean | string | number | undefined | null, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  const text = String(value).trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off', ''].includes(text)) return false;
  throw invalid(field, `The ${field} field must be true or false.`);
}

/** Entry names as the service accepts them for folders and renames (3 to 200 characters). */
export const NAME_MIN = 3;
export const NAME_MAX = 200;
export const DESCRIPTION_MAX = 200;

export function checkName(name: string, field = 'name'): string {
  const length = [...name].length;
  if (name.trim() === '' || length < NAME_MIN || length > NAME_MAX) {
    throw invalid(field, `The ${field} must be between ${NAME_MIN} and ${NAME_MAX} characters.`);
  }
  return name;
}
