import busboy from 'busboy';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
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
  path: string;
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
 * temporary file. More than `maxBytes` in the file is a 413; a file in another field,
 * or a second file, is a 422. The caller deletes the file (`discardUpload`).
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
    let failure: Error | undefined;
    const fail = (error: Error) => {
      if (failure) return;
      failure = error;
      req.unpipe(parser);
      // Keep reading so the client gets the answer instead of a reset connection.
      req.resume();
      void writing.finally(() => (file ? rm(file.path, { force: true }) : undefined)).then(() => reject(error));
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
      const path = join(tmpdir(), `switchboard-upload-${randomUUID()}`);
      const uploaded: UploadedFile = { field: name, originalName: info.filename ?? '', declaredType: info.mimeType, size: 0, path };
      file = uploaded;
      const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
      stream.on('data', (chunk: Buffer) => (uploaded.size += chunk.length));
      // A body cut off inside the file part errors this stream (busboy: "Unexpected end of
      // form"); pipe() does not forward stream errors, and an unhandled one ends the process.
      stream.on('error', (error: Error) => {
        stream.unpipe(out);
        out.end();
        fail(new BadRequestError(`Malformed multipart body: ${error.message}`));
      });
      stream.on('limit', () => {
        // End the temporary file here: the rest of the part is never read, so it would never end by itself.
        stream.unpipe(out);
        out.end();
        fail(new PayloadTooLargeError(`The uploaded file exceeds the upload limit of ${maxBytes} bytes`));
      });
      writing = new Promise((done, broken) => {
        out.on('finish', done);
        out.on('error', broken);
        stream.pipe(out);
      });
      writing.catch((error) => fail(error));
    });
    parser.on('filesLimit', () => fail(new ValidationError({ [spec.field]: ['only one file may be uploaded'] })));
    parser.on('fieldsLimit', () => fail(new ValidationError({ body: [`at most ${MAX_FIELDS} form fields`] })));
    parser.on('partsLimit', () => fail(new ValidationError({ body: [`at most ${MAX_FIELDS + 1} form parts`] })));
    parser.on('error', (error: Error) => fail(new BadRequestError(`Malformed multipart body: ${error.message}`)));
    parser.on('close', () => {
      if (failure) return;
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
  if (upload?.file) await rm(upload.file.path, { force: true });
}
