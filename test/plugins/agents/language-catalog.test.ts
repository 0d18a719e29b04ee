import { isLanguageCode, languages } from '../../../plugins/agents/languages/language-catalog';

const REGIONAL_INDICATOR_A = 0x1f1e6;
const REGIONAL_INDICATOR_Z = 0x1f1ff;

/** The region subtag of a language[-Script][-REGION] tag, if it has one. */
function regionOf(code: string): string | undefined {
  const last = code.split('-').slice(1).pop();
  return last && /^[A-Z]{2}$/.test(last) ? last : undefined;
}

/** The two letters a flag's regional-indicator symbols spell, or undefined when it is not exactly two of them. */
function lettersOf(flag: string): string | undefined {
  const points = [...flag].map((symbol) => symbol.codePointAt(0)!);
  if (points.length !== 2 || points.some((point) => point < REGIONAL_INDICATOR_A || point > REGIONAL_INDICATOR_Z)) return undefined;
  return String.fromCharCode(...points.map((point) => point - REGIONAL_INDICATOR_A + 'A'.charCodeAt(0)));
}

describe('language catalog', () => {
  it('has a sizeable list of languages', () => {
    expect(languages.length).toBeGreaterThanOrEqual(70);
  });

  it('has unique codes', () => {
    const codes = languages.map((language) => language.code);
    expect(codes.filter((code, index) => codes.indexOf(code) !== index)).toEqual([]);
  });

  it('has well-formed, canonical BCP 47 codes of the form language[-Script][-REGION]', () => {
    const bad = languages
      .map((language) => language.code)
      .filter((code) => !/^[a-z]{2,3}(-[A-Z][a-z]{3})?(-[A-Z]{2})?$/.test(code) || Intl.getCanonicalLocales(code)[0] !== code);
    expect(bad).toEqual([]);
  });

  it('has a flag of exactly two regional-indicator symbols, spelling the region when the code has one', () => {
    const bad = languages.filter((language) => {
      const letters = lettersOf(language.flag);
      if (letters === undefined) return true;
      const region = regionOf(language.code);
      return region !== undefined && letters !== region;
    });
    expect(bad).toEqual([]);
  });

  it('has non-empty, trimmed names and native names', () => {
    const bad = languages.filter(
      (language) =>
        !language.name.trim() || language.name !== language.name.trim() || !language.native_name.trim() || language.native_name !== language.native_name.trim(),
    );
    expect(bad).toEqual([]);
  });

  it('is sorted by code', () => {
    const codes = languages.map((language) => language.code);
    expect(codes).toEqual([...codes].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('is frozen', () => {
    expect(Object.isFrozen(languages)).toBe(true);
    expect(languages.every((language) => Object.isFrozen(language))).toBe(true);
  });

  it('tells the catalog codes exactly, case-sensitively', () => {
    expect(isLanguageCode('en-US')).toBe(true);
    expect(isLanguageCode('pt-BR')).toBe(true);
    expect(isLanguageCode('en-us')).toBe(false);
    expect(isLanguageCode('xx-XX')).toBe(false);
    expect(isLanguageCode('')).toBe(false);
  });
});
