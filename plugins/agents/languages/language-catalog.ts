// The catalog is data, not code: languages.json is reference content (names, native
// names, flags) that is reviewed and extended as speech services add locales, and a
// change to it should not touch logic.
import catalog from './languages.json';

export interface Language {
  /** BCP 47 tag, e.g. `en-US`, `yue-HK`. */
  code: string;
  /** English name, e.g. "English (United States)". */
  name: string;
  /** Name in the language itself, in its own script, e.g. "Español (España)". */
  native_name: string;
  /** Emoji flag of the region, e.g. "🇺🇸". */
  flag: string;
}

export const languages: readonly Language[] = Object.freeze(
  catalog.map(({ code, name, native_name, flag }): Language => Object.freeze({ code, name, native_name, flag })),
);

const codes: ReadonlySet<string> = new Set(languages.map((language) => language.code));

/** Whether `code` is exactly (case-sensitively) one of the catalog's codes. */
export function isLanguageCode(code: string): boolean {
  return codes.has(code);
}
