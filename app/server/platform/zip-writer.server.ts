import { availableParallelism } from "node:os";
import { promisify } from "node:util";
import { constants, crc32, deflateRaw } from "node:zlib";

/**
 * A streaming zip writer whose entries are deflated on several cores (decision 011).
 *
 * An entry's data is cut into blocks. Each block is deflated on its own, on libuv's thread
 * pool (Node's async zlib), with the previous block's last 32 KB as its dictionary, so its
 * matches may reach back across the cut exactly as in one stream; every block but the last
 * ends with a sync flush (byte-aligned, not final) and the last with Z_FINISH, so the blocks
 * joined in order are one valid raw deflate stream, as pigz makes them. A few blocks are in
 * flight at once, and the output is read in order: memory is bounded by the blocks in
 * flight, whatever the size of the entry.
 *
 * The archive is written front to back with no seeking: a local header with the data
 * descriptor flag (CRC and sizes unknown yet), the data, a data descriptor, and at the end
 * the central directory. ZIP64 records are written where a size or an offset does not fit
 * in 32 bits (a large site's SQL can exceed 4 GB); as in Go's archive/zip, a data
 * descriptor that needs 8-byte sizes gets them without a ZIP64 field in the local header
 * (written before the size was known): readers take sizes from the central directory.
 * A small entry can also be stored as is, sizes known up front (addStoredEntry: an EPUB's
 * `mimetype`, decision 097).
 */

const deflateRawAsync = promisify(deflateRaw);

/** deflate's window: a block's dictionary is this much of the data before it. */
const WINDOW = 32 * 1024;
const MAX_32 = 0xffffffff;
const MAX_16 = 0xffff;

const SIG_LOCAL = 0x04034b50;
const SIG_DESCRIPTOR = 0x08074b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_ZIP64_END = 0x06064b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_END = 0x06054b50;

const FLAG_MAX_COMPRESSION = 1 << 1; // deflate option bits 1-2 = 01: level 9 ("-9")
const FLAG_DATA_DESCRIPTOR = 1 << 3;
const FLAG_UTF8 = 1 << 11;
const METHOD_STORE = 0;
const METHOD_DEFLATE = 8;
const VERSION_DEFLATE = 20; // 2.0: deflate, data descriptor
const VERSION_ZIP64 = 45; // 4.5: ZIP64
const MADE_BY_UNIX = 3 << 8;
const EXTRA_ZIP64 = 0x0001;
const EXTRA_TIMESTAMP = 0x5455; // "UT": modification time as Unix seconds (UTC)

export interface ZipWriterOptions {
  /** zlib level (default 9) and memLevel (default 9). */
  level?: number;
  memLevel?: number;
  /** Bytes of entry data per deflate block (default 1 MB; at least 32 KB). */
  blockSize?: number;
  /** Blocks deflating or waiting to be read at once (default: cores + 1, at most 3). */
  blocksInFlight?: number;
  /**
   * Sizes and offsets from this value on are written as ZIP64 (default 0xffffffff, where
   * the 32-bit fields end). Tests set 0 to write every ZIP64 record without writing 4 GB.
   */
  zip64From?: number;
}

interface EntryRecord {
  name: Buffer;
  flags: number;
  method: number;
  dosTime: number;
  dosDate: number;
  unixTime: number;
  crc: number;
  size: number;
  compressedSize: number;
  offset: number;
}

/** A piece of the archive, in order: a deflated block on its way, or a record made when its turn comes. */
type Piece = { block: Promise<Uint8Array> } | { later: () => Uint8Array };

const noop = () => {};

function dosDateTime(date: Date): { dosDate: number; dosTime: number } {
  // DOS time is local time, 1980-2107, 2-second resolution.
  const year = Math.min(Math.max(date.getFullYear(), 1980), 2107);
  return {
    dosDate: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
    dosTime: (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
  };
}

function timestampExtra(unixTime: number): Buffer {
  const b = Buffer.alloc(9);
  b.writeUInt16LE(EXTRA_TIMESTAMP, 0);
  b.writeUInt16LE(5, 2);
  b.writeUInt8(1, 4); // modification time present
  b.writeUInt32LE(unixTime >>> 0, 5);
  return b;
}

function uint64(value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(value));
  return b;
}

export class ZipWriter implements AsyncIterable<Uint8Array>, AsyncIterator<Uint8Array> {
  private readonly level: number;
  private readonly memLevel: number;
  private readonly blockSize: number;
  private readonly blocksInFlight: number;
  private readonly zip64From: number;

  private readonly entries: EntryRecord[] = [];
  private readonly queue: Piece[] = [];
  private blocksQueued = 0;
  /** Bytes handed to the reader so far: the offset of the next piece. */
  private offset = 0;

  private entry: EntryRecord | null = null;
  private block: Buffer | null = null;
  private blockLength = 0;
  /**
   * Block buffers whose deflate has finished, to fill again: allocating a new 1 MB buffer
   * for every block would have the garbage collector run a full collection every few
   * blocks (V8 counts the memory of buffers towards its collection triggers).
   */
  private readonly spare: Buffer[] = [];
  /** The end of the entry's data so far (up to 32 KB), the next block's dictionary. */
  private readonly history = Buffer.allocUnsafe(WINDOW);
  private historyLength = 0;

  private finished = false;
  private failure: Error | null = null;
  private closed = false;
  private wakeReader: (() => void) | null = null;
  private wakeWriter: (() => void) | null = null;

  constructor(options: ZipWriterOptions = {}) {
    this.level = options.level ?? 9;
    this.memLevel = options.memLevel ?? 9;
    this.blockSize = options.blockSize ?? 1024 * 1024;
    if (this.blockSize < WINDOW) throw new RangeError(`blockSize must be at least ${WINDOW}`);
    // One block more than cores, so a core is not left idle while the oldest block is read.
    // Node's thread pool has 4 threads by default: at most 3 blocks leaves one for the
    // file system, DNS and password hashing of the rest of the site.
    this.blocksInFlight = Math.max(1, options.blocksInFlight ?? Math.min(availableParallelism() + 1, 3));
    this.zip64From = options.zip64From ?? MAX_32;
  }

  // ---- writing ---------------------------------------------------------------------

  /** Starts an entry (a file); its data follows with write() and ends with endEntry(). */
  async startEntry(name: string, date: Date = new Date()): Promise<void> {
    this.assertOpen();
    if (this.entry) throw new Error("the previous entry is not ended");
    const { dosDate, dosTime } = dosDateTime(date);
    const entry: EntryRecord = {
      name: Buffer.from(name, "utf8"),
      flags: FLAG_DATA_DESCRIPTOR | FLAG_UTF8 | (this.level === 9 ? FLAG_MAX_COMPRESSION : 0),
      method: METHOD_DEFLATE,
      dosDate,
      dosTime,
      unixTime: Math.floor(date.getTime() / 1000),
      crc: 0,
      size: 0,
      compressedSize: 0,
      offset: 0,
    };
    this.entry = entry;
    this.entries.push(entry);
    this.historyLength = 0;
    this.push({
      later: () => {
        entry.offset = this.offset;
        return this.localHeader(entry);
      },
    });
  }

  /**
   * A small entry stored as is (not deflated), its CRC and sizes in the local header and
   * no extra field or data descriptor: what EPUB asks of its first entry, `mimetype`
   * (OCF: readers find "mimetype" + the media type at byte 30). Not for large data.
   */
  async addStoredEntry(name: string, data: string | Uint8Array, date: Date = new Date()): Promise<void> {
    this.assertOpen();
    if (this.entry) throw new Error("the previous entry is not ended");
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data);
    if (bytes.byteLength >= this.zip64From) throw new RangeError("a stored entry must be small");
    const { dosDate, dosTime } = dosDateTime(date);
    const entry: EntryRecord = {
      name: Buffer.from(name, "utf8"),
      flags: FLAG_UTF8,
      method: METHOD_STORE,
      dosDate,
      dosTime,
      unixTime: Math.floor(date.getTime() / 1000),
      crc: crc32(bytes),
      size: bytes.byteLength,
      compressedSize: bytes.byteLength,
      offset: 0,
    };
    this.entries.push(entry);
    this.push({
      later: () => {
        entry.offset = this.offset;
        return Buffer.concat([this.localHeader(entry, false), bytes]);
      },
    });
  }

  /**
   * Adds data to the current entry: a piece, or several in order (the rows of a batch,
   * copied without joining them first). Resolves when the writer may go on
   * (back-pressure).
   */
  async write(chunk: string | Uint8Array | readonly Uint8Array[]): Promise<void> {
    this.assertOpen();
    if (!this.entry) throw new Error("no entry started");
    const pieces: readonly Uint8Array[] =
      typeof chunk === "string" ? [Buffer.from(chunk, "utf8")] : chunk instanceof Uint8Array ? [chunk] : chunk;
    for (const piece of pieces) {
      let at = 0;
      while (at < piece.byteLength) {
        this.block ??= this.spare.pop() ?? Buffer.allocUnsafe(this.blockSize);
        const n = Math.min(piece.byteLength - at, this.blockSize - this.blockLength);
        this.block.set(n === piece.byteLength ? piece : piece.subarray(at, at + n), this.blockLength);
        this.blockLength += n;
        at += n;
        // Throws once the writer is destroyed (a cancelled download): the rest is dropped.
        if (this.blockLength === this.blockSize) await this.flushBlock(false);
      }
    }
  }

  /** Ends the current entry: its last block, then its data descriptor. */
  async endEntry(): Promise<void> {
    this.assertOpen();
    const entry = this.entry;
    if (!entry) throw new Error("no entry started");
    await this.flushBlock(true);
    this.entry = null;
    this.historyLength = 0;
    // When its turn comes, every block of the entry has been read: the sizes are known.
    this.push({ later: () => this.dataDescriptor(entry) });
  }

  /** Writes the central directory and ends the archive. */
  async finish(): Promise<void> {
    this.assertOpen();
    if (this.entry) throw new Error("an entry is not ended");
    this.push({ later: () => this.centralDirectory() });
    this.finished = true;
    this.wakeReader?.();
  }

  /** Stops: pending and later writes fail, the reader ends (with `error`, if given). */
  destroy(error?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.failure = error ?? null;
    this.queue.length = 0;
    this.blocksQueued = 0;
    this.block = null;
    this.spare.length = 0;
    this.wakeReader?.();
    this.wakeWriter?.();
  }

  get destroyed(): boolean {
    return this.closed;
  }

  private assertOpen() {
    if (this.closed) throw new Error("zip writer closed");
    if (this.finished) throw new Error("zip writer finished");
  }

  private async flushBlock(last: boolean): Promise<void> {
    const entry = this.entry!;
    const buffer = this.block;
    const input = buffer ? buffer.subarray(0, this.blockLength) : Buffer.alloc(0);
    this.block = null;
    this.blockLength = 0;
    if (input.byteLength === 0 && !last) return;
    entry.crc = crc32(input, entry.crc);
    entry.size += input.byteLength;
    await this.roomForBlock();
    const block = deflateRawAsync(input, {
      level: this.level,
      memLevel: this.memLevel,
      // zlib copies the dictionary when the deflate is created (here, synchronously).
      dictionary: this.historyLength > 0 ? this.history.subarray(0, this.historyLength) : undefined,
      // Not final and byte-aligned, so the next block's bits simply follow.
      finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH,
      // One output buffer for a block of text (SQL deflates to well under 3/4 of its size),
      // so the thread pool hands back once; incompressible data takes a second round. Sized
      // by the input, not the block: an EPUB's 3,000 small chapters would each allocate
      // (and leave to the garbage collector) a buffer of 3/4 of a block.
      chunkSize: Math.max(1024, Math.ceil((input.byteLength * 3) / 4)),
    }).then((out) => {
      entry.compressedSize += out.byteLength;
      if (buffer && !this.closed && this.spare.length <= this.blocksInFlight) this.spare.push(buffer);
      return out as Uint8Array;
    });
    // A block abandoned by destroy() must not become an unhandled rejection.
    block.catch(noop);
    this.blocksQueued++;
    this.push({ block });
    // The next block's dictionary: the last 32 KB of the data so far (a block is at least 32 KB).
    if (!last) this.historyLength = input.copy(this.history, 0, Math.max(0, input.byteLength - WINDOW));
  }

  /** Waits while as many blocks as allowed are deflating or waiting to be read. */
  private async roomForBlock(): Promise<void> {
    while (!this.closed && this.blocksQueued >= this.blocksInFlight) {
      await new Promise<void>((resolve) => {
        this.wakeWriter = resolve;
      });
      this.wakeWriter = null;
    }
    if (this.closed) throw new Error("zip writer closed");
  }

  private push(piece: Piece): void {
    this.queue.push(piece);
    this.wakeReader?.();
  }

  // ---- reading ---------------------------------------------------------------------

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this;
  }

  /** The archive's next bytes, in order. */
  async next(): Promise<IteratorResult<Uint8Array>> {
    for (;;) {
      if (this.closed) {
        if (this.failure) throw this.failure;
        return { value: undefined, done: true };
      }
      const piece = this.queue[0];
      if (piece) {
        let bytes: Uint8Array;
        if ("later" in piece) bytes = piece.later();
        else {
          try {
            bytes = await piece.block;
          } catch (error) {
            this.destroy(error instanceof Error ? error : new Error(String(error)));
            continue;
          }
          if (this.closed) continue;
        }
        this.queue.shift();
        if ("block" in piece) {
          this.blocksQueued--;
          this.wakeWriter?.();
        }
        this.offset += bytes.byteLength;
        if (bytes.byteLength === 0) continue;
        return { value: bytes, done: false };
      }
      if (this.finished) return { value: undefined, done: true };
      await new Promise<void>((resolve) => {
        this.wakeReader = resolve;
      });
      this.wakeReader = null;
    }
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.destroy();
    return { value: undefined, done: true };
  }

  // ---- records ---------------------------------------------------------------------

  private zip64(value: number): boolean {
    return value >= this.zip64From;
  }

  private entryNeedsZip64(e: EntryRecord): boolean {
    return this.zip64(e.size) || this.zip64(e.compressedSize) || this.zip64(e.offset);
  }

  private localHeader(e: EntryRecord, withExtra = true): Uint8Array {
    const extra = withExtra ? timestampExtra(e.unixTime) : Buffer.alloc(0);
    const b = Buffer.alloc(30);
    b.writeUInt32LE(SIG_LOCAL, 0);
    b.writeUInt16LE(VERSION_DEFLATE, 4);
    b.writeUInt16LE(e.flags, 6);
    b.writeUInt16LE(e.method, 8);
    b.writeUInt16LE(e.dosTime, 10);
    b.writeUInt16LE(e.dosDate, 12);
    if (e.method === METHOD_STORE) {
      b.writeUInt32LE(e.crc >>> 0, 14);
      b.writeUInt32LE(e.compressedSize, 18);
      b.writeUInt32LE(e.size, 22);
    }
    // Otherwise CRC and sizes are zero here: the data descriptor after the data carries them.
    b.writeUInt16LE(e.name.byteLength, 26);
    b.writeUInt16LE(extra.byteLength, 28);
    return Buffer.concat([b, e.name, extra]);
  }

  private dataDescriptor(e: EntryRecord): Uint8Array {
    // 8-byte sizes only when a size really does not fit in 32 bits (not at zip64From):
    // streaming readers (Java's ZipInputStream) choose the descriptor's layout by the size
    // they have read, since the local header could not say.
    if (e.size >= MAX_32 || e.compressedSize >= MAX_32) {
      const b = Buffer.alloc(24);
      b.writeUInt32LE(SIG_DESCRIPTOR, 0);
      b.writeUInt32LE(e.crc >>> 0, 4);
      b.writeBigUInt64LE(BigInt(e.compressedSize), 8);
      b.writeBigUInt64LE(BigInt(e.size), 16);
      return b;
    }
    const b = Buffer.alloc(16);
    b.writeUInt32LE(SIG_DESCRIPTOR, 0);
    b.writeUInt32LE(e.crc >>> 0, 4);
    b.writeUInt32LE(e.compressedSize, 8);
    b.writeUInt32LE(e.size, 12);
    return b;
  }

  private centralHeader(e: EntryRecord): Buffer {
    // The ZIP64 field holds, in this order, only the values whose 32-bit field says 0xffffffff.
    const zip64: Buffer[] = [];
    const field32 = (value: number) => {
      if (!this.zip64(value)) return value;
      zip64.push(uint64(value));
      return MAX_32;
    };
    const size = field32(e.size);
    const compressedSize = field32(e.compressedSize);
    const offset = field32(e.offset);
    const extras = [timestampExtra(e.unixTime)];
    if (zip64.length > 0) {
      const head = Buffer.alloc(4);
      head.writeUInt16LE(EXTRA_ZIP64, 0);
      head.writeUInt16LE(8 * zip64.length, 2);
      extras.unshift(Buffer.concat([head, ...zip64]));
    }
    const extra = Buffer.concat(extras);
    const version = this.entryNeedsZip64(e) ? VERSION_ZIP64 : VERSION_DEFLATE;
    const b = Buffer.alloc(46);
    b.writeUInt32LE(SIG_CENTRAL, 0);
    b.writeUInt16LE(MADE_BY_UNIX | VERSION_ZIP64, 4);
    b.writeUInt16LE(version, 6);
    b.writeUInt16LE(e.flags, 8);
    b.writeUInt16LE(e.method, 10);
    b.writeUInt16LE(e.dosTime, 12);
    b.writeUInt16LE(e.dosDate, 14);
    b.writeUInt32LE(e.crc >>> 0, 16);
    b.writeUInt32LE(compressedSize, 20);
    b.writeUInt32LE(size, 24);
    b.writeUInt16LE(e.name.byteLength, 28);
    b.writeUInt16LE(extra.byteLength, 30);
    // comment length, disk number, internal attributes: 0
    b.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
    b.writeUInt32LE(offset, 42);
    return Buffer.concat([b, e.name, extra]);
  }

  private centralDirectory(): Uint8Array {
    const start = this.offset;
    const headers = this.entries.map((e) => this.centralHeader(e));
    const length = headers.reduce((n, h) => n + h.byteLength, 0);
    const count = this.entries.length;
    const zip64 = this.zip64(start) || this.zip64(length) || count >= MAX_16 || this.entries.some((e) => this.entryNeedsZip64(e));
    const parts: Buffer[] = [...headers];
    if (zip64) {
      const record = Buffer.alloc(56);
      record.writeUInt32LE(SIG_ZIP64_END, 0);
      record.writeBigUInt64LE(44n, 4); // the size of the rest of this record
      record.writeUInt16LE(MADE_BY_UNIX | VERSION_ZIP64, 12);
      record.writeUInt16LE(VERSION_ZIP64, 14);
      // this disk, the directory's disk: 0
      record.writeBigUInt64LE(BigInt(count), 24);
      record.writeBigUInt64LE(BigInt(count), 32);
      record.writeBigUInt64LE(BigInt(length), 40);
      record.writeBigUInt64LE(BigInt(start), 48);
      const locator = Buffer.alloc(20);
      locator.writeUInt32LE(SIG_ZIP64_LOCATOR, 0);
      locator.writeBigUInt64LE(BigInt(start + length), 8); // where the ZIP64 end record starts
      locator.writeUInt32LE(1, 16); // disks in all
      parts.push(record, locator);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(SIG_END, 0);
    end.writeUInt16LE(zip64 ? MAX_16 : count, 8);
    end.writeUInt16LE(zip64 ? MAX_16 : count, 10);
    end.writeUInt32LE(zip64 ? MAX_32 : length, 12);
    end.writeUInt32LE(zip64 ? MAX_32 : start, 16);
    parts.push(end);
    return Buffer.concat(parts);
  }
}
