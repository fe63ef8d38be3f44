import { DEFAULT_SEPARATOR } from "~/schemas/work";
import { countWords } from "~/utils/text";
/** Largest TXT file accepted for a multi-chapter import. */
export const TXT_MAX_BYTES = 20 * 1024 * 1024;
/** Most chapters one import may create. */
export const TXT_MAX_CHAPTERS = 10_000;
/** The chapter separator of user-side.md section 9, shared with the publish form. */
export const DEFAULT_CHAPTER_SEPARATOR = DEFAULT_SEPARATOR;
export const SEPARATOR_MAX_LENGTH = 20;
export const CHAPTER_TITLE_MAX_LENGTH = 200;

export const NO_CHAPTERS_MESSAGE = "未能从TXT文件中解析出任何章节，请检查章节分隔符";

/** A TXT import refused for a reason the author can act on; `message` is shown as is. */
export class TxtImportError extends Error {
  constructor(message: string) {
    super(message);
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

/** Decodes without throwing and counts U+FFFD, the decoder's mark for an invalid sequence. */
function decodeLoosely(bytes: Uint8Array, encoding: string): { text: string; invalid: number } {
  const text = new TextDecoder(encoding).decode(bytes);
  let invalid = 0;
  for (let i = text.indexOf("\uFFFD"); i !== -1; i = text.indexOf("\uFFFD", i + 1)) invalid++;
  return { text, invalid };
}

function decodeStrictly(bytes: Uint8Array, encoding: string): string | null {
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Characters that do not occur in prose: C0 controls other than tab, newline, form feed
 * and carriage return, DEL, C1 controls, and U+FFFD. Many of them mean binary data or a
 * wrong guess of the encoding.
 */
function countSuspicious(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20) {
      if (c !== 0x09 && c !== 0x0a && c !== 0x0c && c !== 0x0d) n++;
    } else if ((c >= 0x7f && c <= 0x9f) || c === 0xfffd) {
      n++;
    }
  }
  return n;
}

/**
 * Turns an uploaded TXT file into text. UTF-8 (with or without BOM) and UTF-16 with a
 * BOM are recognised by their bytes; a file that is not valid UTF-8 is read as GB18030,
 * which covers GBK and GB2312, the usual encodings of Chinese TXT novels. When neither
 * decodes cleanly, the one with fewer invalid sequences wins (a UTF-8 file with one bad
 * byte stays UTF-8). Binary files are refused. Line ends become \n.
 */
export function decodeTxt(bytes: Uint8Array): string {
  if (bytes.length === 0) throw new TxtImportError("TXT文件是空的");
  if (bytes.length > TXT_MAX_BYTES) throw new TxtImportError("TXT文件不能超过20MB");

  let text: string;
  if (startsWithBytes(bytes, [0xff, 0xfe]) || startsWithBytes(bytes, [0xfe, 0xff])) {
    // UTF-16 text is full of NUL bytes, so it skips the byte-level checks.
    const encoding = bytes[0] === 0xff ? "utf-16le" : "utf-16be";
    text = decodeStrictly(bytes, encoding) ?? decodeLoosely(bytes, encoding).text;
  } else {
    if (BINARY_SIGNATURES.some((sig) => startsWithBytes(bytes, sig))) throw notText();
    const sniff = bytes.subarray(0, SNIFF_BYTES);
    if (sniff.includes(0)) throw notText();
    // TextDecoder drops a UTF-8 BOM by itself.
    const utf8 = decodeStrictly(bytes, "utf-8");
    if (utf8 !== null) {
      text = utf8;
    } else {
      const gb = decodeStrictly(bytes, "gb18030");
      if (gb !== null) {
        text = gb;
      } else {
        const looseGb = decodeLoosely(bytes, "gb18030");
        const looseUtf8 = decodeLoosely(bytes, "utf-8");
        text = looseUtf8.invalid < looseGb.invalid ? looseUtf8.text : looseGb.text;
      }
    }
  }

  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const suspicious = countSuspicious(text);
  if (suspicious >= 2 && suspicious > text.length * 0.001) throw notText();
  return text.replace(/\r\n?/g, "\n");
}

/** The separator as the author typed it, trimmed; 1 to 20 characters on one line. */
export function normalizeSeparator(separator: string): string {
  const sep = separator.trim();
  const length = Array.from(sep).length;
  if (length < 1 || length > SEPARATOR_MAX_LENGTH || /[\r\n]/.test(sep)) {
    throw new TxtImportError(`分隔符无效：请输入1到${SEPARATOR_MAX_LENGTH}个字符`);
  }
  return sep;
}

function capTitle(title: string): string {
  const t = title.trim();
  if (t.length <= CHAPTER_TITLE_MAX_LENGTH) return t;
  return Array.from(t).slice(0, CHAPTER_TITLE_MAX_LENGTH).join("").trim();
}

const isBlank = (line: string) => line.trim() === "";

/**
 * Splits decoded text into chapters (user-side spec, section 5, Publish):
 * - a chapter starts at every line that begins with the separator, in column one
 *   (indented lines are paragraphs: Chinese prose indents every paragraph);
 * - the title is the first non-blank line after the separator line, and the rest is the
 *   content; a separator line with text after the separator (`#### 第一回 灵根育孕`)
 *   carries the title itself, and everything below it is content;
 * - text before the first separator is not part of any chapter and is not imported;
 * - chapters without a title or without content are dropped.
 * Lines keep their leading indentation and lose trailing whitespace; blank lines at
 * the start and end of a chapter are dropped. Linear in the length of the text.
 */
export function parseTxtChapters(
  text: string,
  separator: string = DEFAULT_CHAPTER_SEPARATOR,
): ParsedChapter[] {
  const sep = normalizeSeparator(separator);
  const lines = text.split("\n");
  const chapters: ParsedChapter[] = [];

  const starts: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith(sep)) starts.push(i);
  }

  for (let s = 0; s < starts.length; s++) {
    const head = starts[s];
    const end = s + 1 < starts.length ? starts[s + 1] : lines.length;

    let title = lines[head].slice(sep.length).trim();
    let first = head + 1;
    if (title === "") {
      while (first < end && isBlank(lines[first])) first++;
      if (first >= end) continue;
      title = lines[first].trim();
      first++;
    }

    let last = end - 1;
    while (first <= last && isBlank(lines[first])) first++;
    while (last >= first && isBlank(lines[last])) last--;
    if (first > last) continue;

    const body: string[] = new Array(last - first + 1);
    for (let i = first; i <= last; i++) body[i - first] = lines[i].trimEnd();
    const content = body.join("\n");

    if (chapters.length >= TXT_MAX_CHAPTERS) {
      throw new TxtImportError(`章节数量不能超过${TXT_MAX_CHAPTERS}章`);
    }
    chapters.push({ title: capTitle(title), content, wordCount: countWords(content) });
  }

  if (chapters.length === 0) throw new TxtImportError(NO_CHAPTERS_MESSAGE);
  return chapters;
}

/** An uploaded TXT file to chapters: decodeTxt then parseTxtChapters. */
export function readTxtChapters(
  bytes: Uint8Array,
  separator: string = DEFAULT_CHAPTER_SEPARATOR,
): ParsedChapter[] {
  // Check the separator before decoding megabytes for nothing.
  const sep = normalizeSeparator(separator);
  return parseTxtChapters(decodeTxt(bytes), sep);
}
