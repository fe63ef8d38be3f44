import { getFormProps, getTextareaProps } from "@conform-to/react";
import { screenedParagraphs } from "~/server/screening/screening.server";
import { SCREENING_LEVELS } from "~/schemas/screening";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect } from "react-router";
import { ClaimForm, FieldErrors, FormErrors, QueryNotice } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { adminContext } from "~/middleware/guards.server";
import {
  REVIEW_DECISION_LABELS_BY_KIND,
  REVIEW_DECISION_STATUS,
  REVIEW_KIND_DECISIONS,
  REVIEW_KIND_LABELS,
  REVIEW_NOTE_MAX,
  REVIEW_STATUS_LABELS,
  reviewItemSchema,
} from "~/schemas/review";
import { claimItem, decideItem, reviewItemView } from "~/server/admin/review-queue.server";
import { formErrorsOf, orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { formatNumber } from "~/utils/format";
import { formatShanghai } from "~/utils/shanghai-time";
import { textDiff } from "~/utils/text-diff";
import { DiffView } from "~/components/ui/diff-view";
import type { Route } from "./+types/review-item";

/**
 * One item under review (docs/product.md#review): the chapter's text as submitted (or the
 * held comment), 领取, and the decisions its kind allows (decision 206) with a reason the
 * author sees. A 总编辑 or 超级管理员 may decide an item someone else holds, and only they
 * decide appeals.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: `审核《${data?.item.chapter?.title ?? data?.item.work.title ?? ""}》 - 管理后台` }];

export async function loader({ params, context }: Route.LoaderArgs) {
  const { role } = context.get(adminContext);
  const item = await orRouteError(() => reviewItemView(adminActorOf(context), Number(params.id)));
  return {
    item: {
      ...item,
      submittedAt: formatShanghai(item.submittedAt),
      decidedAt: item.decidedAt ? formatShanghai(item.decidedAt) : null,
      chapter: item.chapter ? { ...item.chapter, publishAt: item.chapter.publishAt ? formatShanghai(item.chapter.publishAt) : null } : null,
    },
    overrule: role === "super" || role === "chief_editor",
    // The text with every word of the screening list marked (issue 30: the reviewer sees each hit).
    paragraphs: await screenedParagraphs(item.comment ?? item.chapter?.content ?? ""),
    // 作者的话 is screened with the text (decision 202): a 审核 word there holds the chapter too.
    notePieces: item.comment === null && item.chapter && /\S/u.test(item.chapter.authorNote) ? await screenedParagraphs(item.chapter.authorNote) : null,
    // An edit: what changed against the text readers have (decision 213).
    changes:
      item.approved && item.chapter
        ? {
            title: item.approved.title !== item.chapter.title ? item.approved.title : null,
            text: textDiff(item.approved.content, item.chapter.content),
            note: item.approved.authorNote !== item.chapter.authorNote ? textDiff(item.approved.authorNote, item.chapter.authorNote) : null,
          }
        : null,
    workMeta: item.meta ? await workMetaFacts(item.meta) : null,
  };
}

/** A work's item (decision 214): each field with its screening hits, and what changed against readers' version. */
async function workMetaFacts({ submitted, approved }: NonNullable<Awaited<ReturnType<typeof reviewItemView>>["meta"]>) {
  return {
    submitted,
    approved,
    title: await screenedParagraphs(submitted.title),
    description: await screenedParagraphs(submitted.description),
    tags: await screenedParagraphs(submitted.tags.join("、")),
    changes: approved
      ? {
          title: approved.title !== submitted.title ? approved.title : null,
          description: approved.description !== submitted.description ? textDiff(approved.description, submitted.description) : null,
          tagsAdded: submitted.tags.filter((t) => !approved.tags.includes(t)),
          tagsRemoved: approved.tags.filter((t) => !submitted.tags.includes(t)),
          cover: approved.coverUrl !== submitted.coverUrl,
        }
      : null,
  };
}

const NOTICE = {
  published: "review-approved",
  scheduled: "review-scheduled",
  returned: "review-returned",
  rejected: "review-rejected",
  passed: "review-passed",
  "sample-returned": "review-sample-returned",
  upheld: "review-upheld",
  "edit-applied": "review-edit-applied",
  "edit-returned": "review-edit-returned",
  "edit-rejected": "review-edit-rejected",
  "comment-shown": "review-comment-shown",
  "comment-refused": "review-comment-refused",
  "appeal-withdrawn": "review-appeal-withdrawn",
  "approval-returned": "review-approval-returned",
  "approval-rejected": "review-approval-rejected",
  "work-approved": "review-work-approved",
  "work-returned": "review-work-returned",
  "work-rejected": "review-work-rejected",
  "work-approval-returned": "review-work-approval-returned",
  "work-approval-rejected": "review-work-approval-rejected",
} as const;

export async function action({ request, params, context }: Route.ActionArgs) {
  const { role } = context.get(adminContext);
  const actor = adminActorOf(context);
  const id = Number(params.id);
  const submission = parseWithZod(await readForm(request), { schema: reviewItemSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const value = submission.value;
  return replyOnDomainError(
    async () => {
      if (value.intent === "claim") {
        await claimItem(actor, role, id);
        return redirect(`/admin/review/${id}?notice=review-claimed`);
      }
      const outcome = await decideItem(actor, role, id, value.decision, value.note);
      return redirect(`/admin/review?notice=${NOTICE[outcome]}`);
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

export default function ReviewItem({ loaderData, actionData }: Route.ComponentProps) {
  const { item, overrule, paragraphs, notePieces, changes, workMeta } = loaderData;
  const [form, fields] = useSchemaForm(reviewItemSchema, { id: "review-decision", lastResult: actionData });
  const pending = item.status === "pending";
  // A 总编辑 may also reverse a decision on a release or a work's information
  // (docs/product.md#review, decisions 214, 239); only they decide appeals.
  const reversible = overrule && (item.kind === "release" || item.kind === "work") && (item.status === "approved" || item.status === "returned" || item.status === "rejected");
  const forMe = item.kind !== "appeal" || overrule;
  const canDecide = forMe && ((pending && (item.claimedByMe || overrule)) || reversible);
  const labels = REVIEW_DECISION_LABELS_BY_KIND[item.kind];
  return (
    <section className="admin-page">
      <p>
        <Link to="/admin/review">← 返回审核队列</Link>
      </p>
      <h1>
        {REVIEW_KIND_LABELS[item.kind]}：《{workMeta?.submitted.title ?? item.work.title}》{item.chapter?.title}
      </h1>
      <QueryNotice />
      <FormErrors form={form} />
      <dl className="admin-facts" data-testid="review-facts">
        <dt>作者</dt>
        <dd>{item.author}</dd>
        <dt>状态</dt>
        <dd>{REVIEW_STATUS_LABELS[item.status]}</dd>
        <dt>送审原因</dt>
        <dd>{item.reason}</dd>
        {item.appeal ? (
          <>
            <dt>原审核结果</dt>
            <dd>
              {item.appeal.status}
              {item.appeal.decidedBy ? `（${item.appeal.decidedBy}）` : ""}
              {item.appeal.note ? `：${item.appeal.note}` : ""}
            </dd>
            <dt>作者申诉</dt>
            <dd className="admin-break" data-testid="appeal-note">
              {item.appeal.authorNote}
            </dd>
          </>
        ) : null}
        <dt>提交时间</dt>
        <dd>{item.submittedAt}</dd>
        {item.chapter?.publishAt && pending ? (
          <>
            <dt>定时发布</dt>
            <dd>{item.chapter.publishAt}（审核通过后按时发布）</dd>
          </>
        ) : null}
        <dt>领取</dt>
        <dd>{item.claimedByMe ? "由你领取" : (item.claimedBy ?? "未领取")}</dd>
        <dt>审核版本</dt>
        <dd className="admin-break">
          第 {item.revision} 版 · SHA-256 {item.contentHash.slice(0, 16)}…
        </dd>
        {item.decidedBy ? (
          <>
            <dt>处理</dt>
            <dd>
              {item.decidedBy} · {item.decidedAt}
              {item.note ? `：${item.note}` : ""}
            </dd>
          </>
        ) : null}
      </dl>
      {pending && !forMe ? <p className="admin-muted">申诉由总编辑处理。</p> : null}
      {pending && forMe && !item.claimedByMe ? (
        <ClaimForm intent="claim" label="领取" />
      ) : null}
      {canDecide ? (
        <Form method="post" {...getFormProps(form)} className="admin-card">
          <input type="hidden" name="intent" value="decide" />
          <label className="field">
            <span>原因（退回修改或拒绝时必填，作者会看到；不超过 {REVIEW_NOTE_MAX} 字）</span>
            <textarea {...getTextareaProps(fields.note)} rows={3} maxLength={REVIEW_NOTE_MAX} />
            <FieldErrors field={fields.note} />
          </label>
          <div className="admin-inline-form">
            {REVIEW_KIND_DECISIONS[item.kind]
              .filter((d) => !reversible || REVIEW_DECISION_STATUS[d] !== item.status)
              .map((d) => (
                <SubmitButton key={d} name="decision" value={d} className={d === "approve" ? "btn btn-primary" : d === "reject" ? "btn btn-danger" : "btn"}>
                  {labels[d]}
                </SubmitButton>
              ))}
          </div>
        </Form>
      ) : null}
      {workMeta ? (
        <WorkMetaReview meta={workMeta} />
      ) : null}
      {changes && item.chapter ? (
        <>
          <h2>与读者现在看到的版本相比</h2>
          {changes.title !== null ? (
            <p data-testid="review-title-change">
              标题：<del>{changes.title}</del> → <ins>{item.chapter.title}</ins>
            </p>
          ) : null}
          <DiffView parts={changes.text} testId="review-diff" />
          {changes.note ? (
            <>
              <h3>作者的话的修改</h3>
              <DiffView parts={changes.note} />
            </>
          ) : null}
        </>
      ) : null}
      {item.chapter || item.comment !== null ? (
        <>
          <h2>
            {item.comment !== null ? (
              "评论内容"
            ) : (
              <>
                {changes ? "修改后的正文" : "正文"} <small className="admin-muted">{formatNumber(item.chapter?.wordCount ?? 0)} 字</small>
              </>
            )}
          </h2>
          <ScreenedText paragraphs={paragraphs} testId="review-text" />
        </>
      ) : null}
      {notePieces ? (
        <>
          <h2>作者的话</h2>
          <ScreenedText paragraphs={notePieces} testId="review-author-note" />
        </>
      ) : null}
    </section>
  );
}

/**
 * A work's title, description, cover and tags as submitted, each with its screening hits;
 * for an approved work, what changes against what readers have (decision 214).
 */
function WorkMetaReview({ meta }: { meta: NonNullable<Route.ComponentProps["loaderData"]["workMeta"]> }) {
  const { changes } = meta;
  return (
    <>
      <h2>{meta.approved ? "作品信息的修改" : "新作品的信息"}</h2>
      {meta.approved ? null : <p className="admin-muted">这部作品在通过前对读者不可见。</p>}
      <dl className="admin-facts" data-testid="review-work-meta">
        <dt>书名</dt>
        <dd>
          {changes?.title != null ? (
            <span data-testid="review-title-change">
              <del>{changes.title}</del> →{" "}
            </span>
          ) : null}
          <ScreenedPieces paragraphs={meta.title} />
        </dd>
        <dt>标签</dt>
        <dd>
          {meta.submitted.tags.length ? <ScreenedPieces paragraphs={meta.tags} /> : "（无）"}
          {changes && (changes.tagsAdded.length || changes.tagsRemoved.length) ? (
            <small className="admin-muted">
              {changes.tagsAdded.length ? ` 新增：${changes.tagsAdded.join("、")}` : ""}
              {changes.tagsRemoved.length ? ` 去掉：${changes.tagsRemoved.join("、")}` : ""}
            </small>
          ) : null}
        </dd>
        <dt>封面</dt>
        <dd className="review-covers">
          {changes?.cover ? (
            <>
              <CoverImage url={meta.approved!.coverUrl} label="读者现在看到的封面" /> → <CoverImage url={meta.submitted.coverUrl} label="提交的封面" />
            </>
          ) : (
            <CoverImage url={meta.submitted.coverUrl} label={changes ? "封面未修改" : "提交的封面"} />
          )}
        </dd>
      </dl>
      {changes?.description ? (
        <>
          <h3>简介的修改</h3>
          <DiffView parts={changes.description} testId="review-diff" />
        </>
      ) : null}
      <h3>简介</h3>
      <ScreenedText paragraphs={meta.description} testId="review-text" />
    </>
  );
}

function CoverImage({ url, label }: { url: string | null; label: string }) {
  return url ? <img src={url} alt={label} width={100} height={138} /> : <span className="admin-muted">{label}：默认封面</span>;
}

type Paragraphs = Route.ComponentProps["loaderData"]["paragraphs"];

/** Text with each word of the screening list marked (issue 30: the reviewer sees each hit). */
function ScreenedText({ paragraphs, testId }: { paragraphs: Paragraphs; testId: string }) {
  return (
    <article className="admin-card review-text" data-testid={testId}>
      {paragraphs.map((pieces, i) => (
        <p key={i}>
          <ScreenedPieces paragraphs={[pieces]} />
        </p>
      ))}
    </article>
  );
}

/** The pieces of one or more short paragraphs, hits marked, inline. */
function ScreenedPieces({ paragraphs }: { paragraphs: Paragraphs }) {
  return (
    <>
      {paragraphs.flat().map((piece, j) =>
        piece.hit ? (
          <mark key={j} className={`review-hit review-hit-${piece.hit.level}`} title={`${SCREENING_LEVELS[piece.hit.level]}：${piece.hit.word}`}>
            {piece.text}
          </mark>
        ) : (
          piece.text
        ),
      )}
    </>
  );
}
