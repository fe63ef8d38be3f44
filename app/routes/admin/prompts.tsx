import { Link, redirect } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { PromptForm } from "~/components/admin/prompt-form";
import { AdminDeleteDialog, AdminDialog, QueryNotice } from "~/components/admin/ui";
import { Pagination } from "~/components/ui/pagination";
import { PROMPT_TYPE_LABELS, promptActionSchema } from "~/schemas/admin";
import { createPrompt, deletePrompt, getPrompt, listPrompts, updatePrompt } from "~/server/admin/prompts.server";
import { asRouteError } from "~/server/platform/errors.server";
import { parsePage } from "~/utils/pagination";
import { readForm, replyToForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import { adminActorOf } from "~/middleware/admin-actor.server";
import type { Route } from "./+types/prompts";
import { AdminTable } from "~/components/admin/admin-table";

export const meta: Route.MetaFunction = () => [{ title: "提示词管理 - 管理后台" }];

/** 新建提示词 creates once per one-time token (decision 172; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["prompt"] };

type Dialog = { mode: "new" } | { mode: "edit" | "delete"; id: number };

function dialogOf(url: URL): Dialog | null {
  const mode = url.searchParams.get("dialog");
  const id = Number(url.searchParams.get("id"));
  if (mode === "new") return { mode };
  if ((mode === "edit" || mode === "delete") && Number.isSafeInteger(id) && id > 0) return { mode, id };
  return null;
}

export async function loader({ url }: Route.LoaderArgs) {
  const dialog = dialogOf(url);
  try {
    const [list, prompt] = await Promise.all([
      listPrompts(parsePage(url.searchParams.get("page"))),
      dialog && dialog.mode !== "new" ? getPrompt(dialog.id) : null,
    ]);
    return { ...list, dialog, prompt, formToken: dialog?.mode === "new" ? newFormToken() : null };
  } catch (error) {
    asRouteError(error);
  }
}

/** Create, update (docs/product.md's Rules and Messages) and delete; a success goes back to page 1. */
export async function action({ request, context }: Route.ActionArgs) {
  const actor = adminActorOf(context);
  const form = await readForm(request);
  return replyToForm(
    form,
    promptActionSchema,
    async (value) => {
      if (value.intent === "delete") {
        await deletePrompt(actor, value.id);
        return redirect("/admin/prompts?notice=deleted");
      }
      const { code, title, systemContent, userContent, type, isSystem } = value;
      const input = { code, title, systemContent, userContent, type, isSystem };
      if (value.intent === "create") {
        // The same form sent twice (a double click, 重新提交) creates one prompt.
        await oncePerFormToken(
          { adminId: actor.admin.id },
          "prompt",
          formTokenOf(form),
          (record) => createPrompt(actor, input, record),
          async (id) => Number(id),
        );
      } else await updatePrompt(actor, value.id, input);
      return redirect("/admin/prompts?notice=saved");
    },
    { answer: (result) => ({ result }) },
  );
}

export default function Prompts({ loaderData, actionData }: Route.ComponentProps) {
  const { prompts, page, pageCount, dialog, prompt, formToken } = loaderData;
  const base = `/admin/prompts?page=${page}`;
  const here = dialog ? `${base}&dialog=${dialog.mode}${dialog.mode !== "new" ? `&id=${dialog.id}` : ""}` : base;
  return (
    <section className="admin-page">
      <div className="page-head">
        <h1>提示词管理</h1>
        <Link className="btn btn-primary" to={`${base}&dialog=new`} preventScrollReset>
          新建提示词
        </Link>
      </div>
      <QueryNotice />
      {prompts.length === 0 ? (
        <p className="empty-state">暂无提示词</p>
      ) : (
        <AdminTable label="提示词列表" framed head={["代码", "标题", "类型", "创建时间", "操作"]}>
          {prompts.map((p) => (
            <tr key={p.id}>
              <td><code>{p.code}</code>{p.builtIn ? <span className="admin-badge">内置</span> : null}</td>
              <td>{p.title}</td>
              <td>{PROMPT_TYPE_LABELS[p.type]}</td>
              <td>{formatShanghaiSeconds(p.createdAt)}</td>
              <td className="admin-actions">
                <Link to={`${base}&dialog=edit&id=${p.id}`} preventScrollReset>编辑</Link>
                {p.builtIn ? (
                  <span className="muted" title="内置提示词只能修改内容">不可删除</span>
                ) : (
                  <Link to={`${base}&dialog=delete&id=${p.id}`} preventScrollReset className="admin-danger-link">删除</Link>
                )}
              </td>
            </tr>
          ))}
        </AdminTable>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => `/admin/prompts?page=${p}`} />

      {dialog?.mode === "new" || dialog?.mode === "edit" ? (
        <AdminDialog title={dialog.mode === "new" ? "新建提示词" : "编辑提示词"} closeHref={base} wide>
          <PromptForm action={here} closeHref={base} initial={prompt} lastResult={actionData?.result} formToken={formToken ?? undefined} />
        </AdminDialog>
      ) : null}
      {dialog?.mode === "delete" && prompt ? (
        <AdminDeleteDialog title="删除提示词" closeHref={base} action={here} id={prompt.id} errors={actionData?.result.error?.[""] ?? undefined}>
          确定要删除提示词 <code>{prompt.code}</code>「{prompt.title}」吗？此操作无法撤销。
        </AdminDeleteDialog>
      ) : null}
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
