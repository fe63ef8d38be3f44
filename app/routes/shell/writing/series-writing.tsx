import type { Route } from "./+types/series-writing";

export const meta: Route.MetaFunction = () => [{ title: "连载续写 - 砚台" }];

// No data, but a loader: a client-side navigation then asks the server, whose
// signed-in guard runs (server middleware runs only when the server is asked).
export async function loader() {
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
