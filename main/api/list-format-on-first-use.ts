/**
 * got checks its options with @sindresorhus/is, which builds two `Intl.ListFormat` objects the moment it is imported,
 * for the wording of option errors. Building one loads ICU's list patterns: some 5 MB of the node binary made
 * resident, and kept so, in every process that talks to the service, for messages a running engine never words.
 *
 * http.ts imports this module just before got and calls `restoreListFormat` once got is in: while got is imported,
 * `Intl.ListFormat` builds the real object the first time one is used, and afterwards it is the real constructor again.
 */
const Native = Intl.ListFormat;
/** `Intl` as it is at run time: its constructors are writable properties. */
const intl = Intl as { ListFormat: typeof Intl.ListFormat };

class ListFormatOnFirstUse {
  readonly #args: ConstructorParameters<typeof Intl.ListFormat>;
  #made: Intl.ListFormat | undefined;

  constructor(...args: ConstructorParameters<typeof Intl.ListFormat>) {
    this.#args = args;
  }

  #real(): Intl.ListFormat {
    return (this.#made ??= new Native(...this.#args));
  }

  format(list: Iterable<string>): string {
    return this.#real().format(list);
  }

  formatToParts(list: Iterable<string>) {
    return this.#real().formatToParts(list);
  }

  resolvedOptions() {
    return this.#real().resolvedOptions();
  }
}

intl.ListFormat = ListFormatOnFirstUse as unknown as typeof Intl.ListFormat;

/** Gives `Intl.ListFormat` back its own constructor (the objects made meanwhile go on working). */
export function restoreListFormat(): void {
  intl.ListFormat = Native;
}
