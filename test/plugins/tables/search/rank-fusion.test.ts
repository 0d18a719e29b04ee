import { RRF_K, fuseRanks as fuseWeighted } from '../../../../plugins/tables/search/rank-fusion';

const fuseRanks = (lists: string[][], k?: number) => fuseWeighted(lists.map((keys) => ({ keys })), k);

describe('fuseRanks (reciprocal rank fusion)', () => {
  it('sums 1 / (k + position) over the lists an item is in', () => {
    const fused = fuseRanks([['a', 'b'], ['b'], ['c', 'a']]);
    expect(fused.map((item) => item.key)).toEqual(['a', 'b', 'c']);
    expect(fused[0].score).toBeCloseTo(1 / (RRF_K + 1) + 1 / (RRF_K + 2));
    expect(fused[1].score).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1));
    expect(fused[2].score).toBeCloseTo(1 / (RRF_K + 1));
  });

  it('ranks an item found by all three lists above the top item of a single list', () => {
    const fullText = ['solo', 'everywhere'];
    const fuzzy = ['x', 'y', 'everywhere'];
    const vector = ['z', 'everywhere'];
    expect(fuseRanks([fullText, fuzzy, vector])[0].key).toBe('everywhere');
  });

  it('breaks a tie by the better best position, then by key', () => {
    // With k = 0, positions 2 and 6 sum to what 3 and 3 do (1/2 + 1/6 = 1/3 + 1/3): `b` was once second, `a` never better than third.
    const fused = fuseRanks([['x', 'b', 'a'], ['y', 'z', 'a', 'w', 'v', 'b']], 0);
    expect(fused.find((item) => item.key === 'a')!.score).toBe(fused.find((item) => item.key === 'b')!.score);
    expect(fused.map((item) => item.key).slice(0, 4)).toEqual(['x', 'y', 'b', 'a']);
    expect(fuseRanks([['q'], ['p']]).map((item) => item.key)).toEqual(['p', 'q']);
  });

  it('counts an item once per list, at its best position there', () => {
    const fused = fuseRanks([['a', 'a', 'b']]);
    expect(fused).toEqual([
      { key: 'a', score: 1 / (RRF_K + 1) },
      { key: 'b', score: 1 / (RRF_K + 3) },
    ]);
  });

  it('weighs each list: a weaker list’s first item can rank below a stronger list’s second', () => {
    const fused = fuseWeighted([{ keys: ['strong-1', 'strong-2'] }, { keys: ['weak-1'], weight: 0.5 }]);
    expect(fused.map((item) => item.key)).toEqual(['strong-1', 'strong-2', 'weak-1']);
    expect(fused[2].score).toBeCloseTo(0.5 / (RRF_K + 1));
  });

  it('takes its damping constant as an argument, and empty lists', () => {
    expect(fuseRanks([], 1)).toEqual([]);
    expect(fuseRanks([[], ['a']], 1)).toEqual([{ key: 'a', score: 0.5 }]);
  });
});
