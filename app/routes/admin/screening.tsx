import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link } from "react-router";
import { FormErrors } from "~/components/admin/ui";
import { FlashMessage } from "~/components/ui/flash-message";
import { Pagination } from "~/components/ui/pagination";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { adminActorOf } from "~/middleware/admin-actor.server";
import {
  parseScreeningFilters,
  SCREENING_CATEGORIES,
  SCREENING_DEFAULT_CATEGORY,
  SCREENING_DEFAULT_LEVEL,
  SCREENING_IMPORT_MAX_BYTES,
  SCREENING_LEVELS,
  SCREENING_MESSAGES,
  SCREENING_WORD_MAX,
  screeningActionSchema,
} from "~/schemas/screening";
import { formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readUploadForm, uploadBytes } from "~/server/platform/form-data.server";
import { addScreeningWord, deleteScreeningWord, importScreeningWords, listScreeningWords } from "~/server/screening/words.server";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/screening";
import { AdminTable } from "~/components/admin/admin-table";

export const meta: Route.MetaFunction = () => [{ title: "敏感词库 - 管理后台" }];

/** The list with its filters (docs/product.md#screening); the flash says what the last change did. */
export async function loader({ request, url }: Route.LoaderArgs) {
  const filters = parseScreeningFilters(url.searchParams);
  const [list, flash] = await Promise.all([listScreeningWords(filters, parsePage(url.searchParams.get("page"))), takeFlash(request, url)]);
  return data({ ...list, filters, notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

/** 添加, 删除, 导入 (a TXT: docs/product.md#screening gives its format); each audited. */
export async function action({ request, url, context }: Route.ActionArgs) {
  const actor = adminActorOf(context);
  const read = await replyOnDomainError(
    () => readUploadForm(request, SCREENING_IMPORT_MAX_BYTES + 64 * 1024, SCREENING_MESSAGES.importTooLarge),
    (error) => ({ status: "error" as const, error: { "": [error.message] } }),
  );
  if (!("form" in read)) return read;
  const submission = parseWithZod(read.form, { schema: screeningActionSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const value = submission.value;
  const back = `/admin/screening${url.search.replace(/([?&])page=\d+&?/, "$1")}`;
  return replyOnDomainError(
    async () => {
      if (value.intent === "add") {
        await addScreeningWord(actor, value);
        return redirectWithFlash(request, back, { kind: "success", text: SCREENING_MESSAGES.added });
      }
      if (value.intent === "delete") {
        await deleteScreeningWord(actor, value.id);
        return redirectWithFlash(request, back, { kind: "success", text: SCREENING_MESSAGES.deleted });
      }
      const file = read.files.get("file");
      if (!file || (file.size === 0 && !file.name)) return data(submission.reply({ fieldErrors: { file: [SCREENING_MESSAGES.importFile] } }), { status: 400 });
      const { added, updated } = await importScreeningWords(actor, { name: file.name, bytes: uploadBytes(file) }, value);
      return redirectWithFlash(request, "/admin/screening", { kind: "success", text: SCREENING_MESSAGES.imported(added, updated) });
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

function errorsOf(actionData: unknown): string[] {
  const error = (actionData as { error?: Record<string, string[] | null> } | undefined)?.error;
  return error ? (Object.values(error).flat().filter(Boolean) as string[]) : [];
}

export default function Screening({ loaderData, actionData }: Route.ComponentProps) {
  const { words, total, page, pageCount, filters, notice } = loaderData;
  const busy = useIsPending();
  const errors = errorsOf(actionData);
  const query = new URLSearchParams();
  if (filters.q) query.set("q", filters.q);
  if (filters.category) query.set("category", filters.category);
  if (filters.level) query.set("level", filters.level);
  const here = query.toString() ? `?${query}` : "";
  return (
    <section className="admin-page">
      <div className="page-head">
        <h1>敏感词库</h1>
        <a className="btn" href="/admin/screening/words.txt" download>
          导出TXT
        </a>
      </div>
      <p className="hint">
        作品、章节、评论、昵称和举报理由提交时都会检查敏感词（全角、繁体、大小写、夹杂空格标点或零宽字符也能识别）。
        级别：禁止——拒绝提交并提示词语；审核——待审核队列上线后送审，目前仅记录命中；替换——读者看到时以＊遮盖。改动几秒内对所有服务进程生效。
      </p>
      <FlashMessage notice={notice} />
      <FormErrors errors={errors} />
      <div className="admin-card">
        <h2>添加词语</h2>
        <Form method="post" action={`/admin/screening${here}`} className="admin-inline-form">
          <input type="hidden" name="intent" value="add" />
          <label className="field">
            <span>词语</span>
            <input type="text" name="word" required maxLength={SCREENING_WORD_MAX} />
          </label>
          <ChoiceField name="category" label="分类" defaultValue={SCREENING_DEFAULT_CATEGORY} options={CATEGORY_OPTIONS} />
          <ChoiceField name="level" label="级别" defaultValue={SCREENING_DEFAULT_LEVEL} options={LEVEL_OPTIONS} />
          <SubmitButton className="btn btn-primary" pending={busy}>
            添加
          </SubmitButton>
        </Form>
      </div>
      <div className="admin-card">
        <h2>导入TXT</h2>
        <p className="hint">
          UTF-8 编码，每行一个词：<code>词语&lt;Tab&gt;分类&lt;Tab&gt;级别</code>。分类和级别可省略，省略时用下面选的默认值；空行和以 # 开头的行跳过。
          已在词库中的词语按文件更新分类和级别；文件有任何一行不对则整个文件不导入。
        </p>
        <Form method="post" encType="multipart/form-data" className="admin-inline-form">
          <input type="hidden" name="intent" value="import" />
          <label className="field">
            <span>词库文件</span>
            <input type="file" name="file" accept=".txt,text/plain" required />
          </label>
          <ChoiceField name="category" label="默认分类" defaultValue={SCREENING_DEFAULT_CATEGORY} options={CATEGORY_OPTIONS} />
          <ChoiceField name="level" label="默认级别" defaultValue={SCREENING_DEFAULT_LEVEL} options={LEVEL_OPTIONS} />
          <SubmitButton className="btn btn-primary" pending={busy}>
            导入
          </SubmitButton>
        </Form>
      </div>
      <Form method="get" className="admin-card admin-inline-form" aria-label="筛选词语">
        <label className="field">
          <span>搜索</span>
          <input type="search" name="q" defaultValue={filters.q} maxLength={SCREENING_WORD_MAX} />
        </label>
        <label className="field">
          <span>分类</span>
          <select name="category" defaultValue={filters.category ?? ""}>
            <option value="">全部</option>
            {SCREENING_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>级别</span>
          <select name="level" defaultValue={filters.level ?? ""}>
            <option value="">全部</option>
            {Object.entries(SCREENING_LEVELS).map(([key, name]) => (
              <option key={key} value={key}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn">
          筛选
        </button>
      </Form>
      <p className="muted">共 {total} 个词语</p>
      {words.length === 0 ? (
        <p className="empty-state">{here ? "没有符合条件的词语" : "词库为空"}</p>
      ) : (
        <AdminTable label="敏感词列表" framed head={["词语", "分类", "级别", "添加时间", "操作"]}>
          {words.map((w) => (
            <tr key={w.id} data-testid="screening-word">
              <td>{w.word}</td>
              <td>{w.category}</td>
              <td>{SCREENING_LEVELS[w.level]}</td>
              <td>{formatShanghaiSeconds(w.createdAt)}</td>
              <td>
                <Form method="post" action={`/admin/screening${here}`}>
                  <input type="hidden" name="id" value={w.id} />
                  <SubmitButton name="intent" value="delete" className="btn-link admin-danger-link" aria-label={`删除${w.word}`} pending={busy}>
                    删除
                  </SubmitButton>
                </Form>
              </td>
            </tr>
          ))}
        </AdminTable>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => `/admin/screening?${new URLSearchParams({ ...Object.fromEntries(query), page: String(p) })}`} />
      <p className="hint">
        <Link to="/admin/audit?targetType=screening-word">查看词库的操作日志</Link>
      </p>
    </section>
  );
}

const CATEGORY_OPTIONS = SCREENING_CATEGORIES.map((c) => [c, c] as const);
const LEVEL_OPTIONS = Object.entries(SCREENING_LEVELS);

/** A word's category or level as a select (the add form and the import's defaults). */
function ChoiceField({ name, label, defaultValue, options }: { name: string; label: string; defaultValue: string; options: readonly (readonly [string, string])[] }) {
  return (
    <label className="field">
      <span>{label}</span>
      <select name={name} defaultValue={defaultValue}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
