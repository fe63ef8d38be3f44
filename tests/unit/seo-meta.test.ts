import { describe, expect, it } from "vitest";
import { describe as describeText, pageMeta, readerMeta, siteNameOf, type SeoWork } from "~/components/shell/seo-meta";

const work: SeoWork = {
  id: 7,
  title: "渡河",
  description: "一个\n\n关于   渡河的故事。",
  coverUrl: null,
  authorNickname: "林晚",
  tags: ["仙侠", "成长"],
  categoryName: null,
  rating: "all_ages",
  visibility: "public",
};
const names = (tags: ReturnType<typeof readerMeta>) => tags.map((tag) => ("name" in tag ? tag.name : "property" in tag ? tag.property : "rel" in tag ? tag.rel : Object.keys(tag)[0]));

describe("the reader page's meta (docs/decisions/200)", () => {
  it("without SITE_URL gives the description and no address at all", () => {
    const tags = readerMeta({ origin: null, siteName: "砚台", work, defaultCoverUrl: null, chapter: null });
    expect(tags).toEqual([{ name: "description", content: "《渡河》作者：林晚。一个 关于 渡河的故事。" }]);
  });

  it("with SITE_URL adds the canonical address, the cards and JSON-LD, the cover made absolute", () => {
    const tags = readerMeta({ origin: "https://inkstone.example", siteName: "砚台", work: { ...work, coverUrl: "/files/covers/7.webp" }, defaultCoverUrl: null, chapter: { title: "起程", order: 3 } });
    expect(names(tags)).toEqual(["description", "canonical", "og:type", "og:site_name", "og:locale", "og:title", "og:description", "og:url", "og:image", "twitter:card", "twitter:title", "twitter:description", "twitter:image", "script:ld+json"]);
    expect(tags).toContainEqual({ tagName: "link", rel: "canonical", href: "https://inkstone.example/works/7?chapter=3" });
    expect(tags).toContainEqual({ property: "og:image", content: "https://inkstone.example/files/covers/7.webp" });
    expect(tags).toContainEqual({ property: "og:title", content: "第3章 起程 - 渡河" });
  });

  it("an R-18 or private work is noindex and hands out no address", () => {
    for (const variant of [{ rating: "r18" as const }, { visibility: "private" as const }]) {
      const tags = readerMeta({ origin: "https://inkstone.example", siteName: "砚台", work: { ...work, ...variant }, defaultCoverUrl: null, chapter: null });
      expect(names(tags)).toEqual(["description", "robots"]);
      expect(tags).toContainEqual({ name: "robots", content: "noindex" });
    }
  });

  it("cuts a long description at 120 characters, on one line", () => {
    const long = describeText("长".repeat(300));
    expect([Array.from(long).length, long.endsWith("…")]).toEqual([120, true]);
  });

  it("a listing page gets its canonical address only with SITE_URL; the site's name comes from the shell", () => {
    expect(pageMeta({ origin: null, siteName: "砚台", path: "/", title: "砚台", description: "简介" })).toEqual([{ name: "description", content: "简介" }]);
    expect(pageMeta({ origin: "https://a.example", siteName: "砚台", path: "/", title: "砚台", description: "简介" })).toContainEqual({ tagName: "link", rel: "canonical", href: "https://a.example/" });
    expect(siteNameOf([undefined, { data: { site: { title: "墨池" } } }])).toBe("墨池");
    expect(siteNameOf([{ data: null }])).toBe("砚台");
  });
});
