import { useLoaderData } from "react-router";
import { LibraryGrid } from "~/components/library/library-grid";
import { userContext } from "~/middleware/guards.server";
import { listPurchased } from "~/server/reading/library.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/purchased";

export const meta: Route.MetaFunction = () => [{ title: "已购买作品 - 砚台" }];

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const page = parsePage(url.searchParams.get("page"));
  const [result, defaultCoverUrl] = await Promise.all([listPurchased(user, page), getDisplayConfigValue("default_cover_url")]);
  return { ...result, defaultCoverUrl };
}

// Live: the shell layout's event stream reloads this page's data when the user's
// purchases change or a bought work changes (docs/product.md D9).
export default function Purchased() {
  const { items, hidden, page, pageCount, defaultCoverUrl } = useLoaderData<typeof loader>();
  return (
    <LibraryGrid
      title="已购买作品"
      empty="还没有购买的作品"
      items={items}
      hidden={hidden}
      page={page}
      pageCount={pageCount}
      path="/purchased"
      defaultCoverUrl={defaultCoverUrl}
    />
  );
}
