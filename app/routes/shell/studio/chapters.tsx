import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, useLoaderData } from "react-router";
import { ChapterList } from "~/components/studio/chapter-list";
import { StudioNav } from "~/components/studio/studio-nav";
import { Dialog } from "~/components/ui/dialog";
import { FlashMessage } from "~/components/ui/flash-message";
import { FormError, FormTokenField } from "~/components/ui/forms";
import { Pagination } from "~/components/ui/pagination";
import { readSentFields } from "~/schemas/form-fields";
import { chapterManagerPageSchema, chapterManagerSchema } from "~/schemas/studio";
import { asRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken } from "~/server/platform/form-tokens.server";
import { userContext } from "~/middleware/guards.server";
import { managerPage } from "~/server/studio/chapters.server";
import { overdueThreads } from "~/server/studio/bible.server";
import { runChapterManagerAction } from "~/server/studio/manager-actions.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/chapters";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `章节管理《${data?.work.title ?? ""}》 - 砚台` }];

/** 新建分卷 creates once per one-time token (decision 077; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["volume"] };

function idParam(value: string | null): number | null {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export async function loader({ request, params, context, url }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [view, flash] = await Promise.all([
    managerPage(user.id, Number(params.id), parsePage(url.searchParams.get("page"))).catch(asRouteError),
    takeFlash(request, url),
  ]);
  // Open plot threads whose due chapter is already published (docs/product.md#story-bible).
  const overdue = await overdueThreads(view.work.id);
  const confirmId = idParam(url.searchParams.get("confirm"));
  const confirm = view.rows.find((r) => r.kind === "chapter" && r.id === confirmId) ?? null;
  return data(
    {
      work: { id: view.work.id, title: view.work.title, type: view.work.type },
      total: view.total,
      page: view.page,
      pageCount: view.pageCount,
      rows: view.rows,
      volumes: view.volumes,
      selected: idParam(url.searchParams.get("chapter")),
      selectedVolume: idParam(url.searchParams.get("volume")),
      confirm: confirm && { id: confirm.id, title: confirm.title },
      notice: flash.notice,
      overdue,
      // 新建分卷's one-time token (decision 077): a new one on every load, after every post.
      formToken: newFormToken(),
    },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const form = await readForm(request);
  const { page } = readSentFields(form, chapterManagerPageSchema);
  const submission = parseWithZod(form, { schema: chapterManagerSchema });
  if (submission.status !== "success") {
    const errors = submission.error ?? {};
    const message = errors.intent || errors[""] ? "无法识别的操作" : (Object.values(errors).flat().find(Boolean) ?? "无法识别的操作");
    return data({ error: message }, { status: 400 });
  }
  const action = submission.value;
  return replyOnDomainError(
    async () => {
      const notice = await runChapterManagerAction(user.id, workId, action, action.intent === "volume-create" ? formTokenOf(form) : null);
      const anchor = "chapterId" in action && action.chapterId && action.intent !== "delete" ? `#c-${action.chapterId}` : "";
      return redirectWithFlash(request, `/works/${workId}/chapters?page=${page}${anchor}`, { kind: "success", text: notice });
    },
    (error) => ({ error: error.message }),
  );
}

export default function ChapterManager({ actionData }: Route.ComponentProps) {
  const { work, total, page, pageCount, rows, volumes, selected, selectedVolume, confirm, notice, overdue, formToken } = useLoaderData<typeof loader>();
  const base = `/works/${work.id}/chapters`;
  const canInsert = work.type !== "single_chapter";
  return (
    <section className="studio-page">
      <StudioNav workId={work.id} title={work.title} current="chapters" />
      <FlashMessage notice={notice} />
      <FormError errors={actionData?.error} />
      {overdue.length ? (
        <div className="notice notice-warning chapter-manager-overdue" role="status">
          <strong>有 {overdue.length} 条伏笔已逾期未回收：</strong>
          {overdue.slice(0, 5).map((t, i) => (
            <span key={t.id}>
              {i ? "；" : ""}「{t.title}」应在第{t.dueChapter}章前回收
            </span>
          ))}
          {overdue.length > 5 ? "……" : ""} <Link to={`/works/${work.id}/bible?tab=threads`}>查看伏笔</Link>
        </div>
      ) : null}
      <div className="studio-toolbar">
        <p className="muted">共 {total} 章{volumes.length ? `，${volumes.length} 卷` : ""}。{total > 1 ? "可拖动章节调整顺序，或使用上移、下移和“更多”中的移动。" : ""}</p>
        {canInsert ? <Link className="btn btn-primary" to={`${base}/new`}>添加章节</Link> : null}
      </div>
      {canInsert ? (
        <Form method="post" className="inline-form studio-volume-form">
          <input type="hidden" name="page" value={page} />
          <FormTokenField token={formToken} />
          <input type="text" name="title" placeholder="新分卷名" maxLength={100} required aria-label="新分卷名" />
          <button type="submit" name="intent" value="volume-create" className="btn">在末尾新建分卷</button>
        </Form>
      ) : null}
      <ChapterList workId={work.id} page={page} total={total} rows={rows} volumes={volumes} selected={selected} selectedVolume={selectedVolume} canInsert={canInsert} formToken={formToken} />
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => `${base}?page=${p}`} window={3} />
      {confirm ? (
        <Dialog title="删除章节" closeHref={`${base}?page=${page}&chapter=${confirm.id}#c-${confirm.id}`}>
          <p>确定要删除《{confirm.title}》吗？删除后无法恢复；停在这一章的读者会从下一章开始继续阅读。</p>
          <Form method="post" className="form-actions">
            <input type="hidden" name="page" value={page} />
            <input type="hidden" name="chapterId" value={confirm.id} />
            <button type="submit" name="intent" value="delete" className="btn btn-danger">确认删除</button>
            <Link to={`${base}?page=${page}`} className="btn" replace>取消</Link>
          </Form>
        </Dialog>
      ) : null}
    </section>
  );
}
