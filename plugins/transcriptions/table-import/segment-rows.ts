import type { ColumnType, ImportItem } from '../../tables';
import type { StoredSegment } from '../entities';

const TYPES: ColumnType[] = ['number', 'number', 'text', 'text'];

/** The columns of an audio import, typed by the reader rather than inferred (a speaker label of digits stays text). */
export const segmentColumns = (): ImportItem => ({ kind: 'columns', names: ['start', 'end', 'speaker', 'text'], types: [...TYPES] });

/**
 * One row per segment, numbered from 1 as a bad row would be reported. `speaker` is the
 * label the provider gave (`SPEAKER_00`), empty when it tells no speakers apart: a table
 * keeps what was heard, not the agent/customer guess a conversation needs.
 */
export function* segmentRows(segments: readonly StoredSegment[]): Generator<ImportItem> {
  for (const [index, segment] of segments.entries()) {
    yield { kind: 'row', row: index + 1, cells: [segment.start, segment.end, segment.speaker_label, segment.text] };
  }
}
