import { Form, Link, useLoaderData, useLocation } from "react-router";
import { authHref } from "~/components/shell/auth-links";
import { getSessionUser } from "~/server/session.server";
import { getDisplayConfig } from "~/server/site-config.server";
import type { Route } from "./+types/index";

export const meta: Route.MetaFunction = () => [
  { title: "砚台 - 让短篇写作更简单" },
  { name: "description", content: "砚台：发布、阅读、购买小说，借助 AI 写作助手完成你的故事。" },
];

export async function loader({ request }: Route.LoaderArgs) {
  const [user, site] = await Promise.all([
    getSessionUser(request),
    getDisplayConfig(["hero_url", "site_description"] as const),
  ]);
  return { signedIn: Boolean(user), heroUrl: site.hero_url, description: site.site_description };
}

export default function Home() {
  const { signedIn, heroUrl, description } = useLoaderData<typeof loader>();
  return signedIn ? <Community /> : <Landing heroUrl={heroUrl} description={description} />;
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

function Community() {
  return (
    <section className="community">
      <h1>发现好故事</h1>
      <Form method="get" action="/works" className="search-box" role="search">
        <input type="search" name="q" placeholder="搜索作品标题或简介" aria-label="搜索作品" maxLength={100} />
        <input type="hidden" name="page" value="1" />
        <button type="submit" className="btn btn-primary">
          搜索
        </button>
      </Form>
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
      <p className="browse-all">
        <Link to="/works?page=1">浏览全部作品 →</Link>
      </p>
    </section>
  );
}
