export { ContactMemory } from './contact-memory.entity';
export { contactMemoryRef, createContactMemoryReader, type ContactMemoryReader, type MemoryItem } from './contact-memory-service';
export { summarizeClosedSessions } from './summarize-sessions';
export { forgetDeletedContacts, scheduleMemoryExpiry, deleteExpiredMemories } from './forget-memories';
export { memoryRoutes } from './memory-routes';
