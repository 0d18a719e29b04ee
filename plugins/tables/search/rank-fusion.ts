/** Reciprocal rank fusion's damping constant: the value of the original paper (Cormack et al., 2009), and the usual default. */
export const RRF_K = 60;

export interface RankedList {
  /** Keys, best first. */
  keys: readonly string[];
  /** How much a position in this list counts (1 unless the list is a weaker signal). */
  weight?: number;
}

export interface FusedItem {
  key: string;
  /** Sum over the lists of weight / (k + position), positions from 1. */
  score: number;
}

/**
 * Weighted reciprocal rank fusion: merges ranked lists whose scores are not comparable
 * (full-text rank, spelling matches, vector distance) by position alone. An item near
 * the top of several lists beats one at the top of a single list. Ties go to the item
 * with the better best position, then by key, so the order is stable.
 */
export function fuseRanks(lists: readonly RankedList[], k = RRF_K): FusedItem[] {
  const scores = new Map<string, { score: number; best: number }>();
  for (const { keys, weight = 1 } of lists) {
    const seen = new Set<string>();
    keys.forEach((key, index) => {
      if (seen.has(key)) return;
      seen.add(key);
      const entry = scores.get(key) ?? { score: 0, best: Infinity };
      entry.score += weight / (k + index + 1);
      entry.best = Math.min(entry.best, index + 1);
      scores.set(key, entry);
    });
  }
  return [...scores.entries()]
    .sort(([keyA, a], [keyB, b]) => b.score - a.score || a.best - b.best || (keyA < keyB ? -1 : keyA > keyB ? 1 : 0))
    .map(([key, { score }]) => ({ key, score }));
}
