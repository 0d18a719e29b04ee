/**
 * A LIKE/ILIKE pattern that matches `text` literally (its `%`, `_` and `\` escaped with
 * PostgreSQL's default escape character), where it must appear.
 */
export function likePattern(text: string, where: 'contains' | 'starts_with' | 'ends_with'): string {
  const literal = text.replace(/[\\%_]/g, (char) => `\\${char}`);
  if (where === 'starts_with') return `${literal}%`;
  if (where === 'ends_with') return `%${literal}`;
  return `%${literal}%`;
}
