import type { EntityManager, EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';

/** A transaction as MikroORM hands it around (a savepoint carries its name). */
type TransactionHandle = object;

/**
 * Tells when a transaction that wrote outbox rows has committed, so that the relay of
 * this process is woken then, and only then (before the commit it would find nothing;
 * for a rollback there is nothing to find).
 *
 * Why not a NOTIFY from an insert trigger, as the outbox first had: PostgreSQL
 * serializes the commits of all transactions that sent a NOTIFY (each holds a global
 * lock from its pre-commit until its commit record is flushed), so publishing
 * transactions could not share a WAL flush; and every listening process was woken for
 * every commit. Measured with pgbench on this project's machine, 8 clients each
 * committing one outbox insert: 10-11k commits/s without the trigger, 4.0-4.3k with it.
 *
 * MikroORM reports commits through its transaction events. A nested `transactional`
 * is a savepoint, whose "commit" (its release) commits nothing: an outbox write is
 * booked on the outermost transaction, found by following each savepoint to the
 * transaction it was opened in (beforeTransactionStart names the parent,
 * afterTransactionStart the savepoint, both with the same EntityManager fork).
 */
export class OutboxCommits implements EventSubscriber {
  /** Savepoint -> the transaction it was opened in. */
  private readonly parents = new WeakMap<TransactionHandle, TransactionHandle>();
  /** Fork -> the transaction it is opening a savepoint in (between the two start events). */
  private readonly opening = new WeakMap<EntityManager, TransactionHandle>();
  /** Outermost transactions that wrote to the outbox and have not committed yet. */
  private readonly wrote = new WeakSet<TransactionHandle>();

  /** `onCommitted` runs after each commit of a transaction that wrote outbox rows; it must not throw. */
  constructor(private onCommitted: () => void) {}

  /** Replaces what runs after such a commit (the relay's wake once the relay runs). */
  setOnCommitted(onCommitted: () => void): void {
    this.onCommitted = onCommitted;
  }

  /** Books an outbox write in `em`'s transaction; without one (autocommit), it has committed already. */
  noteWrite(em: EntityManager): void {
    let transaction: TransactionHandle | undefined = em.getTransactionContext();
    if (transaction === undefined) {
      this.onCommitted();
      return;
    }
    for (let parent = this.parents.get(transaction); parent !== undefined; parent = this.parents.get(transaction)) transaction = parent;
    this.wrote.add(transaction);
  }

  beforeTransactionStart({ em, transaction }: TransactionEventArgs): void {
    if (transaction !== undefined) this.opening.set(em, transaction);
  }

  afterTransactionStart({ em, transaction }: TransactionEventArgs): void {
    const parent = this.opening.get(em);
    if (parent === undefined || transaction === undefined) return;
    this.opening.delete(em);
    this.parents.set(transaction, parent);
  }

  afterTransactionCommit({ transaction }: TransactionEventArgs): void {
    if (transaction === undefined || 'savepointName' in transaction) return;
    if (this.wrote.delete(transaction)) this.onCommitted();
  }
}
