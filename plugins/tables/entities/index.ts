export { DataTable, type IndexStatus } from './data-table.entity';
export { TableColumn } from './table-column.entity';
export { TableRecord } from './table-record.entity';
export { TableSearchEntry } from './table-search-entry.entity';
export { TableAssignment, type AssignmentMode } from './table-assignment.entity';
export { TableImport, type ImportStatus, type ImportSource, type ImportFormat, type ProgressUnit, type ImportRowError } from './table-import.entity';
export { ImportUploadChunk } from './import-upload-chunk.entity';
export { TableSearchWord } from './table-search-word.entity';
