/** An ILIKE pattern that finds `text` anywhere, its `%`, `_` and `\` matched literally (PostgreSQL's default escape is `\`). */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
