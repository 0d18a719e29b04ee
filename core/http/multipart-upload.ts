import busboy from 'busboy';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import type { Request } from 'express';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from './http-errors';

/** How a route takes a file: a multipart/form-data body with one file part. */
export interface UploadSpec {
  /** The form field that carries the file, e.g. `file`. */
  field: string;
  /** Whether a request without the file is a 422 (default true). */
  required?: boolean;
  /** For the OpenAPI document. */
  description?: string;
  /**
   * Takes the file part's bytes as they arrive instead of their being spooled to a
   * temporary file (a route that stores uploads: straight into its storage). Runs while
   * the body is parsed, before the text fields are validated and before the handler; what
   * it answers reaches the handler as `file.received`. The stream ends only once the
   * whole form has been read well-formed; a body cut off, over the limit or malformed
   * anywhere errors it instead (with the 400/413/422 the request then answers), and
   * `receive` must fail. Its own error (a 422 for content it refuses) answers the request.
   */
  receive?: (file: IncomingFile) => Promise<ReceivedFile>;
}

/** The file part as `UploadSpec.receive` gets it. */
export interface IncomingFile {
  field: string;
  originalName: string;
  declaredType: string;
  stream: Readable;
}

/** What `UploadSpec.receive` kept. */
export interface ReceivedFile {
  /**
   * Undoes what was kept: called when the request fails after `receive` succeeded (a
   * malformed rest of the form) and when the response ends. A handler that keeps the
   * file makes it do nothing then.
   */
  discard(): Promise<void>;
}

/**
 * A file a client uploaded, spooled to a temporary file that the kernel deletes once
 * the response is sent. `path` is the server's own name for it: the client's file
 * name is only data (`originalName`), never part of a path.
 */
export interface UploadedFile {
  field: string;
  originalName: string;
  /** The media type the client declared; not checked: sniff the content. */
  declaredType: string;
  size: number;
  /** The temporary file; '' when the route's `receive` took the bytes. */
  path: string;
  /** What the route's `receive` answered, when it took the bytes. */
  received?: ReceivedFile;
}

export interface ParsedUpload {
  fields: Record<string, string>;
  file?: UploadedFile;
}

const MAX_FIELDS = 50;
const MAX_FIELD_BYTES = 64 * 1024;

export function isMultipart(req: Request): boolean {
  return (req.get('content-type') ?? '').toLowerCase().startsWith('multipart/form-data');
}

/**
 * Streams a multipart body: text fields into `fields`, the route's file part to a
 * temporary file, or to the route's `receive`. More than `maxBytes` in the file is a 413;
 * a file in another field, or a second file, is a 422. The caller deletes the file
 * (`discardUpload`).
 */
export function parseMultipart(req: Request, spec: UploadSpec, maxBytes: number): Promise<ParsedUpload> {
  if (!isMultipart(req)) return Promise.reject(new UnsupportedMediaTypeError('Content-Type must be multipart/form-data'));
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: maxBytes, files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 1 },
      });
    } catch (error) {
      return reject(new BadRequestError(`Malformed multipart body: ${(error as Error).message}`));
    }
    // No prototype: a field named `__proto__` or `constructor` is data like any other.
    const fields: Record<string, string> = Object.create(null);
    let file: UploadedFile | undefined;
    let writing: Promise<void> = Promise.resolve();
    // The stream `receive` reads: ended only once the whole form is parsed, errored by any failure.
    let incoming: PassThrough | undefined;
    let failure: Error | undefined;
    const fail = (error: Error) => {
      if (failure) return;
      failure = error;
      req.unpipe(parser);
      // Keep reading so the client gets the answer instead of a reset connection.
      req.resume();
      incoming?.destroy(error);
      void writing
        .catch(() => {})
        .then(() => (file ? discardFile(file) : undefined))
        .catch(() => {})
        .then(() => reject(error));
    };

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new ValidationError({ [name]: [`is longer than ${MAX_FIELD_BYTES} bytes`] }));
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== spec.field || file) {
        stream.resume();
        return fail(new ValidationError({ [name]: [file ? 'only one file may be uploaded' : `unexpected file; send it as "${spec.field}"`] }));
      }
      const uploaded: UploadedFile = { field: name, originalName: info.filename ?? '', declaredType: info.mimeType, size: 0, path: '' };
      file = uploaded;
      stream.on('data', (chunk: Buffer) => (uploaded.size += chunk.length));
      // A body cut off inside the file part errors this stream (busboy: "Unexpected end of
      // form"); pipe() does not forward stream errors, and an unhandled one ends the process.
      stream.on('error', (error: Error) => fail(new BadRequestError(`Malformed multipart body: ${error.message}`)));
      // The rest of the part is never read once over the limit.
      stream.on('limit', () => fail(new PayloadTooLargeError(`The uploaded file exceeds the upload limit of ${maxBytes} bytes`)));
      if (spec.receive) {
        const through = new PassThrough();
        incoming = through;
        // Not ended with the part: the rest of the form may still be malformed (parser.on('close')).
        stream.pipe(through, { end: false });
        const receive = spec.receive;
        const taking = new Promise<ReceivedFile>((done) => done(receive({ field: name, originalName: uploaded.originalName, declaredType: uploaded.declaredType, stream: through })));
        writing = taking.then((received) => {
          uploaded.received = received;
          // A receiver that stopped reading before the end kept part of a file.
          if (!through.readableEnded && !failure) throw new Error('the upload was not read to its end');
        });
      } else {
        uploaded.path = join(tmpdir(), `switchboard-upload-${randomUUID()}`);
        const out = createWriteStream(uploaded.path, { flags: 'wx', mode: 0o600 });
        // End the temporary file on a failure: the rest of the part is never read, so it would never end by itself.
        const stop = () => {
          stream.unpipe(out);
          out.end();
        };
        stream.on('error', stop);
        stream.on('limit', stop);
        writing = new Promise((done, broken) => {
          out.on('finish', done);
          out.on('error', broken);
          stream.pipe(out);
        });
      }
      writing.catch((error) => fail(error));
    });
    parser.on('filesLimit', () => fail(new ValidationError({ [spec.field]: ['only one file may be uploaded'] })));
    parser.on('fieldsLimit', () => fail(new ValidationError({ body: [`at most ${MAX_FIELDS} form fields`] })));
    parser.on('partsLimit', () => fail(new ValidationError({ body: [`at most ${MAX_FIELDS + 1} form parts`] })));
    parser.on('error', (error: Error) => fail(new BadRequestError(`Malformed multipart body: ${error.message}`)));
    parser.on('close', () => {
      if (failure) return;
      // The whole form is read and well-formed: now the receiver may see its file end.
      incoming?.end();
      void writing.then(
        () => {
          if (failure) return;
          if (!file && spec.required !== false) return fail(new ValidationError({ [spec.field]: ['a file is required'] }));
          resolve({ fields, file });
        },
        (error) => fail(error),
      );
    });
    req.on('aborted', () => fail(new BadRequestError('Request aborted')));
    req.on('error', (error: Error) => fail(new BadRequestError(`Request failed: ${error.message}`)));
    req.pipe(parser);
  });
}

export async function discardUpload(upload: ParsedUpload | undefined): Promise<void> {
  if (upload?.file) await discardFile(upload.file);
}

async function discardFile(file: UploadedFile): Promise<void> {
  // The kernel calls this without waiting (the response has ended): a store that fails
  // here must not become an unhandled rejection; what it left is the route's to log.
  if (file.received) await file.received.discard().catch(() => {});
  else if (file.path) await rm(file.path, { force: true });
}
