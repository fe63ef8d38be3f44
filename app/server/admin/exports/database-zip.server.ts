import { PassThrough } from "node:stream";
import { ZipArchive } from "archiver";
import { writeDatabaseSql, type ExportProgress, type SqlWriter } from "./database.server";

/**
 * database.sql (see database.server.ts) zipped at maximum compression as it is written,
 * for the plain download and, framed with progress, for the export page.
 */

/** Waits until the stream wants more, or fails when it was closed (the download was cancelled). */
function drained(stream: PassThrough): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      stream.off("drain", onDrain);
      stream.off("close", onClose);
      stream.off("error", onClose);
    };
    const onDrain = () => {
      cleanup();
      resolve();
    };
    const onClose = () => {
      cleanup();
      reject(new Error("export stream closed"));
    };
    stream.on("drain", onDrain);
    stream.on("close", onClose);
    stream.on("error", onClose);
  });
}

export interface DatabaseZip {
  /** The zip bytes, in order; cancel() stops the export and releases the database. */
  chunks: AsyncIterator<Uint8Array>;
  cancel: (reason?: unknown) => void;
}

/**
 * Starts the export: database.sql written by writeDatabaseSql into a zip (deflate level
 * 9) that is read as it is produced. Progress goes to `onProgress`: tables up to 90%,
 * 90% while the zip is finished, 100% at the end.
 */
export function createDatabaseZip(onProgress: (progress: ExportProgress) => void = () => {}): DatabaseZip {
  const sqlStream = new PassThrough({ highWaterMark: 256 * 1024 });
  // Level 9 is the spec's "maximum compression". memLevel 9 (256 KB more deflate state
  // than the default 8) is zlib's "maximum memory for optimal speed": on this SQL it
  // deflates about 15% faster and a little smaller. Deflate runs on libuv's thread pool and comes back to
  // the main thread each time its output buffer is full: 256 KB buffers (16 KB by
  // default) mean 16x fewer hand-offs, so it waits less for a busy main thread.
  const archive = new ZipArchive({ zlib: { level: 9, memLevel: 9, chunkSize: 256 * 1024 } });
  // Errors reach the reader through the iterator below; these listeners only keep an
  // error after a cancelled download from becoming an uncaught exception.
  archive.on("error", () => {});
  sqlStream.on("error", () => {});
  archive.append(sqlStream as never, { name: "database.sql", date: new Date() });
  void archive.finalize().catch(() => {});

  let failed = false;
  const write: SqlWriter = async (chunk) => {
    if (sqlStream.destroyed) throw new Error("export stream closed");
    if (!sqlStream.write(chunk)) await drained(sqlStream);
  };
  void writeDatabaseSql(write, onProgress).then(
    () => {
      onProgress({ stage: "compress", label: "生成压缩文件", detail: "正在压缩 database.sql", percent: 90 });
      sqlStream.end();
    },
    (error) => {
      failed = true;
      if (!sqlStream.destroyed) console.error("database export failed", error);
      if (!archive.destroyed) archive.destroy(error instanceof Error ? error : new Error(String(error)));
      sqlStream.destroy();
    },
  );

  const iterator = (archive as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  const chunks: AsyncIterator<Uint8Array> = {
    async next() {
      const result = await iterator.next();
      if (result.done && !failed) onProgress({ stage: "done", label: "导出完成", detail: "database.zip", percent: 100 });
      return result;
    },
  };
  return {
    chunks,
    cancel: () => {
      sqlStream.destroy();
      archive.destroy();
    },
  };
}

/** database.zip as a web stream, for the plain download (scripts, no JavaScript). */
export function databaseZipStream(signal?: AbortSignal): ReadableStream<Uint8Array> {
  const zip = createDatabaseZip();
  signal?.addEventListener("abort", () => zip.cancel());
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await zip.chunks.next();
        if (cancelled) return;
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        if (!cancelled) controller.error(error);
      }
    },
    cancel() {
      cancelled = true;
      zip.cancel();
    },
  });
}

/**
 * The same export for the page with JavaScript: one response carrying progress and the
 * zip bytes as frames — a type byte (P progress JSON, D data, E error JSON), a 4-byte
 * big-endian length, the payload — so progress and download share one request and the
 * export runs wherever that request lands, even behind a load balancer.
 */
export const FRAME_PROGRESS = 0x50;
export const FRAME_DATA = 0x44;
export const FRAME_ERROR = 0x45;

function frame(type: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + payload.byteLength);
  out[0] = type;
  new DataView(out.buffer).setUint32(1, payload.byteLength);
  out.set(payload, 5);
  return out;
}

export function databaseExportFrames(signal?: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  let finished = false;
  let last: ExportProgress | null = null;
  let lastAt = 0;
  // Progress is sent as it happens (not only between zip chunks, which deflate may hold
  // back), at most every 200 ms unless the stage or the percentage changes.
  const sendProgress = (progress: ExportProgress) => {
    if (!controller || finished) return;
    const now = Date.now();
    const changed = !last || last.stage !== progress.stage || last.percent !== progress.percent;
    if (!changed && (last?.detail === progress.detail || now - lastAt < 200)) return;
    last = progress;
    lastAt = now;
    controller.enqueue(frame(FRAME_PROGRESS, encoder.encode(JSON.stringify(progress))));
  };
  const zip = createDatabaseZip(sendProgress);
  signal?.addEventListener("abort", () => zip.cancel());
  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull(c) {
      if (finished) return;
      try {
        const { value, done } = await zip.chunks.next();
        if (finished) return; // cancelled meanwhile
        if (done) {
          finished = true;
          c.close();
          return;
        }
        c.enqueue(frame(FRAME_DATA, value));
      } catch (error) {
        if (finished) return;
        finished = true;
        console.error("database export (with progress) failed", error);
        c.enqueue(frame(FRAME_ERROR, encoder.encode(JSON.stringify({ message: "导出失败，请重试" }))));
        c.close();
        zip.cancel();
      }
    },
    cancel() {
      finished = true;
      zip.cancel();
    },
  });
}
