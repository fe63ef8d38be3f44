import { createHash } from "node:crypto";
import { maskTexts } from "~/server/screening/screening.server";
import { aiLabelLines, aigcMetadata, chapterLabelLine } from "~/server/catalog/ai-labels.server";
import { ZipWriter } from "~/server/platform/zip-writer.server";
import { defaultCoverJpeg } from "~/server/catalog/default-cover.server";
import { storedCoverJpeg } from "~/server/platform/images.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import { webStreamFrom } from "~/server/platform/download.server";
import { downloadNames, prepareOwnWorkExport, workSections, type ExportOptions, type OwnWorkExport, type WorkDownload } from "./author-export.server";

/**
 * The owner's EPUB 3 download (decision 097): written into the project's zip writer as
 * the chapters are read, so memory holds one batch of chapters, the blocks being
 * deflated and the table of contents (titles only), never the book.
 *
 *   mimetype                 stored, first, no extra field (OCF)
 *   META-INF/container.xml   points at OEBPS/content.opf
 *   OEBPS/style.css
 *   OEBPS/images/cover.jpg   the work's cover (or the site's default), as JPEG
 *   OEBPS/cover.xhtml        the cover page
 *   OEBPS/title.xhtml        title, author, description
 *   OEBPS/nav.xhtml          目录: volumes as the first level, their chapters under them
 *   OEBPS/toc.ncx            the same table of contents for EPUB 2 reading systems
 *   OEBPS/text/vN.xhtml      a volume's title page
 *   OEBPS/text/cN.xhtml      one file per chapter, a <p> per non-blank line
 *   OEBPS/content.opf        metadata (zh-CN), manifest and spine, written last
 */

const LANG = "zh-CN";
const MEDIA_XHTML = "application/xhtml+xml";

// Characters XML 1.0 refuses (C0 controls but tab and line ends, lone surrogates,
// U+FFFE/U+FFFF) and C1 controls, which are never text: dropped.
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text for XML content or an attribute value. */
function xmlText(text: string): string {
  return text.replace(NOT_XML, "").replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);
}

/** An XHTML page; `depth` 1 for the files under text/ (the stylesheet is one folder up). */
function page(title: string, body: string, depth: 0 | 1, epubNs = false): string {
  const ns = epubNs ? ' xmlns:epub="http://www.idpf.org/2007/ops"' : "";
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n` +
    `<html xmlns="http://www.w3.org/1999/xhtml"${ns} xml:lang="${LANG}" lang="${LANG}">\n` +
    `<head><meta charset="UTF-8"/><title>${xmlText(title)}</title>` +
    `<link rel="stylesheet" type="text/css" href="${depth ? "../" : ""}style.css"/></head>\n` +
    `<body>\n${body}\n</body>\n</html>\n`
  );
}

/** A text's non-blank lines as paragraphs (Chinese prose keeps its full-width indent). */
function paragraphs(text: string): string {
  let out = "";
  for (const line of text.split(/\r\n?|\n/)) {
    if (!/\S/.test(line.replace(/\u3000/g, " "))) continue;
    out += `<p>${xmlText(line.trimEnd())}</p>\n`;
  }
  return out;
}

const STYLE = `body { margin: 0 5%; line-height: 1.8; }
h1, h2 { text-align: center; font-weight: bold; margin: 2em 0 1em; }
h1 { font-size: 1.6em; }
h2 { font-size: 1.3em; }
p { margin: 0 0 0.6em; text-indent: 0; }
.author { text-align: center; margin-bottom: 2em; }
.aigc { font-size: 0.85em; color: #555; }
.author-note { margin-top: 2em; padding: 0.5em 1em; border-top: 1px solid #999; font-size: 0.9em; }
.cover { text-align: center; margin: 0; padding: 0; }
.cover img { max-width: 100%; max-height: 100%; }
nav ol { list-style: none; padding-left: 1em; }
`;

const CONTAINER = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
`;

/** A stable urn:uuid for the work (the same book on every download): name-based, from its id. */
function bookId(workId: number): string {
  const h = createHash("sha1").update(`inkstone:work:${workId}`).digest("hex");
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

interface TocChapter {
  id: string;
  file: string;
  title: string;
}
interface TocVolume extends TocChapter {
  chapters: TocChapter[];
}
type TocEntry = ({ kind: "chapter" } & TocChapter) | ({ kind: "volume" } & TocVolume);

function navXhtml(entries: TocEntry[], firstChapter: string, hasCover: boolean): string {
  const link = (e: TocChapter) => `<a href="${e.file}">${xmlText(e.title)}</a>`;
  let ol = "";
  for (const e of entries) {
    if (e.kind === "chapter") ol += `<li>${link(e)}</li>\n`;
    else ol += `<li>${link(e)}\n<ol>\n${e.chapters.map((c) => `<li>${link(c)}</li>`).join("\n")}\n</ol>\n</li>\n`;
  }
  const landmarks =
    `<nav epub:type="landmarks" id="landmarks" hidden="hidden"><h2>导航</h2><ol>\n` +
    (hasCover ? `<li><a epub:type="cover" href="cover.xhtml">封面</a></li>\n` : "") +
    `<li><a epub:type="toc" href="nav.xhtml">目录</a></li>\n` +
    `<li><a epub:type="bodymatter" href="${firstChapter}">正文</a></li>\n</ol></nav>`;
  return page("目录", `<nav epub:type="toc" id="toc"><h1>目录</h1>\n<ol>\n${ol}</ol>\n</nav>\n${landmarks}`, 0, true);
}

/**
 * The table of contents once more as an NCX, for EPUB 2 reading systems (older e-ink
 * readers and apps that ignore nav.xhtml): the same entries and levels, numbered in
 * reading order (playOrder), tied to the book by its identifier.
 */
function tocNcx(entries: TocEntry[], workId: number, title: string, author: string | null): string {
  let order = 0;
  // A volume is numbered before its chapters: its opening tag is written first.
  const open = (e: TocChapter) =>
    `<navPoint id="np-${e.id}" playOrder="${++order}"><navLabel><text>${xmlText(e.title)}</text></navLabel><content src="${e.file}"/>`;
  let map = "";
  for (const e of entries) {
    map += open(e);
    if (e.kind === "volume") for (const c of e.chapters) map += `\n${open(c)}</navPoint>`;
    map += "</navPoint>\n";
  }
  const depth = entries.some((e) => e.kind === "volume" && e.chapters.length > 0) ? 2 : 1;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1" xml:lang="${LANG}">\n` +
    `<head>\n<meta name="dtb:uid" content="${bookId(workId)}"/>\n<meta name="dtb:depth" content="${depth}"/>\n` +
    `<meta name="dtb:totalPageCount" content="0"/>\n<meta name="dtb:maxPageNumber" content="0"/>\n</head>\n` +
    `<docTitle><text>${xmlText(title)}</text></docTitle>\n` +
    (author ? `<docAuthor><text>${xmlText(author)}</text></docAuthor>\n` : "") +
    `<navMap>\n${map}</navMap>\n</ncx>\n`
  );
}

/** The reader's copy (docs/decisions/123): who downloaded it, in the book's metadata. */
export interface EpubReader {
  id: string;
}

/** The vocabulary of the reader's id in content.opf (a declared prefix, as EPUB 3 asks). */
const READER_PREFIX = "inkstone: https://inkstone.invalid/epub/vocab#";

function contentOpf(prepared: OwnWorkExport, entries: TocEntry[], hasCover: boolean, modified: Date, reader: EpubReader | null): string {
  const { work, author } = prepared;
  const aigc = aigcMetadata(work, prepared.labelled);
  const manifest: string[] = [
    `<item id="nav" href="nav.xhtml" media-type="${MEDIA_XHTML}" properties="nav"/>`,
    `<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>`,
    `<item id="style" href="style.css" media-type="text/css"/>`,
    `<item id="title-page" href="title.xhtml" media-type="${MEDIA_XHTML}"/>`,
  ];
  const spine: string[] = [];
  if (hasCover) {
    manifest.push(`<item id="cover-image" href="images/cover.jpg" media-type="image/jpeg" properties="cover-image"/>`);
    manifest.push(`<item id="cover" href="cover.xhtml" media-type="${MEDIA_XHTML}"/>`);
    spine.push(`<itemref idref="cover"/>`);
  }
  spine.push(`<itemref idref="title-page"/>`, `<itemref idref="nav"/>`);
  const add = (e: TocChapter) => {
    manifest.push(`<item id="${e.id}" href="${e.file}" media-type="${MEDIA_XHTML}"/>`);
    spine.push(`<itemref idref="${e.id}"/>`);
  };
  for (const e of entries) {
    add(e);
    if (e.kind === "volume") e.chapters.forEach(add);
  }
  const metadata = [
    `<dc:identifier id="book-id">${bookId(work.id)}</dc:identifier>`,
    `<dc:title>${xmlText(work.title)}</dc:title>`,
    `<dc:language>${LANG}</dc:language>`,
    author ? `<dc:creator id="creator">${xmlText(author)}</dc:creator>` : "",
    work.description.trim() ? `<dc:description>${xmlText(work.description.trim())}</dc:description>` : "",
    `<dc:publisher>砚台</dc:publisher>`,
    // The implicit AI label (decision 126): GB 45438-2025's AIGC field.
    aigc ? `<meta name="AIGC" content="${xmlText(aigc)}"/>` : "",
    `<meta property="dcterms:modified">${modified.toISOString().replace(/\.\d{3}Z$/, "Z")}</meta>`,
    // For EPUB 2 reading systems, which look for the cover this way.
    hasCover ? `<meta name="cover" content="cover-image"/>` : "",
    // A reader's copy names its reader: machine-readable, and in words in dc:rights.
    reader ? `<meta property="inkstone:reader">${xmlText(reader.id)}</meta>` : "",
    reader ? `<dc:rights>${xmlText(`本副本由砚台为读者 ${reader.id} 生成，仅供其个人阅读，请勿传播。`)}</dc:rights>` : "",
  ].filter(Boolean);
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="${LANG}"${reader ? ` prefix="${READER_PREFIX}"` : ""}>\n` +
    `<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">\n${metadata.join("\n")}\n</metadata>\n` +
    `<manifest>\n${manifest.join("\n")}\n</manifest>\n` +
    `<spine toc="ncx">\n${spine.join("\n")}\n</spine>\n</package>\n`
  );
}

/** Writes the book into `zip`, entry by entry, as the chapters are read. */
async function writeEpub(zip: ZipWriter, prepared: OwnWorkExport, cover: Buffer | null, reader: EpubReader | null): Promise<void> {
  const { work, author } = prepared;
  const now = new Date();
  const entry = async (name: string, data: string | Uint8Array) => {
    await zip.startEntry(name, now);
    await zip.write(data);
    await zip.endEntry();
  };
  await zip.addStoredEntry("mimetype", "application/epub+zip", now);
  await entry("META-INF/container.xml", CONTAINER);
  await entry("OEBPS/style.css", STYLE);
  if (cover) {
    await entry("OEBPS/images/cover.jpg", cover);
    await entry("OEBPS/cover.xhtml", page("封面", `<div class="cover"><img src="images/cover.jpg" alt="${xmlText(`《${work.title}》封面`)}"/></div>`, 0));
  }
  const titleBody =
    `<h1>${xmlText(work.title)}</h1>\n` +
    (author ? `<p class="author">${xmlText(author)} 著</p>\n` : "") +
    aiLabelLines(work, prepared.labelled)
      .filter((line) => !line.startsWith("AIGC:"))
      .map((line) => `<p class="aigc">${xmlText(line)}</p>\n`)
      .join("") +
    paragraphs(work.description);
  await entry("OEBPS/title.xhtml", page(work.title, titleBody, 0));

  const entries: TocEntry[] = [];
  let volume: ({ kind: "volume" } & TocVolume) | null = null;
  let chapterNo = 0;
  let volumeNo = 0;
  for await (const section of workSections(prepared)) {
    if (section.kind === "volume") {
      volumeNo++;
      volume = { kind: "volume", id: `v${volumeNo}`, file: `text/v${volumeNo}.xhtml`, title: section.title, chapters: [] };
      entries.push(volume);
      await entry(`OEBPS/${volume.file}`, page(section.title, `<h1>${xmlText(section.title)}</h1>`, 1));
      continue;
    }
    chapterNo++;
    // A reader's copy shows 替换 words masked, as the reader page does (decision 195); the
    // author's own export keeps their text.
    const [title, content, authorNote] = reader ? await maskTexts([section.title, section.content, section.authorNote]) : [section.title, section.content, section.authorNote];
    const chapter: TocChapter = { id: `c${chapterNo}`, file: `text/c${chapterNo}.xhtml`, title };
    if (volume) volume.chapters.push(chapter);
    else entries.push({ kind: "chapter", ...chapter });
    const label = chapterLabelLine(section.aiLevel);
    const labelHtml = label ? `<p class="aigc">${xmlText(label)}</p>\n` : "";
    // 作者的话 after the text, a plain aside (decision 202): not a footnote, nothing points at it.
    const note = /\S/.test(authorNote) ? `<aside class="author-note">\n<h3>作者的话</h3>\n${paragraphs(authorNote)}</aside>\n` : "";
    await entry(`OEBPS/${chapter.file}`, page(title, `<h2>${xmlText(title)}</h2>\n${labelHtml}${paragraphs(content)}${note}`, 1));
  }
  await entry("OEBPS/nav.xhtml", navXhtml(entries, "text/c1.xhtml", cover !== null));
  await entry("OEBPS/toc.ncx", tocNcx(entries, work.id, work.title, author));
  await entry("OEBPS/content.opf", contentOpf(prepared, entries, cover !== null, now, reader));
  await zip.finish();
}

/**
 * The owner's EPUB download. The checks and the cover come first (a refusal is a
 * response, not a broken file); the book is then written as the download is read, and
 * stops when the download is cancelled.
 */
export async function exportOwnWorkEpub(
  userId: string | null,
  workId: number,
  options: ExportOptions,
  signal?: AbortSignal,
): Promise<WorkDownload> {
  return epubDownload(await prepareOwnWorkExport(userId, workId, options), null, signal);
}

/**
 * A prepared work as an EPUB download, written as the download is read (the checks are
 * the caller's, done before). `reader`: a reader's copy, with their id in the metadata.
 */
export async function epubDownload(prepared: OwnWorkExport, reader: EpubReader | null, signal?: AbortSignal): Promise<WorkDownload> {
  // The work's cover, else the site's default, else the one drawn for the work (as on its page).
  const cover =
    (await storedCoverJpeg(prepared.work.coverUrl || (await getDisplayConfigValue("default_cover_url")) || null)) ??
    (await defaultCoverJpeg(prepared.work.title, prepared.author));
  // Level 6: EPUB text deflates nearly as well as at 9, and an author waits for it.
  const zip = new ZipWriter({ level: 6, memLevel: 8, blockSize: 256 * 1024 });
  signal?.addEventListener("abort", () => zip.destroy(), { once: true });
  void writeEpub(zip, prepared, cover, reader).catch((error: unknown) => {
    if (!zip.destroyed) console.error("EPUB export failed", prepared.work.id, error);
    zip.destroy(error instanceof Error ? error : new Error(String(error)));
  });
  return { ...downloadNames(prepared.work, "epub"), contentType: "application/epub+zip", body: webStreamFrom(zip) };
}
