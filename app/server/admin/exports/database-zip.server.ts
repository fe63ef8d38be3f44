import { writeDatabaseSql, type ExportProgress, type SqlWriter } from "./database.server";
import { webStreamFrom } from "~/server/platform/download.server";
import { FRAME_DATA, FRAME_ERROR, FRAME_PROGRESS } from "~/utils/export-frames";
import { ZipWriter, type ZipWriterOptions } from "~/server/platform/zip-writer.server";

/**
 * database.sql (see database.server.ts) zipped at maximum compression as it is written,
 * for the plain download and, framed with progress, for the export page.
 */

/** @internal */
export interface DatabaseZip {
  /** The zip bytes, in order; cancel() stops the export and releases the database. */
  chunks: AsyncIterator<Uint8Array>;
  cancel: (reason?: unknown) => void;
}

/**
 * Starts the export: database.sql written by writeDatabaseSql into a zip that is read as
 * it is produced. Level 9 is the export's "maximum compression" (docs/decisions/011-admin-exports.md); memLevel 9 is zlib's
 * "maximum memory for optimal speed" (on this SQL about 15% faster and a little smaller).
 * The SQL is deflated in 1 MB blocks on several cores (zip-writer.server.ts): one deflate
 * stream on one core took longer than the rest of the export together. Progress goes to
 * `onProgress`: tables up to 90%, 90% while the zip is finished, 100% at the end.
 * `zipOptions` is for tests (small blocks, ZIP64 records).
 * @internal
 */
export function createDatabaseZip(
  onProgress: (progress: ExportProgress) => void = () => {},
  zipOptions: ZipWriterOptions = {},
): DatabaseZip {
  const zip = new ZipWriter({ level: 9, memLevel: 9, ...zipOptions });
  let failed = false;
  const write: SqlWriter = (chunk) => zip.write(chunk);
  void zip
    .startEntry("database.sql", new Date())
    .then(() => writeDatabaseSql(write, onProgress))
    .then(async () => {
      onProgress({ stage: "compress", label: "生成压缩文件", detail: "正在压缩 database.sql", percent: 90 });
      await zip.endEntry();
      await zip.finish();
    })
    .catch((error: unknown) => {
      failed = true;
      // After cancel() the writer is closed and writeDatabaseSql stopped on purpose.
      if (!zip.destroyed) console.error("database export failed", error);
      zip.destroy(error instanceof Error ? error : new Error(String(error)));
    });

  const chunks: AsyncIterator<Uint8Array> = {
    async next() {
      const result = await zip.next();
      if (result.done && !failed && !zip.destroyed) onProgress({ stage: "done", label: "导出完成", detail: "database.zip", percent: 100 });
      return result;
    },
  };
  return {
    chunks,
    cancel: () => zip.destroy(),
  };
}

/** database.zip as a web stream, for the plain download (scripts, no JavaScript). */
export function databaseZipStream(signal?: AbortSignal): ReadableStream<Uint8Array> {
  const zip = createDatabaseZip();
  signal?.addEventListener("abort", () => zip.cancel());
  return webStreamFrom({ [Symbol.asyncIterator]: () => zip.chunks, destroy: () => zip.cancel() });
}

/** One frame: its type byte, the payload's length (4 bytes, big-endian), the payload. */
function frame(type: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + payload.byteLength);
  out[0] = type;
  new DataView(out.buffer).setUint32(1, payload.byteLength);
  out.set(payload, 5);
  return out;
}

/**
 * The same export for the page with JavaScript: one response carrying progress and the
 * zip bytes as frames — a type byte (P progress JSON, D data, E error JSON), a 4-byte
 * big-endian length, the payload — so progress and download share one request and the
 * export runs wherever that request lands, even behind a load balancer
 * (~/utils/export-frames has the type bytes).
 */
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
