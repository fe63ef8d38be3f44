import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { countWords } from "~/utils/text";
import { fullCorpusFile } from "../../bench/lib-corpus";
import {
  CHAPTER_TITLE_MAX_LENGTH,
  JAPANESE_ENCODING_MESSAGE,
  NO_CHAPTERS_MESSAGE,
  TXT_MAX_BYTES,
  TXT_MAX_CHAPTERS,
  TxtImportError,
  UNSUPPORTED_ENCODING_MESSAGE,
  decodeTxt,
  parseTxtChapters,
  readTxtChapters,
  streamTxtChapters,
} from "~/server/studio/txt-import.server";

const utf8 = (s: string) => new TextEncoder().encode(s);

/**
 * `text` in a legacy double-byte encoding, from the decoder's own table (TextEncoder only
 * writes UTF-8): every one- and two-byte sequence is decoded once and the first sequence
 * of each character kept.
 */
const legacyTables = new Map<string, Map<string, number[]>>();
function encodeLegacy(encoding: "shift_jis" | "euc-jp" | "gbk", text: string): Buffer {
  let table = legacyTables.get(encoding);
  if (!table) {
    table = new Map();
    const decoder = new TextDecoder(encoding, { fatal: true });
    const add = (bytes: number[]) => {
      try {
        const char = decoder.decode(new Uint8Array(bytes));
        if (Array.from(char).length === 1 && !table!.has(char)) table!.set(char, bytes);
      } catch {
        // Not a whole character in this encoding.
      }
    };
    for (let b = 0; b < 0x100; b++) add([b]);
    for (let lead = 0x81; lead <= 0xfe; lead++) for (let trail = 0x40; trail <= 0xfe; trail++) add([lead, trail]);
    legacyTables.set(encoding, table);
  }
  return Buffer.from(
    Array.from(text).flatMap((char) => {
      const bytes = table!.get(char);
      if (!bytes) throw new Error(`${encoding} has no ${char}`);
      return bytes;
    }),
  );
}

function importError(fn: () => unknown): TxtImportError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TxtImportError);
    return error as TxtImportError;
  }
  throw new Error("expected a TxtImportError");
}

const hanCount = (s: string) => s.match(/\p{Script=Han}/gu)?.length ?? 0;

// The excerpt in tests/fixtures/corpus is always there; the full corpus is checked too
// wherever a checkout has it (tests/fixtures/corpus/README.md: CORPUS_DIR).
interface CorpusSet {
  name: string;
  files: string[];
  chapters: number;
  titles: Record<number, string>;
  contentLength: number;
  contentHan?: number;
  titleHan?: number;
  wordCounts?: number[];
}

const fixtureDir = path.resolve(__dirname, "../fixtures/corpus");

const candidates: CorpusSet[] = [
  {
    name: "excerpt (tests/fixtures/corpus)",
    files: ["xiyouji-excerpt.utf8.txt", "xiyouji-excerpt.utf8-bom.txt", "xiyouji-excerpt.gb18030.crlf.txt"].map(
      (f) => path.join(fixtureDir, f),
    ),
    chapters: 3,
    titles: {
      0: "第一回　灵根育孕源流出　心性修持大道生",
      1: "第二回　悟彻菩提真妙理　断魔归本合元神",
      2: "第三回　四海千山皆拱伏　九幽十类尽除名",
    },
    contentLength: 6973 + 7079 + 532,
    wordCounts: [6913, 7037, 530],
  },
  {
    name: "full corpus (CORPUS_DIR)",
    files: ["xiyouji.utf8.txt", "xiyouji.utf8-bom.txt", "xiyouji.gb18030.crlf.txt"]
      .map((f) => fullCorpusFile(f))
      .filter((f): f is string => f !== undefined),
    chapters: 101,
    titles: {
      0: "第一回　灵根育孕源流出　心性修持大道生",
      8: "附录　陈光蕊赴任逢灾　江流僧复仇报本",
      49: "第四十九回　三藏有灾沉水宅　观音救难现鱼篮",
      100: "第一百回　径回东土　五圣成真",
    },
    contentLength: 716_548,
    contentHan: 587_851,
    titleHan: 1_851,
  },
];
const corpusSets = candidates.filter((set) => set.files.length > 0);

describe.each(corpusSets)("西游记 corpus: $name", (set) => {
  const decoded = set.files.map((file) => ({ file: path.basename(file), text: decodeTxt(fs.readFileSync(file)) }));

  it("decodes every encoding to the same text, without BOM or CR", () => {
    for (const { file, text } of decoded) {
      expect(text, file).toBe(decoded[0].text);
      expect(text.charCodeAt(0), file).not.toBe(0xfeff);
      expect(text.includes("\r"), file).toBe(false);
    }
  });

  it("parses every file to the same chapters with the corpus's titles and sizes", () => {
    const parsed = set.files.map((file) => readTxtChapters(fs.readFileSync(file)));
    for (const chapters of parsed) expect(chapters).toEqual(parsed[0]);

    const chapters = parsed[0];
    expect(chapters).toHaveLength(set.chapters);
    for (const [index, title] of Object.entries(set.titles)) expect(chapters[Number(index)].title).toBe(title);
    expect(chapters.reduce((n, c) => n + c.content.length, 0)).toBe(set.contentLength);
    if (set.contentHan !== undefined) {
      expect(chapters.reduce((n, c) => n + hanCount(c.content), 0)).toBe(set.contentHan);
    }
    if (set.titleHan !== undefined) {
      expect(chapters.reduce((n, c) => n + hanCount(c.title), 0)).toBe(set.titleHan);
    }
    if (set.wordCounts) expect(chapters.map((c) => c.wordCount)).toEqual(set.wordCounts);
    for (const c of chapters) {
      expect(c.content.startsWith("####")).toBe(false);
      expect(c.content.includes(c.title)).toBe(false);
      expect(c.wordCount).toBeGreaterThan(0);
    }
  });

  it("splits the original headings with a custom separator, the title on the same line", () => {
    // The source layout: `《》目录 第一回　…` heading lines, paragraphs indented by 4 spaces.
    const original = decoded[0].text.replace(/####\n([^\n]+)/g, "《》目录 $1").replace(/^(?!《》目录)(.+)$/gm, "    $1");
    const chapters = parseTxtChapters(original, "《》目录");
    const reference = parseTxtChapters(decoded[0].text);
    expect(chapters.map((c) => c.title)).toEqual(reference.map((c) => c.title));
    expect(chapters.map((c) => c.wordCount)).toEqual(reference.map((c) => c.wordCount));
    expect(chapters[0].content.startsWith("    ")).toBe(true);
  });
});

describe("parseTxtChapters", () => {
  it("takes the first line after the separator as the title and the rest as content", () => {
    const chapters = parseTxtChapters("####\n第一章 开端\n第一段。\n\n第二段。\n####\n第二章\n  缩进的段落  \n");
    expect(chapters).toEqual([
      { title: "第一章 开端", content: "第一段。\n\n第二段。", wordCount: 8 },
      { title: "第二章", content: "  缩进的段落", wordCount: 5 },
    ]);
  });

  it("accepts the title on the separator line", () => {
    const chapters = parseTxtChapters("#### 第一回　灵根育孕\n正文一\n####第二回\n正文二\n");
    expect(chapters.map((c) => [c.title, c.content])).toEqual([
      ["第一回　灵根育孕", "正文一"],
      ["第二回", "正文二"],
    ]);
  });

  it("skips blank lines between the separator and the title", () => {
    expect(parseTxtChapters("####\n\n   \n标题\n\n内容\n\n")).toEqual([{ title: "标题", content: "内容", wordCount: 2 }]);
  });

  it("uses a custom separator, trimmed, and only at the start of a line", () => {
    const text = "===\n甲\n甲的内容 === 不是分隔符\n  === 缩进的也不是\n===\n乙\n乙的内容\n";
    const chapters = parseTxtChapters(text, " === ");
    expect(chapters.map((c) => c.title)).toEqual(["甲", "乙"]);
    expect(chapters[0].content).toBe("甲的内容 === 不是分隔符\n  === 缩进的也不是");
    // With the default separator this text has no chapters at all.
    expect(importError(() => parseTxtChapters(text)).message).toBe(NO_CHAPTERS_MESSAGE);
  });

  it("ignores text before the first separator", () => {
    const chapters = parseTxtChapters("书名：西游记\n作者：吴承恩\n####\n第一回\n内容\n");
    expect(chapters).toEqual([{ title: "第一回", content: "内容", wordCount: 2 }]);
  });

  it("drops empty chapters: no content, or not even a title", () => {
    const text = "####\n空章\n\n  \u3000\n####\n####   \n\n####\n有内容\n内容\n#### 只有标题\n####\n";
    expect(parseTxtChapters(text)).toEqual([{ title: "有内容", content: "内容", wordCount: 2 }]);
  });

  it("says it found no chapter (NO_CHAPTERS_MESSAGE) when nothing parses", () => {
    for (const text of ["####\n####\n####\n", "####", "", "   \n\n", "没有分隔符的文本\n第二行"]) {
      expect(importError(() => parseTxtChapters(text)).message).toBe(NO_CHAPTERS_MESSAGE);
    }
  });

  it("refuses an empty, blank or over-long separator", () => {
    for (const separator of ["", "   ", "\u3000", "#".repeat(21), "#\n#"]) {
      expect(importError(() => parseTxtChapters("####\n标题\n内容", separator)).message).toMatch(/^分隔符无效/);
    }
    expect(parseTxtChapters("一二三四五六七八九十一二三四五六七八九十\n标题\n内容", "一二三四五六七八九十一二三四五六七八九十")).toHaveLength(1);
  });

  it("caps titles at 200 characters", () => {
    const [chapter] = parseTxtChapters(`####\n${"长".repeat(10_000)}\n内容`);
    expect(chapter.title).toBe("长".repeat(CHAPTER_TITLE_MAX_LENGTH));
    const [emoji] = parseTxtChapters(`####\n${"😀".repeat(300)}\n内容`);
    expect(Array.from(emoji.title)).toHaveLength(CHAPTER_TITLE_MAX_LENGTH);
  });

  it("parses 5,000 chapters", () => {
    const parts: string[] = [];
    for (let i = 1; i <= 5000; i++) parts.push(`####\n第${i}章\n这是第${i}章的内容。\n第二段。`);
    const chapters = parseTxtChapters(parts.join("\n"));
    expect(chapters).toHaveLength(5000);
    expect(chapters[4999]).toEqual({ title: "第5000章", content: "这是第5000章的内容。\n第二段。", wordCount: 16 });
  });

  it(`refuses more than ${TXT_MAX_CHAPTERS} chapters`, () => {
    const text = "####\n标题\n内容\n".repeat(TXT_MAX_CHAPTERS + 1);
    expect(parseTxtChapters("####\n标题\n内容\n".repeat(TXT_MAX_CHAPTERS))).toHaveLength(TXT_MAX_CHAPTERS);
    expect(importError(() => parseTxtChapters(text)).message).toBe("章节数量不能超过10000章");
  });
});

describe("reading a TXT in pieces", () => {
  const text = "前言\r\n####\r\n第一章 开端\r\n\r\n　　第一段。  \r\n\r\n\r\n　　第二段。\r\n\r\n####\r第二章\r内容\r#### 第三章\n\n😀结尾\n";
  const whole = parseTxtChapters(text);

  it("gives the same chapters wherever the text is cut, even between \\r and \\n", () => {
    expect(whole.map((c) => c.title)).toEqual(["第一章 开端", "第二章", "第三章"]);
    expect(whole[0].content).toBe("　　第一段。\n\n\n　　第二段。");
    for (let i = 0; i <= text.length; i++) {
      for (let j = i; j <= text.length; j += 7) {
        expect(parseTxtChapters([text.slice(0, i), text.slice(i, j), "", text.slice(j)]), `cut at ${i}, ${j}`).toEqual(whole);
      }
    }
  });

  it("gives the same chapters for the bytes in chunks cut inside multi-byte characters", () => {
    const gb = fs.readFileSync(path.join(fixtureDir, "xiyouji-excerpt.gb18030.crlf.txt"));
    const utf8Bom = fs.readFileSync(path.join(fixtureDir, "xiyouji-excerpt.utf8-bom.txt"));
    for (const bytes of [gb, utf8Bom]) {
      const reference = readTxtChapters(bytes);
      for (const size of [1, 2, 3, 5, 4093]) {
        const chunks: Uint8Array[] = [];
        for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
        expect(readTxtChapters(chunks)).toEqual(reference);
      }
    }
  });

  it("refuses empty and binary files when asked, and a file that is not text after all at its end", () => {
    expect(importError(() => streamTxtChapters([new Uint8Array(0), new Uint8Array(0)])).message).toBe("TXT文件是空的");
    expect(importError(() => streamTxtChapters([Buffer.from([0x89, 0x50]), Buffer.from([0x4e, 0x47, 1, 2])])).message).toBe("文件不是有效的文本文件，请上传TXT格式的小说");
    // Clean chapters first, control characters after 8 KB: the chapters come, then the refusal.
    const bytes = Buffer.concat([utf8("####\n第一章\n内容\n".repeat(1000)), Buffer.alloc(200, 1)]);
    const chapters = streamTxtChapters(bytes)[Symbol.iterator]();
    expect(chapters.next().value).toEqual({ title: "第一章", content: "内容", wordCount: 2 });
    expect(importError(() => Array.from({ length: 1000 }, () => chapters.next())).message).toBe("文件不是有效的文本文件，请上传TXT格式的小说");
  });
});

/** The definition: every code point that is not whitespace as JavaScript's \s sees it. */
const referenceCount = (s: string) => Array.from(s).filter((ch) => !/\s/u.test(ch)).length;

describe("countWords", () => {
  it("agrees with the definition on every code unit and on surrogate pairs", () => {
    for (let c = 0; c <= 0xffff; c++) {
      const s = String.fromCharCode(c);
      if (countWords(s) !== referenceCount(s)) expect(`U+${c.toString(16)}: ${countWords(s)}`).toBe(referenceCount(s));
    }
    for (const s of ["😀", "a😀 b", "\ud83d", "\ude00", "\ud83d\ud83d\ude00", "\ud83d\ude00\ude00", "第一回　灵根\n\t育孕 "]) {
      expect(countWords(s), JSON.stringify(s)).toBe(referenceCount(s));
    }
  });
});

describe("decodeTxt", () => {
  it("treats \\r\\n, \\r and \\n alike", () => {
    const lf = readTxtChapters(utf8("####\n标题\n第一段\n第二段\n"));
    expect(readTxtChapters(utf8("####\r\n标题\r\n第一段\r\n第二段\r\n"))).toEqual(lf);
    expect(readTxtChapters(utf8("####\r标题\r第一段\r第二段\r"))).toEqual(lf);
    expect(decodeTxt(utf8("a\r\nb\rc\n\r\nd"))).toBe("a\nb\nc\n\nd");
  });

  it("strips a UTF-8 BOM", () => {
    expect(decodeTxt(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("####\n标题")]))).toBe("####\n标题");
  });

  it("reads UTF-16 with a BOM, little and big endian", () => {
    const text = "####\r\n第一章\r\n你好，世界\r\n";
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const be = Buffer.from(le.subarray(2)).swap16();
    expect(decodeTxt(le)).toBe("####\n第一章\n你好，世界\n");
    expect(decodeTxt(Buffer.concat([Buffer.from([0xfe, 0xff]), be]))).toBe("####\n第一章\n你好，世界\n");
  });

  it("keeps a UTF-8 file with one broken byte as UTF-8", () => {
    const bytes = Buffer.concat([utf8("####\n第一章\n孙悟空"), Buffer.from([0xff]), utf8("大闹天宫\n".repeat(20))]);
    const text = decodeTxt(bytes);
    expect(text.startsWith("####\n第一章\n孙悟空\uFFFD大闹天宫")).toBe(true);
  });

  it("refuses an empty file", () => {
    expect(importError(() => decodeTxt(new Uint8Array(0))).message).toBe("TXT文件是空的");
  });

  it("refuses a file over 20 MB before decoding it", () => {
    const bytes = new Uint8Array(TXT_MAX_BYTES + 1).fill(0x41);
    expect(importError(() => decodeTxt(bytes)).message).toBe("TXT文件不能超过20MB");
    expect(importError(() => readTxtChapters(new Uint8Array(50 * 1024 * 1024))).message).toBe("TXT文件不能超过20MB");
  });

  it("refuses binary files", () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(4096)]);
    const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n%âãÏÓ\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), randomBytes(2048)]);
    // Random bytes without a single NUL: caught by the control-character ratio.
    const noNul = randomBytes(16_384).map((b) => (b === 0 ? 1 : b));
    const withNul = Buffer.concat([utf8("####\n标题\n"), Buffer.from([0, 0, 0, 0]), utf8("内容")]);
    for (const bytes of [png, pdf, noNul, withNul]) {
      expect(importError(() => decodeTxt(bytes)).message).toBe("文件不是有效的文本文件，请上传TXT格式的小说");
    }
  });

  it("refuses a Big5 file (valid GB18030 bytes that decode into private-use characters)", () => {
    const big5 = fs.readFileSync(path.join(fixtureDir, "xiyouji-traditional.big5.txt"));
    for (const read of [() => decodeTxt(big5), () => readTxtChapters(big5), () => readTxtChapters([big5.subarray(0, 100), big5.subarray(100)])]) {
      expect(importError(read).message).toBe(UNSUPPORTED_ENCODING_MESSAGE);
    }
    expect(UNSUPPORTED_ENCODING_MESSAGE).toContain("UTF-8、GBK/GB18030 或带 BOM 的 UTF-16");
  });

  it("refuses a file that decodes into replacement characters in neither supported encoding", () => {
    // Shift_JIS-like bytes: invalid as UTF-8 and as GB18030 (0x80 and 0xFF are never lead bytes).
    const bytes = Buffer.concat([utf8("####\n第一章\n"), Buffer.from(Array.from({ length: 200 }, (_, i) => (i % 2 ? 0x80 : 0xff)))]);
    expect(importError(() => decodeTxt(bytes)).message).toBe(UNSUPPORTED_ENCODING_MESSAGE);
  });

  describe("Japanese encodings (valid GB18030 bytes that decode into mojibake)", () => {
    // 吾輩は猫である (夏目漱石, public domain), two chapters in the site's TXT format.
    const novel = [
      "####",
      "第1章　猫の話",
      "　吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。",
      "　吾輩はここで始めて人間というものを見た。しかもあとで聞くとそれは書生という人間中で一番獰悪な種族であったそうだ。",
      "####",
      "第2章　書生の顔",
      "　この書生というのは時々我々を捕えて煮て食うという話である。しかしその当時は何という考もなかったから別段恐しいとも思わなかった。",
      "",
    ].join("\n");

    it("refuses Shift-JIS and EUC-JP, naming them, whole or in chunks", () => {
      for (const encoding of ["shift_jis", "euc-jp"] as const) {
        const bytes = encodeLegacy(encoding, novel);
        // The mojibake the site used to publish: every byte is a valid GB18030 sequence.
        expect(() => new TextDecoder("gb18030", { fatal: true }).decode(bytes), encoding).not.toThrow();
        for (const read of [() => decodeTxt(bytes), () => readTxtChapters(bytes), () => readTxtChapters([bytes.subarray(0, 101), bytes.subarray(101)])]) {
          expect(importError(read).message, encoding).toBe(JAPANESE_ENCODING_MESSAGE);
        }
      }
      expect(JAPANESE_ENCODING_MESSAGE).toContain("UTF-8、GBK/GB18030 或带 BOM 的 UTF-16");
    });

    it("names Japanese, not Big5, for a cp932 file that GB18030 cannot decode", () => {
      // Half-width katakana are single bytes (A1-DF): GB18030 reads two as one character,
      // and an odd one before a line end as a lead byte of nothing.
      const bytes = encodeLegacy("shift_jis", `${novel}　ﾈｺﾁｬﾝ\n`.repeat(3));
      expect(() => new TextDecoder("gb18030", { fatal: true }).decode(bytes)).toThrow();
      expect(importError(() => decodeTxt(bytes)).message).toBe(JAPANESE_ENCODING_MESSAGE);
    });

    it("keeps Japanese in UTF-8, and traditional Chinese in GBK (a quarter of it outside GB2312)", () => {
      expect(decodeTxt(utf8(novel))).toBe(novel);
      const traditional = new TextDecoder("big5").decode(fs.readFileSync(path.join(fixtureDir, "xiyouji-traditional.big5.txt"))).replace(/\r\n?/g, "\n");
      expect(decodeTxt(encodeLegacy("gbk", traditional))).toBe(traditional);
    });
  });

  it("accepts rare characters and a few private-use ones in real text", () => {
    const chapter = "####\n第一回\n" + "话说𠀀𪚥龘齉，孙悟空大闹天宫。\n".repeat(100);
    // Three private-use characters (a font's own glyphs, as old GBK files sometimes have) in 1,400 Chinese ones.
    const text = chapter + "\uE000\uE001\uE002\n";
    expect(decodeTxt(utf8(text))).toBe(text);
    expect(importError(() => decodeTxt(utf8("####\n第一回\n话说\uE000\uE001\uE002\n"))).message).toBe(UNSUPPORTED_ENCODING_MESSAGE);
  });

  it("decodes and parses a 10 MB GB18030 file with 3,000 chapters", () => {
    // Paragraph lines of the GB18030 excerpt, as bytes (CRLF-terminated lines).
    const gb = fs.readFileSync(path.join(fixtureDir, "xiyouji-excerpt.gb18030.crlf.txt"));
    const paragraphs: Buffer[] = [];
    for (let start = 0, i = 0; i < gb.length - 1; i++) {
      if (gb[i] === 0x0d && gb[i + 1] === 0x0a) {
        const line = gb.subarray(start, i + 2);
        if (line.length > 64) paragraphs.push(line);
        start = i + 2;
      }
    }
    const perChapter = Math.floor((10 * 1024 * 1024) / 3000);
    const parts: Buffer[] = [];
    let p = 0;
    for (let n = 1; n <= 3000; n++) {
      parts.push(Buffer.from(`####\r\nChapter ${n}\r\n`));
      for (let size = 0; size < perChapter; p++) {
        const line = paragraphs[p % paragraphs.length];
        parts.push(line);
        size += line.length;
      }
    }
    const bytes = Buffer.concat(parts);
    expect(bytes.length).toBeGreaterThan(10 * 1024 * 1024);
    expect(bytes.length).toBeLessThan(TXT_MAX_BYTES);

    // How fast is bench:import's question (docs/benchmarks.md), not a test's: a timed
    // assertion here failed on a busy machine.
    const chapters = readTxtChapters(bytes);
    expect(chapters).toHaveLength(3000);
    expect(chapters[2999].title).toBe("Chapter 3000");
    expect(chapters[0].content.startsWith("盖闻天地之数")).toBe(true);
    expect(chapters.every((c) => c.wordCount > 1000)).toBe(true);
  });
});
