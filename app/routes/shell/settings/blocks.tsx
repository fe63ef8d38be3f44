import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, useLoaderData } from "react-router";
import { SettingsSubPage } from "~/components/settings/settings-page";
import { FlashMessage } from "~/components/ui/flash-message";
import { userContext } from "~/middleware/guards.server";
import { BLOCK_MESSAGES, blockFormSchema } from "~/schemas/blocks";
import { tagHref } from "~/utils/hrefs";
import { addBlock, listBlocks, removeBlock } from "~/server/catalog/blocks.server";
import { domainErrorOf } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { safeRedirectPath } from "~/utils/redirect";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/blocks";

export const meta: Route.MetaFunction = () => [{ title: "屏蔽 - 砚台" }];

/** 屏蔽 (docs/product.md#blocking, decision 233): the reader's blocked authors and tags. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [blocks, flash] = await Promise.all([listBlocks(user.id), takeFlash(request, url)]);
  return data({ blocks, notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

/**
 * Every 屏蔽 / 取消屏蔽 button posts here (a work's page, an author's, a tag's, this list),
 * with the page to go back to: success redirects there with a notice; a refusal (oneself,
 * twice, an unknown author, a bad tag) answers 4xx on this page with the message.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: blockFormSchema });
  if (submission.status !== "success") return data({ error: BLOCK_MESSAGES.unknown }, { status: 400 });
  const { intent, kind, value, back } = submission.value;
  const to = safeRedirectPath(back, "/settings/blocks");
  try {
    if (intent === "unblock") {
      await removeBlock(user.id, kind, value);
      return redirectWithFlash(request, to, { kind: "success", text: "已取消屏蔽" });
    }
    const name = await addBlock(user.id, kind, value);
    const text = kind === "author" ? `已屏蔽作者“${name}”，其作品不会再出现在你看到的列表中` : `已屏蔽标签“${name}”，带这个标签的作品不会再出现在你看到的列表中`;
    return redirectWithFlash(request, to, { kind: "success", text });
  } catch (error) {
    const known = domainErrorOf(error);
    if (!known) throw error;
    return data({ error: known.message }, { status: known.status });
  }
}

export default function Blocks({ actionData }: Route.ComponentProps) {
  const { blocks, notice } = useLoaderData<typeof loader>();
  return (
    <SettingsSubPage title="屏蔽">
      <FlashMessage notice={notice} />
      {actionData?.error ? (
        <p className="notice notice-error" role="alert">
          {actionData.error}
        </p>
      ) : null}
      <p className="muted">屏蔽的作者和标签的作品不会出现在首页、作品列表、搜索、标签页和排行榜中。</p>
      <h2>屏蔽的作者</h2>
      {blocks.authors.length === 0 ? (
        <p className="muted">没有屏蔽作者。可以在作品页或作者主页屏蔽。</p>
      ) : (
        <ul className="block-list" data-testid="blocked-authors">
          {blocks.authors.map((a) => (
            <li key={a.id}>
              <Link to={`/authors/${a.id}`}>{a.nickname}</Link>
              <span className="muted">{formatShanghai(a.blockedAt)}</span>
              <UnblockForm kind="author" value={a.id} label={`取消屏蔽作者${a.nickname}`} />
            </li>
          ))}
        </ul>
      )}
      <h2>屏蔽的标签</h2>
      {blocks.tags.length === 0 ? (
        <p className="muted">没有屏蔽标签。</p>
      ) : (
        <ul className="block-list" data-testid="blocked-tags">
          {blocks.tags.map((t) => (
            <li key={t.tag}>
              <Link to={tagHref(t.tag)}>#{t.tag}</Link>
              <span className="muted">{formatShanghai(t.blockedAt)}</span>
              <UnblockForm kind="tag" value={t.tag} label={`取消屏蔽标签${t.tag}`} />
            </li>
          ))}
        </ul>
      )}
      <Form method="post" action="/settings/blocks" className="block-add">
        <input type="hidden" name="intent" value="block" />
        <input type="hidden" name="kind" value="tag" />
        <input type="hidden" name="back" value="/settings/blocks" />
        <label htmlFor="block-tag">屏蔽标签</label>
        <input id="block-tag" name="value" maxLength={20} required placeholder="例如：虐文" />
        <button type="submit" className="btn btn-small">
          屏蔽
        </button>
      </Form>
    </SettingsSubPage>
  );
}

function UnblockForm({ kind, value, label }: { kind: "author" | "tag"; value: string; label: string }) {
  return (
    <Form method="post" action="/settings/blocks" className="inline-form">
      <input type="hidden" name="intent" value="unblock" />
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="value" value={value} />
      <input type="hidden" name="back" value="/settings/blocks" />
      <button type="submit" className="btn btn-small" aria-label={label}>
        取消屏蔽
      </button>
    </Form>
  );
}
