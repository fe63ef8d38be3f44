import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { Form, Link, useLoaderData, useLocation } from "react-router";
import { WorkCard } from "~/components/work-card";
import { authHref } from "~/components/shell/auth-links";
import { AnnouncementList } from "~/components/announcements";
import { continueReading, shelfUpdates } from "~/server/catalog/home.server";
import { curatedHomeRows, currentAnnouncements, type CuratedRowView } from "~/server/catalog/front-page.server";
import { sharedHomeRows } from "~/server/catalog/rankings.server";
import { getSessionUser } from "~/server/identity/session.server";
import { getDisplayConfig } from "~/server/platform/site-config.server";
import { configuredSiteOrigin } from "~/server/platform/request.server";
import { pageMeta, siteNameOf } from "~/components/shell/seo-meta";
import type { Route } from "./+types/index";

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

export const meta: Route.MetaFunction = ({ data, matches }) => [
  { title: "砚台 - 让短篇写作更简单" },
  ...pageMeta({
    origin: data?.siteOrigin ?? null,
    siteName: siteNameOf(matches),
    path: "/",
    title: siteNameOf(matches),
    description: data?.description || "砚台：发布、阅读、购买小说，借助 AI 写作助手完成你的故事。",
  }),
];

/**
 * `/` (docs/decisions/120). Visitors: the hero and a row of all-ages works, the same for
 * every visitor (so the page cache of decision 013 keeps serving it). Signed in: 继续阅读
 * and 书架更新 read for this reader alone, and 新书, 热门, 新完本 from the shared copy keyed
 * by the two audience preferences: a signed-in home costs the session lookup and two
 * small indexed queries of the reader's own rows. Above the computed rows: the current 公告
 * and the operators' 编辑推荐 rows (docs/product.md#front-page), one query each, from the
 * same shared copy.
 */
export async function loader({ request }: Route.LoaderArgs) {
  const [user, site] = await Promise.all([
    getSessionUser(request),
    getDisplayConfig(["hero_url", "site_description", "default_cover_url"] as const),
  ]);
  const [shared, curated, announcements] = await Promise.all([sharedHomeRows(user), curatedHomeRows(user), currentAnnouncements()]);
  const common = {
    heroUrl: site.hero_url,
    description: site.site_description,
    defaultCoverUrl: site.default_cover_url,
    curated,
    announcements,
    siteOrigin: configuredSiteOrigin(),
  };
  if (!user) {
    // 热门 when anything was read lately, else the newest works.
    const row = shared.hot.length > 0 ? { title: "热门作品", works: shared.hot } : { title: "新书速递", works: shared.newest };
    return { signedIn: false as const, ...common, landingRow: row };
  }
  const [reading, updates] = await Promise.all([continueReading(user), shelfUpdates(user)]);
  return { signedIn: true as const, ...common, shared, reading, updates };
}

export default function Home() {
  const data = useLoaderData<typeof loader>();
  if (!data.signedIn) {
    return (
      <>
        <Landing heroUrl={data.heroUrl} description={data.description} />
        <AnnouncementList announcements={data.announcements} />
        <CuratedRows rows={data.curated} defaultCoverUrl={data.defaultCoverUrl} />
        <HomeSection title={data.landingRow.title} more="/works?page=1" id="landing-row">
          {data.landingRow.works.map((work) => (
            <WorkCard key={work.id} work={work} defaultCoverUrl={data.defaultCoverUrl} />
          ))}
        </HomeSection>
      </>
    );
  }
  const { reading, updates, shared, defaultCoverUrl, curated, announcements } = data;
  return (
    <section className="community">
      <h1>发现好故事</h1>
      <Form method="get" action="/works" className="search-box" role="search">
        <input type="search" name="q" placeholder="搜索作品标题、简介或作者" aria-label="搜索作品" maxLength={100} />
        <input type="hidden" name="page" value="1" />
        <button type="submit" className="btn btn-primary">
          搜索
        </button>
      </Form>
      <AnnouncementList announcements={announcements} />
      {reading.length > 0 ? (
        <HomeSection title="继续阅读" id="continue-reading">
          {reading.map((item) => (
            <div key={item.work.id} className="home-item">
              <WorkCard work={item.work} defaultCoverUrl={defaultCoverUrl} />
              <p className="home-item-note">
                <Link to={item.href}>
                  读到第 {item.chapterOrder} 章 · {item.chapterTitle}
                </Link>
              </p>
            </div>
          ))}
        </HomeSection>
      ) : null}
      {updates.length > 0 ? (
        <HomeSection title="书架更新" more="/following" id="shelf-updates">
          {updates.map((item) => (
            <div key={item.work.id} className="home-item">
              <WorkCard work={item.work} defaultCoverUrl={defaultCoverUrl} />
              <p className="home-item-note">
                <span className="badge badge-unread">{item.unread} 章未读</span>{" "}
                <Link to={item.href}>最新：{item.latestChapterTitle}</Link>
              </p>
            </div>
          ))}
        </HomeSection>
      ) : null}
      <CuratedRows rows={curated} defaultCoverUrl={defaultCoverUrl} />
      <HomeSection title="热门" more="/rankings" id="hot" empty="最近还没有热门作品">
        {shared.hot.map((work) => (
          <WorkCard key={work.id} work={work} defaultCoverUrl={defaultCoverUrl} />
        ))}
      </HomeSection>
      <HomeSection title="新书" more="/works?page=1" id="newest" empty="暂无作品">
        {shared.newest.map((work) => (
          <WorkCard key={work.id} work={work} defaultCoverUrl={defaultCoverUrl} />
        ))}
      </HomeSection>
      <HomeSection title="新完本" more="/works?status=completed&page=1" id="completed" empty="暂无完本作品">
        {shared.completed.map((work) => (
          <WorkCard key={work.id} work={work} defaultCoverUrl={defaultCoverUrl} />
        ))}
      </HomeSection>
      <div className="cta-card">
        <div>
          <h2>发布你的作品</h2>
          <ul className="explain">
            <li>单篇完结作品可以导入，用于短篇仿写；</li>
            <li>连载作品可以用于续写；</li>
            <li>多章节 TXT 作品仅供在线阅读。</li>
          </ul>
        </div>
        <Link className="btn btn-primary" to="/submit">
          上传作品
        </Link>
      </div>
    </section>
  );
}

/** 编辑推荐: the operators' rows, each a HomeSection of its own (data-testid curated-row). */
function CuratedRows({ rows, defaultCoverUrl }: { rows: CuratedRowView[]; defaultCoverUrl: string }) {
  return rows.map((row) => (
    <HomeSection key={row.id} title={row.name} id={`curated-${row.id}`} testId="curated-row">
      {row.works.map((work) => (
        <WorkCard key={work.id} work={work} defaultCoverUrl={defaultCoverUrl} />
      ))}
    </HomeSection>
  ));
}

function HomeSection({
  title,
  id,
  more,
  empty,
  testId,
  children,
}: {
  title: string;
  id: string;
  testId?: string;
  more?: string;
  empty?: string;
  children: React.ReactNode[];
}) {
  return (
    <section className="home-section" aria-labelledby={`${id}-title`} data-testid={testId ?? id}>
      <div className="home-section-head">
        <h2 id={`${id}-title`}>{title}</h2>
        {more ? <Link to={more}>更多 →</Link> : null}
      </div>
      {children.length > 0 ? <div className="home-row">{children}</div> : <p className="muted">{empty ?? "暂无作品"}</p>}
    </section>
  );
}

function Landing({ heroUrl, description }: { heroUrl: string; description: string }) {
  const location = useLocation();
  return (
    <section className="landing">
      <div className="landing-hero">
        {heroUrl ? (
          <img src={heroUrl} alt="" className="hero-image" width={600} height={400} />
        ) : (
          <div className="hero-image hero-placeholder" aria-hidden="true">
            <span>砚</span>
          </div>
        )}
      </div>
      <div className="landing-text">
        <h1>让短篇写作更简单</h1>
        <p className="landing-description">{description}</p>
        <Link className="btn btn-primary btn-large" to={authHref(location, "register", "/")}>
          立即体验
        </Link>
      </div>
    </section>
  );
}
