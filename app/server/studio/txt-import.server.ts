import { DEFAULT_SEPARATOR } from "~/schemas/work";
import { countWords } from "~/utils/text";
import { DomainError } from "~/server/platform/errors.server";
/** Largest TXT file accepted for a multi-chapter import. @internal */
export const TXT_MAX_BYTES = 20 * 1024 * 1024;
const TXT_TOO_LARGE_MESSAGE = "TXT文件不能超过20MB";
/** Most chapters one import may create. @internal */
export const TXT_MAX_CHAPTERS = 10_000;
/** The chapter separator of docs/product.md: Constants, shared with the publish form. */
export const DEFAULT_CHAPTER_SEPARATOR = DEFAULT_SEPARATOR;
const SEPARATOR_MAX_LENGTH = 20;
/** @internal */
export const CHAPTER_TITLE_MAX_LENGTH = 200;

/** @internal */
export const NO_CHAPTERS_MESSAGE = "未能从TXT文件中解析出任何章节，请检查章节分隔符";

/** A TXT import refused for a reason the author can act on (400); `message` is shown as is. */
export class TxtImportError extends DomainError {
  constructor(message: string) {
    super(message, 400);
    this.name = "TxtImportError";
  }
}

export interface ParsedChapter {
  title: string;
  content: string;
  wordCount: number;
}

// Bytes of the first part of a file checked for NUL, the surest sign of binary data.
const SNIFF_BYTES = 8192;

// Formats whose files are mostly printable near the start (so the NUL check can miss them).
const BINARY_SIGNATURES: number[][] = [
  [0x25, 0x50, 0x44, 0x46, 0x2d], // %PDF-
  [0x50, 0x4b, 0x03, 0x04], // zip, docx, epub
  [0x89, 0x50, 0x4e, 0x47], // png
  [0xff, 0xd8, 0xff], // jpeg
  [0x47, 0x49, 0x46, 0x38], // GIF8
  [0x1f, 0x8b], // gzip
  [0x52, 0x61, 0x72, 0x21], // Rar!
  [0x37, 0x7a, 0xbc, 0xaf], // 7z
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0xd0, 0xcf, 0x11, 0xe0], // OLE (.doc)
];

function startsWithBytes(bytes: Uint8Array, prefix: number[]): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

function notText(): TxtImportError {
  return new TxtImportError("文件不是有效的文本文件，请上传TXT格式的小说");
}

// Bytes decoded at a time: the text is never built whole, only its chapters are.
const DECODE_CHUNK_BYTES = 64 * 1024;

/** The strict decoder refused a byte sequence. */
class InvalidSequence extends Error {}

/** An uploaded file's bytes: one buffer, or the chunks it arrived in (never joined). */
export type TxtBytes = Uint8Array | readonly Uint8Array[];

/** The text in pieces of at most DECODE_CHUNK_BYTES bytes, decoded as they are asked for. */
function* decodeStrictly(chunks: readonly Uint8Array[], encoding: string): Generator<string> {
  const decoder = new TextDecoder(encoding, { fatal: true });
  const decode = (input?: Uint8Array, stream = false) => {
    try {
      return decoder.decode(input, { stream });
    } catch (error) {
      if (error instanceof TypeError) throw new InvalidSequence();
      throw error;
    }
  };
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += DECODE_CHUNK_BYTES) {
      yield decode(chunk.subarray(at, Math.min(at + DECODE_CHUNK_BYTES, chunk.length)), true);
    }
  }
  // The end of the file: a sequence cut short there is invalid.
  yield decode();
}

/**
 * The whole file decoded loosely (U+FFFD for every invalid sequence) and how many there
 * were. Not piece by piece: Node's GB18030 decoder throws on some invalid sequences cut by
 * a chunk boundary even when not fatal. Only for files no strict decoding accepts.
 */
function decodeLoosely(chunks: readonly Uint8Array[], encoding: string): { text: string; invalid: number } {
  const text = new TextDecoder(encoding).decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  let invalid = 0;
  for (let i = text.indexOf("\uFFFD"); i !== -1; i = text.indexOf("\uFFFD", i + 1)) invalid++;
  return { text, invalid };
}

/** The characters of a decoded text that tell binary data or a wrong encoding. */
interface Tally {
  length: number;
  /** C0 controls other than tab, newline, form feed and carriage return, DEL, C1 controls. */
  controls: number;
  /** Characters outside ASCII. */
  nonAscii: number;
  /** Private-use characters and U+FFFD: what a wrong guess of the encoding decodes into. */
  implausible: number;
  /** Read as GB18030: the two counts below are kept (docs/decisions/055, Japanese files). */
  gb: boolean;
  /** Characters outside GB2312 (the set a GBK novel is nearly all made of). */
  outsideGb2312: number;
  /** Hiragana and katakana (U+3040-U+30FF). */
  kana: number;
}

/**
 * GB2312's characters, as a map of BMP code units: its rows A1-F7 decoded once. A Chinese
 * novel in GBK/GB18030 is made of them almost entirely (西游记: all but 0.13% of its non-ASCII
 * characters); Shift-JIS read as GB18030 is valid but lands outside them (99%).
 */
let gb2312Map: Uint8Array | null = null;
function gb2312(): Uint8Array {
  if (gb2312Map) return gb2312Map;
  const bytes: number[] = [];
  for (let lead = 0xa1; lead <= 0xf7; lead++) for (let trail = 0xa1; trail <= 0xfe; trail++) bytes.push(lead, trail);
  const text = new TextDecoder("gb18030").decode(new Uint8Array(bytes));
  const map = new Uint8Array(0x10000);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Unassigned cells of rows A1-A9 decode to private use: not GB2312.
    if (c !== 0xfffd && !(c >= 0xe000 && c <= 0xf8ff)) map[c] = 1;
  }
  return (gb2312Map = map);
}

/**
 * Adds a piece's characters to the tally, in one pass over its UTF-16 code units. Private
 * use: U+E000-U+F8FF and planes 15-16 (high surrogates U+DB80-U+DBFF). Big5 read as
 * GB18030 is valid but lands in GBK's user-defined (private-use) areas: its punctuation
 * (，= A1 41, 。= A1 43) and whole lead-byte rows do; real GBK/GB18030 and UTF-8 novels
 * have next to none (docs/decisions/055).
 */
function tally(t: Tally, text: string): void {
  let controls = 0;
  let nonAscii = 0;
  let implausible = 0;
  let outside = 0;
  let kana = 0;
  const inGb2312 = t.gb ? gb2312() : null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      if (c < 0x20 ? c !== 0x09 && c !== 0x0a && c !== 0x0c && c !== 0x0d : c === 0x7f) controls++;
      continue;
    }
    nonAscii++;
    if (c <= 0x9f) controls++;
    else if ((c >= 0xe000 && c <= 0xf8ff) || c === 0xfffd || (c >= 0xdb80 && c <= 0xdbff)) implausible++;
    if (inGb2312) {
      if (inGb2312[c] === 0) outside++;
      else if (c >= 0x3040 && c <= 0x30ff) kana++;
    }
  }
  t.length += text.length;
  t.controls += controls;
  t.nonAscii += nonAscii;
  t.implausible += implausible;
  t.outsideGb2312 += outside;
  t.kana += kana;
}

/** @internal */
export const UNSUPPORTED_ENCODING_MESSAGE =
  "无法识别文件的编码（可能是繁体 Big5 等编码）：请将TXT另存为 UTF-8、GBK/GB18030 或带 BOM 的 UTF-16 后再上传";
/** @internal */
export const JAPANESE_ENCODING_MESSAGE =
  "日文编码 Shift-JIS/EUC-JP 不受支持：请将TXT另存为 UTF-8、GBK/GB18030 或带 BOM 的 UTF-16 后再上传";

/** Non-ASCII characters a text needs before their proportions say anything of its encoding. */
const PROPORTION_MIN = 20;
/** Bytes from the start of a refused file that are read again as Japanese to name it. */
const JAPANESE_SNIFF_BYTES = 64 * 1024;

/**
 * Whether the bytes read as Shift-JIS (cp932) or EUC-JP give Japanese: hiragana and
 * katakana in at least a tenth of the non-ASCII characters, next to no invalid sequences.
 * Chinese text read so has next to no kana (西游记 in GB18030 as either: under 0.1%).
 */
function looksJapanese(head: Uint8Array): boolean {
  return ["shift_jis", "euc-jp"].some((encoding) => {
    const text = new TextDecoder(encoding).decode(head);
    let nonAscii = 0;
    let kana = 0;
    let invalid = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) continue;
      nonAscii++;
      if (c >= 0x3040 && c <= 0x30ff) kana++;
      else if (c === 0xfffd) invalid++;
    }
    // A character cut at the end of the head is one invalid sequence.
    return nonAscii >= PROPORTION_MIN && kana * 10 >= nonAscii && invalid <= 1 + nonAscii * 0.01;
  });
}

/**
 * Refuses a text that is not prose: control characters (binary data), or a wrong guess of
 * the encoding (docs/decisions/055): private-use and replacement characters in more than
 * 1% of its non-ASCII characters (at least 3, so a stray one in a short file passes), or,
 * read as GB18030, more than half of them outside GB2312 (Shift-JIS) or a fifth of them
 * kana in a file that reads as Japanese (EUC-JP, whose kana and kanji are GB2312 cells).
 * The message names Japanese encodings when the bytes read as Japanese (`head`, only
 * read when the file is refused), the Big5-like rest otherwise.
 */
function checkTally(t: Tally, head: () => Uint8Array): void {
  if (t.controls >= 2 && t.controls > t.length * 0.001) throw notText();
  const enough = t.nonAscii >= PROPORTION_MIN;
  const wrong = (t.implausible >= 3 && t.implausible > t.nonAscii * 0.01) || (t.gb && enough && t.outsideGb2312 > t.nonAscii * 0.5);
  const kanaHeavy = t.gb && enough && t.kana > t.nonAscii * 0.2;
  if (!wrong && !kanaHeavy) return;
  if (looksJapanese(head())) throw new TxtImportError(JAPANESE_ENCODING_MESSAGE);
  if (wrong) throw new TxtImportError(UNSUPPORTED_ENCODING_MESSAGE);
}

/**
 * The pieces without a leading BOM, refusing binary data or a wrong encoding once the
 * last piece has been read (checkTally), before the consumer's own end-of-text checks.
 */
function* checkedPieces(pieces: Iterable<string>, read: { gb: boolean; head: () => Uint8Array }): Generator<string> {
  const t: Tally = { length: 0, controls: 0, nonAscii: 0, implausible: 0, gb: read.gb, outsideGb2312: 0, kana: 0 };
  let first = true;
  for (let piece of pieces) {
    if (first && piece.length > 0) {
      first = false;
      if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1);
    }
    tally(t, piece);
    yield piece;
  }
  checkTally(t, read.head);
}

/** The first `n` bytes of the chunks (fewer if there are fewer). */
function headOf(chunks: readonly Uint8Array[], n: number): Uint8Array {
  if (chunks.length === 0 || chunks[0].length >= n) return (chunks[0] ?? new Uint8Array()).subarray(0, n);
  const head = new Uint8Array(n);
  let size = 0;
  for (const chunk of chunks) {
    if (size >= n) break;
    const part = chunk.subarray(0, n - size);
    head.set(part, size);
    size += part.length;
  }
  return head.subarray(0, size);
}

/** Whether the whole file decodes strictly (decoded piece by piece, nothing kept). */
function decodesStrictly(chunks: readonly Uint8Array[], encoding: string): boolean {
  try {
    for (const _ of decodeStrictly(chunks, encoding));
    return true;
  } catch (error) {
    if (error instanceof InvalidSequence) return false;
    throw error;
  }
}

/**
 * An uploaded TXT file's text, in pieces decoded as they are read. UTF-8 (with or
 * without BOM) and UTF-16 with a BOM are recognised by their bytes; a file that is not
 * valid UTF-8 is read as GB18030, which covers GBK and GB2312, the usual encodings of
 * Chinese TXT novels. When neither decodes cleanly, the one with fewer invalid sequences
 * wins (a UTF-8 file with one bad byte stays UTF-8). The pieces keep their line ends
 * (\r\n, \r or \n).
 *
 * Empty, oversized and binary-looking files are refused here, before any piece is read;
 * the proportions of control and private-use characters are known only at the end, so
 * iterating the pieces throws there for a file that turns out not to be text or to be
 * in another encoding (Big5: docs/decisions/055). The encoding is decided
 * by a first strict decoding that keeps nothing, so no piece is ever taken back.
 */
function decodedText(bytes: TxtBytes): Iterable<string> {
  const chunks: readonly Uint8Array[] = bytes instanceof Uint8Array ? [bytes] : bytes;
  const size = chunks.reduce((n, c) => n + c.length, 0);
  if (size === 0) throw new TxtImportError("TXT文件是空的");
  if (size > TXT_MAX_BYTES) throw new TxtImportError(TXT_TOO_LARGE_MESSAGE);

  const head = headOf(chunks, SNIFF_BYTES);
  const japaneseHead = () => headOf(chunks, JAPANESE_SNIFF_BYTES);
  if (startsWithBytes(head, [0xff, 0xfe]) || startsWithBytes(head, [0xfe, 0xff])) {
    // UTF-16 text is full of NUL bytes, so it skips the byte-level checks.
    return checkedPieces([decodeLoosely(chunks, head[0] === 0xff ? "utf-16le" : "utf-16be").text], { gb: false, head: japaneseHead });
  }
  if (BINARY_SIGNATURES.some((sig) => startsWithBytes(head, sig))) throw notText();
  if (head.includes(0)) throw notText();
  // TextDecoder drops a UTF-8 BOM by itself.
  for (const encoding of ["utf-8", "gb18030"]) {
    if (decodesStrictly(chunks, encoding)) return checkedPieces(decodeStrictly(chunks, encoding), { gb: encoding === "gb18030", head: japaneseHead });
  }
  const gb = decodeLoosely(chunks, "gb18030");
  const utf8 = decodeLoosely(chunks, "utf-8");
  const asUtf8 = utf8.invalid < gb.invalid;
  return checkedPieces([asUtf8 ? utf8.text : gb.text], { gb: !asUtf8, head: japaneseHead });
}

/** An uploaded TXT file as one string with \n line ends (see decodedText). @internal */
export function decodeTxt(bytes: TxtBytes): string {
  return Array.from(decodedText(bytes)).join("").replace(/\r\n?/g, "\n");
}

/** The separator as the author typed it, trimmed; 1 to 20 characters on one line. */
function normalizeSeparator(separator: string): string {
  const sep = separator.trim();
  const length = Array.from(sep).length;
  if (length < 1 || length > SEPARATOR_MAX_LENGTH || /[\r\n]/.test(sep)) {
    throw new TxtImportError(`分隔符无效：请输入1到${SEPARATOR_MAX_LENGTH}个字符`);
  }
  return sep;
}

/**
 * The title, at most 200 characters, as a string of its own: V8 makes a slice of a long
 * string a view that keeps the whole string alive, and a title cut from a 64 KB piece of
 * the decoded text would keep that piece. The preview holds every title (12 MB of
 * pieces for a 10 MB TXT without this copy).
 */
function capTitle(title: string): string {
  let t = title.trim();
  if (t.length > CHAPTER_TITLE_MAX_LENGTH) t = Array.from(t).slice(0, CHAPTER_TITLE_MAX_LENGTH).join("").trim();
  // Concatenating makes a new flat string; the slice then refers to that copy only.
  return (" " + t).slice(1);
}

// Same whitespace as trim(), without making a trimmed copy of every line.
const isBlank = (line: string) => !/\S/.test(line);

/**
 * Splits text into chapters (docs/product.md: Rules, Publish):
 * - a chapter starts at every line that begins with the separator, in column one
 *   (indented lines are paragraphs: Chinese prose indents every paragraph);
 * - the title is the first non-blank line after the separator line, and the rest is the
 *   content; a separator line with text after the separator (`#### 第一回 灵根育孕`)
 *   carries the title itself, and everything below it is content;
 * - text before the first separator is not part of any chapter and is not imported;
 * - chapters without a title or without content are dropped.
 * Lines end at \r\n, \r or \n; they keep their leading indentation and lose trailing
 * whitespace; blank lines at the start and end of a chapter are dropped.
 *
 * The text may come in pieces (as a file is decoded) cut anywhere, even between \r and
 * \n: chapters are built line by line as the pieces arrive, so the whole text never
 * exists as one string. Linear in the length of the text.
 * @internal
 */
export function parseTxtChapters(
  text: string | Iterable<string>,
  separator: string = DEFAULT_CHAPTER_SEPARATOR,
): ParsedChapter[] {
  return Array.from(txtChapters(text, normalizeSeparator(separator)));
}

/**
 * parseTxtChapters as a generator: each chapter is yielded once its last line has been
 * read, so a caller can store chapters while the rest of the file is still being
 * decoded. The errors (too many chapters, none at all) are thrown at the end.
 */
function* txtChapters(text: string | Iterable<string>, sep: string): Generator<ParsedChapter> {
  let count = 0;
  let tooMany = false;
  let done: ParsedChapter | null = null;

  // The chapter being read: null before the first separator line.
  let title: string | null = null;
  let inChapter = false;
  let body: string[] = [];
  let blanks = 0;

  // Sets `done` when a chapter ends, for the loop below to yield.
  const finishChapter = () => {
    if (!inChapter || title === null || body.length === 0) return;
    if (count >= TXT_MAX_CHAPTERS) {
      tooMany = true;
      return;
    }
    count++;
    const content = body.join("\n");
    done = { title: capTitle(title), content, wordCount: countWords(content) };
  };

  const onLine = (line: string) => {
    if (line.startsWith(sep)) {
      finishChapter();
      const rest = line.slice(sep.length).trim();
      inChapter = true;
      title = rest === "" ? null : rest;
      body = [];
      blanks = 0;
    } else if (!inChapter) {
      // Text before the first separator: not imported.
    } else if (title === null) {
      if (!isBlank(line)) title = line.trim();
    } else if (isBlank(line)) {
      if (body.length > 0) blanks++;
    } else {
      for (; blanks > 0; blanks--) body.push("");
      body.push(line.trimEnd());
    }
  };

  // The unfinished last line of the pieces so far, and whether a piece ended with \r
  // (a \n opening the next piece then belongs to that line end).
  let carry: string[] = [];
  let afterCr = false;
  const lineEnd = /\r\n?|\n/g;
  for (const piece of typeof text === "string" ? [text] : text) {
    let from = afterCr && piece.charCodeAt(0) === 0x0a ? 1 : 0;
    if (piece.length > 0) afterCr = false;
    lineEnd.lastIndex = from;
    for (let m = lineEnd.exec(piece); m !== null; m = lineEnd.exec(piece)) {
      const part = piece.slice(from, m.index);
      if (carry.length > 0) {
        carry.push(part);
        onLine(carry.join(""));
        carry = [];
      } else {
        onLine(part);
      }
      if (done) {
        yield done;
        done = null;
      }
      from = m.index + m[0].length;
      if (m[0] === "\r" && from === piece.length) afterCr = true;
    }
    if (from < piece.length) carry.push(piece.slice(from));
  }
  onLine(carry.join(""));
  if (done) yield done;
  done = null;
  finishChapter();
  if (done) yield done;

  if (tooMany) throw new TxtImportError(`章节数量不能超过${TXT_MAX_CHAPTERS}章`);
  if (count === 0) throw new TxtImportError(NO_CHAPTERS_MESSAGE);
}

/**
 * An uploaded TXT file's chapters as they are decoded and split (see decodedText and
 * parseTxtChapters): the file's bytes and the chapters not yet consumed are held, never
 * the whole text, its lines or a copy with normalised line ends. The separator and the
 * file's bytes are checked when this is called; the rest of the errors come while
 * iterating, at the end of the file.
 */
export function streamTxtChapters(
  bytes: TxtBytes,
  separator: string = DEFAULT_CHAPTER_SEPARATOR,
): Iterable<ParsedChapter> {
  // Check the separator before decoding megabytes for nothing.
  const sep = normalizeSeparator(separator);
  return txtChapters(decodedText(bytes), sep);
}

/** An uploaded TXT file to chapters, all of them (streamTxtChapters, collected). @internal */
export function readTxtChapters(
  bytes: TxtBytes,
  separator: string = DEFAULT_CHAPTER_SEPARATOR,
): ParsedChapter[] {
  return Array.from(streamTxtChapters(bytes, separator));
}
