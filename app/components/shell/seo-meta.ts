import type { MetaDescriptor } from "react-router";
import { defaultCoverHref } from "~/utils/default-cover";
import { chapterDisplayTitle } from "~/utils/chapter-title";

/**
 * What a search engine and a shared link see of a page (docs/decisions/200): a description,
 * the canonical address, OpenGraph and Twitter cards, and JSON-LD. Absolute addresses come
 * from SITE_URL (`origin`, sent by the loader); without it only the description and the
 * noindex are given, never an address built from the request's Host.
 */

/** The site's name as the shell's loader read it (站点标题), for og:site_name and breadcrumbs. */
export function siteNameOf(matches: readonly ({ data?: unknown } | undefined)[]): string {
  for (const match of matches) {
    const title = (match?.data as { site?: { title?: unknown } } | undefined)?.site?.title;
    if (typeof title === "string" && title) return title;
  }
  return "砚台";
}

/** The first 120 characters of a text, on one line. @internal */
export function describe(text: string, max = 120): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export interface SeoWork {
  id: number;
  title: string;
  description: string;
  coverUrl: string | null;
  authorNickname: string;
  tags: string[];
  categoryName: string | null;
  rating: "all_ages" | "r18";
  visibility: "public" | "public-vip" | "private";
}

const absolute = (origin: string, href: string) => (/^https?:\/\//.test(href) ? href : `${origin}${href.startsWith("/") ? "" : "/"}${href}`);

/** A page no search engine should keep: R-18 (behind a login) or not public (the owner's own view). */
export function noindex(): MetaDescriptor {
  return { name: "robots", content: "noindex" };
}

/** The reader page: a work's contents, or one of its chapters (`chapter`). */
export function readerMeta(input: {
  origin: string | null;
  siteName: string;
  work: SeoWork;
  defaultCoverUrl: string | null;
  chapter: { title: string; order: number } | null;
}): MetaDescriptor[] {
  const { origin, work, chapter } = input;
  const chapterName = chapter ? chapterDisplayTitle(chapter.order, chapter.title) : null;
  const title = chapterName ? `${chapterName} - ${work.title}` : work.title;
  const description = describe(chapterName ? `《${work.title}》${chapterName}。${work.description}` : `《${work.title}》作者：${work.authorNickname}。${work.description}`);
  const tags: MetaDescriptor[] = [{ name: "description", content: description }];
  const indexable = work.rating === "all_ages" && work.visibility !== "private";
  if (!indexable) tags.push(noindex());
  if (!origin || !indexable) return tags;

  const workUrl = `${origin}/works/${work.id}`;
  const url = chapter ? `${workUrl}?chapter=${chapter.order}` : workUrl;
  const image = absolute(origin, work.coverUrl || input.defaultCoverUrl || defaultCoverHref(work));
  const book = {
    "@type": "Book",
    "@id": `${workUrl}#book`,
    name: work.title,
    author: { "@type": "Person", name: work.authorNickname },
    description: describe(work.description, 300),
    image,
    url: workUrl,
    inLanguage: "zh-CN",
    ...(work.categoryName || work.tags.length > 0 ? { genre: work.categoryName ?? work.tags[0] } : {}),
    ...(work.tags.length > 0 ? { keywords: work.tags.join(",") } : {}),
    isAccessibleForFree: work.visibility === "public",
  };
  const breadcrumbs = [
    { name: input.siteName, item: `${origin}/` },
    { name: work.title, item: workUrl },
    ...(chapterName ? [{ name: chapterName, item: url }] : []),
  ];
  return [
    ...tags,
    { tagName: "link", rel: "canonical", href: url },
    { property: "og:type", content: chapter ? "article" : "book" },
    { property: "og:site_name", content: input.siteName },
    { property: "og:locale", content: "zh_CN" },
    { property: "og:title", content: title },
    { property: "og:description", content: description },
    { property: "og:url", content: url },
    { property: "og:image", content: image },
    { name: "twitter:card", content: "summary" },
    { name: "twitter:title", content: title },
    { name: "twitter:description", content: description },
    { name: "twitter:image", content: image },
    {
      "script:ld+json": {
        "@context": "https://schema.org",
        "@graph": [
          book,
          ...(chapter && chapterName
            ? [{ "@type": "Chapter", name: chapterName, position: chapter.order, url, isPartOf: { "@id": `${workUrl}#book` } }]
            : []),
          {
            "@type": "BreadcrumbList",
            itemListElement: breadcrumbs.map((crumb, index) => ({ "@type": "ListItem", position: index + 1, name: crumb.name, item: crumb.item })),
          },
        ],
      },
    },
  ];
}

/** A listing page (home, rankings…): description, and with SITE_URL its canonical address and card. */
export function pageMeta(input: { origin: string | null; siteName: string; path: string; title: string; description: string }): MetaDescriptor[] {
  const description = describe(input.description);
  const tags: MetaDescriptor[] = [{ name: "description", content: description }];
  if (!input.origin) return tags;
  const url = `${input.origin}${input.path}`;
  return [
    ...tags,
    { tagName: "link", rel: "canonical", href: url },
    { property: "og:type", content: "website" },
    { property: "og:site_name", content: input.siteName },
    { property: "og:locale", content: "zh_CN" },
    { property: "og:title", content: input.title },
    { property: "og:description", content: description },
    { property: "og:url", content: url },
    { name: "twitter:card", content: "summary" },
  ];
}
