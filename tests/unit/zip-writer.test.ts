import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ZipWriter, type ZipWriterOptions } from "~/server/platform/zip-writer.server";
import { quietFor } from "../fixtures/wait";

// Every archive is read back by two independent readers: Info-ZIP's unzip (Debian's
// `unzip`, which tests each entry's CRC) and Python's zipfile (which parses the central
// directory and ZIP64 records itself and checks each CRC while reading).

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-zip-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Entry {
  name: string;
  data: Buffer;
  /** How the data is handed to write(): one piece, or pieces of this size. */
  pieces?: number;
  /** Hand the pieces over this many at a time, as one array (as the export does a batch's rows). */
  perCall?: number;
}

async function readAll(zip: ZipWriter): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of zip) parts.push(chunk);
  return Buffer.concat(parts);
}

async function makeZip(entries: Entry[], options: ZipWriterOptions = {}): Promise<{ file: string; bytes: Buffer }> {
  const zip = new ZipWriter(options);
  const reading = readAll(zip);
  for (const entry of entries) {
    await zip.startEntry(entry.name, new Date("2026-11-22T08:30:42Z"));
    const step = entry.pieces ?? Math.max(1, entry.data.length);
    const pieces: Buffer[] = [];
    for (let at = 0; at < entry.data.length; at += step) pieces.push(entry.data.subarray(at, at + step));
    if (entry.perCall) {
      for (let i = 0; i < pieces.length; i += entry.perCall) await zip.write(pieces.slice(i, i + entry.perCall));
    } else {
      for (const piece of pieces) await zip.write(piece);
    }
    await zip.endEntry();
  }
  await zip.finish();
  const bytes = await reading;
  const file = path.join(dir, `${randomBytes(4).toString("hex")}.zip`);
  fs.writeFileSync(file, bytes);
  return { file, bytes };
}

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

/** Info-ZIP: the archive tests clean, and each entry extracts to the same bytes. */
async function checkWithUnzip(file: string, entries: Entry[]) {
  const test = await run("unzip", ["-tq", file]);
  expect(test.stdout).toMatch(/No errors detected/);
  for (const entry of entries) {
    const out = await run("unzip", ["-p", file, entry.name], { encoding: "buffer", maxBuffer: 64 * 1024 * 1024 });
    expect(sha256(out.stdout)).toBe(sha256(entry.data));
  }
}

interface PythonEntry {
  name: string;
  size: number;
  compressed: number;
  crc: number;
  method: number;
  flags: number;
  date: number[];
  sha256: string;
}

/**
 * Python's zipfile: names, sizes, method, flags, and the content (CRC checked on read);
 * and the data descriptor found after each entry's data, where the central directory says
 * the data ends (8-byte sizes only for sizes past 32 bits, as streaming readers expect).
 */
async function readWithPython(file: string): Promise<PythonEntry[]> {
  const script = `
import hashlib, json, struct, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[1], "rb") as f:
    out = []
    for i in z.infolist():
        data = z.read(i)
        f.seek(i.header_offset)
        n, m = struct.unpack("<HH", f.read(30)[26:30])
        f.seek(i.header_offset + 30 + n + m + i.compress_size)
        d = f.read(24)
        wide = i.file_size >= 0xffffffff or i.compress_size >= 0xffffffff
        sig, crc = struct.unpack("<II", d[:8])
        cs, us = struct.unpack("<QQ", d[8:24]) if wide else struct.unpack("<II", d[8:16])
        out.append({"name": i.filename, "size": i.file_size, "compressed": i.compress_size, "crc": i.CRC,
                    "method": i.compress_type, "flags": i.flag_bits, "date": list(i.date_time),
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "descriptor": {"signature": sig, "crc": crc, "compressed": cs, "size": us}})
    print(json.dumps(out))`;
  const { stdout } = await run("python3", ["-c", script, file], { maxBuffer: 16 * 1024 * 1024 });
  const entries = JSON.parse(stdout) as (PythonEntry & { descriptor: unknown })[];
  for (const e of entries) {
    expect(e.descriptor, e.name).toEqual({ signature: 0x08074b50, crc: e.crc, compressed: e.compressed, size: e.size });
  }
  return entries;
}

/** Where a 4-byte signature occurs in the archive. */
function hasSignature(bytes: Buffer, signature: number): boolean {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(signature);
  return bytes.indexOf(b) >= 0;
}

describe("ZipWriter", () => {
  it("writes an entry deflated in blocks that reach back into the blocks before them", async () => {
    // 20 KB of random bytes (incompressible) repeated: after its first copy, every block
    // is made of matches into the data before it, which only the previous block's tail as
    // dictionary makes possible. Deflated block by block without it, each 32 KB block
    // would hold at least one new copy of the 20 KB.
    const unit = randomBytes(20 * 1024);
    const data = Buffer.concat(Array.from({ length: 16 }, () => unit)); // 320 KB = 10 blocks
    const entries = [{ name: "repeated.bin", data, pieces: 7000 }];
    const { file, bytes } = await makeZip(entries, { blockSize: 32 * 1024, blocksInFlight: 3 });
    expect(bytes.length).toBeLessThan(24 * 1024);
    await checkWithUnzip(file, entries);
    const [entry] = await readWithPython(file);
    expect(entry).toMatchObject({ name: "repeated.bin", size: data.length, method: 8, sha256: sha256(data) });
    expect(entry.compressed).toBeLessThan(24 * 1024);
    // Data descriptor (bit 3), maximum compression (bit 1), UTF-8 name (bit 11).
    expect(entry.flags).toBe(0x080a);
  });

  it("compresses text across many blocks as well as one deflate stream does", async () => {
    const { deflateRawSync } = await import("node:zlib");
    const line = (i: number) => `(${i}, '第${i}章', '${"春眠不觉晓处处闻啼鸟夜来风雨声花落知多少".slice(i % 7, (i % 7) + 9)}${i * 7919}'),\n`;
    const data = Buffer.from(Array.from({ length: 40_000 }, (_, i) => line(i)).join(""));
    // Pieces of 1,000 bytes, 700 to a call: calls and pieces both cross block boundaries.
    const entries = [{ name: "database.sql", data, pieces: 1000, perCall: 700 }];
    const { file } = await makeZip(entries, { blockSize: 64 * 1024 });
    await checkWithUnzip(file, entries);
    const [entry] = await readWithPython(file);
    const oneStream = deflateRawSync(data, { level: 9, memLevel: 9 }).length;
    expect(entry.size).toBe(data.length);
    expect(entry.compressed).toBeLessThan(oneStream * 1.01);
  });

  it("writes an empty entry, a Chinese name, and data exactly filling its blocks", async () => {
    const entries = [
      { name: "empty.sql", data: Buffer.alloc(0) },
      { name: "数据库/导出.sql", data: Buffer.from("SELECT 1;\n".repeat(6553) + "--\n") }, // 65,533 bytes
      { name: "exact.bin", data: randomBytes(2 * 32 * 1024), pieces: 32 * 1024 }, // two full blocks, then an empty last one
    ];
    const { file } = await makeZip(entries, { blockSize: 32 * 1024 });
    await checkWithUnzip(file, entries);
    const read = await readWithPython(file);
    expect(read.map((e) => [e.name, e.size, e.sha256])).toEqual(entries.map((e) => [e.name, e.data.length, sha256(e.data)]));
    // The empty entry is still a deflate stream: one empty final block.
    expect(read[0]).toMatchObject({ size: 0, compressed: 2, crc: 0, method: 8 });
    // DOS time is local time, 2-second resolution.
    const local = new Date("2026-11-22T08:30:42Z");
    expect(read[1].date).toEqual([local.getFullYear(), local.getMonth() + 1, local.getDate(), local.getHours(), local.getMinutes(), 42]);
  });

  it("writes ZIP64 records where sizes and offsets pass the limit (all of them when forced)", async () => {
    const data = Buffer.from("INSERT INTO t VALUES (1, '长');\n".repeat(5000));
    const entries = [
      { name: "a.sql", data, pieces: 4096 },
      { name: "b.sql", data: Buffer.alloc(0) },
    ];
    const plain = await makeZip(entries, { blockSize: 32 * 1024 });
    expect(hasSignature(plain.bytes, 0x06064b50)).toBe(false);

    const { file, bytes } = await makeZip(entries, { blockSize: 32 * 1024, zip64From: 0 });
    // The ZIP64 end of central directory record and its locator, and an end record whose
    // 32-bit fields point to them.
    expect(hasSignature(bytes, 0x06064b50)).toBe(true);
    expect(hasSignature(bytes, 0x07064b50)).toBe(true);
    const end = bytes.subarray(bytes.length - 22);
    expect(end.readUInt32LE(0)).toBe(0x06054b50);
    expect([end.readUInt16LE(10), end.readUInt32LE(12), end.readUInt32LE(16)]).toEqual([0xffff, 0xffffffff, 0xffffffff]);
    // The locator (just before the end record) gives where the ZIP64 end record starts.
    const locator = bytes.subarray(bytes.length - 22 - 20, bytes.length - 22);
    expect(locator.readUInt32LE(0)).toBe(0x07064b50);
    expect(bytes.readUInt32LE(Number(locator.readBigUInt64LE(8)))).toBe(0x06064b50);
    await checkWithUnzip(file, entries);
    const read = await readWithPython(file);
    expect(read.map((e) => [e.name, e.size, e.sha256])).toEqual(entries.map((e) => [e.name, e.data.length, sha256(e.data)]));
    const zipinfo = await run("zipinfo", ["-v", file]);
    expect(zipinfo.stdout).toMatch(/minimum software version required to extract:\s+4\.5/);
  });

  it("holds the writer back while the blocks in flight are unread, and stops cleanly when destroyed", async () => {
    const zip = new ZipWriter({ blockSize: 32 * 1024, blocksInFlight: 2 });
    await zip.startEntry("big.bin");
    // Nobody reads: two blocks go in flight, then the writer waits.
    const writing = zip.write(randomBytes(10 * 32 * 1024));
    let settled = false;
    void writing.then(
      () => (settled = true),
      () => (settled = true),
    );
    await quietFor(200); // time in which the write would have finished, were it not held back
    expect(settled).toBe(false);
    // The local header and the first block can be read; then the download is dropped.
    const first = await zip.next();
    expect(Buffer.from(first.value!).readUInt32LE(0)).toBe(0x04034b50);
    zip.destroy();
    await expect(writing).rejects.toThrow(/closed/);
    await expect(zip.write("more")).rejects.toThrow(/closed/);
    expect(await zip.next()).toEqual({ value: undefined, done: true });
  });

  it("stops within a call of many pieces when destroyed", async () => {
    const zip = new ZipWriter({ blockSize: 32 * 1024, blocksInFlight: 1 });
    await zip.startEntry("rows.sql");
    const rows = Array.from({ length: 100 }, () => randomBytes(8 * 1024)); // 25 blocks in one call
    const writing = zip.write(rows);
    void writing.catch(() => {});
    const first = await zip.next(); // the local header
    expect(Buffer.from(first.value!).readUInt32LE(0)).toBe(0x04034b50);
    const second = await zip.next(); // the first block; the writer now waits on the second
    expect(second.done).toBe(false);
    zip.destroy();
    await expect(writing).rejects.toThrow(/closed/);
    expect(await zip.next()).toEqual({ value: undefined, done: true });
  });

  it("passes a failure to the reader", async () => {
    const zip = new ZipWriter();
    await zip.startEntry("x.sql");
    await zip.write("partial");
    zip.destroy(new Error("database went away"));
    await expect(zip.next()).rejects.toThrow("database went away");
  });
});

describe("ZipWriter stored entries", () => {
  it("writes a stored first entry with its sizes in the local header and no extra field, then deflated ones", async () => {
    const zip = new ZipWriter({ level: 6, blockSize: 32 * 1024 });
    const reading = readAll(zip);
    await zip.addStoredEntry("mimetype", "application/epub+zip", new Date("2026-11-22T08:30:42Z"));
    const text = Buffer.from("第一章 雨夜\n".repeat(5000));
    await zip.startEntry("OEBPS/text/c1.xhtml", new Date("2026-11-22T08:30:42Z"));
    await zip.write(text);
    await zip.endEntry();
    await zip.finish();
    const bytes = await reading;
    // The OCF rule readers rely on: "mimetype" and its content at byte 30.
    expect(bytes.subarray(30, 58).toString("latin1")).toBe("mimetypeapplication/epub+zip");
    expect(bytes.readUInt16LE(8)).toBe(0); // method: stored
    expect(bytes.readUInt16LE(6) & 0x08).toBe(0); // no data descriptor
    expect(bytes.readUInt16LE(28)).toBe(0); // extra field length
    expect(bytes.readUInt32LE(18)).toBe(20); // compressed size = size
    const file = path.join(dir, "stored.zip");
    fs.writeFileSync(file, bytes);
    await checkWithUnzip(file, [
      { name: "mimetype", data: Buffer.from("application/epub+zip") },
      { name: "OEBPS/text/c1.xhtml", data: text },
    ]);
  });
});
