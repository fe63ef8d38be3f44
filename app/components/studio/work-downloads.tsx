/**
 * 下载作品 on the work's settings page: the owner's TXT (re-importable) and EPUB files,
 * published chapters only, or with 存稿 and 定时 chapters (decision 098). Plain links: the
 * server answers with an attachment, so the page stays and no JavaScript is needed.
 */
export function WorkDownloads({ workId }: { workId: number }) {
  const href = (ext: "txt" | "epub", drafts = false) => `/works/${workId}/export.${ext}${drafts ? "?drafts=1" : ""}`;
  return (
    <section className="studio-card studio-downloads" aria-labelledby="work-downloads-title">
      <h2 id="work-downloads-title">下载作品</h2>
      <p className="muted">
        TXT 可在“发布作品”中重新导入（章节分隔符 ####）；EPUB 含封面、分卷和目录，适合电子书阅读器。默认只含已发布的章节。
      </p>
      <p className="studio-download-links">
        <a className="btn" href={href("txt")}>下载 TXT</a>
        <a className="btn" href={href("epub")}>下载 EPUB</a>
      </p>
      <p className="muted">
        包含存稿和定时章节：<a href={href("txt", true)}>TXT</a> · <a href={href("epub", true)}>EPUB</a>
      </p>
    </section>
  );
}
