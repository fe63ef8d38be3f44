import { requireUser } from "~/server/session.server";
import type { Route } from "./+types/series-writing";

export const meta: Route.MetaFunction = () => [{ title: "连载续写 - 砚台" }];

export async function loader({ request }: Route.LoaderArgs) {
  await requireUser(request);
  return null;
}

/** Series continuation: a placeholder (docs/product.md: Roles, Screens). */
export default function SeriesWriting() {
  return (
    <section className="coming-soon">
      <h1>连载续写</h1>
      <p className="desktop-only-notice">连载续写仅支持在电脑上使用</p>
      <p className="desktop-only">功能开发中</p>
    </section>
  );
}
