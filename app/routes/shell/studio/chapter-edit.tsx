import { parseWithZod } from "@conform-to/zod/v4";
import { data, useLoaderData } from "react-router";
import { ChapterEditor } from "~/components/studio/chapter-editor";
import { ChapterContinuity } from "~/components/studio/continuity-panel";
import { chapterFindings } from "~/server/studio/continuity.server";
import { StudioNav } from "~/components/studio/studio-nav";
import { FlashMessage } from "~/components/ui/flash-message";
import { chapterEditSchema, releaseNotice, releaseOf, STUDIO_MESSAGES } from "~/schemas/studio";
import { formatShanghai, toShanghaiInput } from "~/utils/shanghai-time";
import { chapterNumber, getChapter } from "~/server/catalog/chapter-numbers.server";
import { db } from "~/db/client.server";
import { asRouteError, DomainError, formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { editReviews, reviewFacts, reviewNotes } from "~/server/studio/review.server";
import { getOwnedWork } from "~/server/catalog/works.server";
import type { Route } from "./+types/chapter-edit";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `编辑章节《${data?.chapter.title ?? ""}》 - 砚台` }];

export async function loader({ request, url, params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  const chapter = await getChapter(work.id, Number(params.chapterId));
  if (!chapter) asRouteError(new DomainError(STUDIO_MESSAGES.chapterNotFound, 404));
  const flash = await takeFlash(request, url);
  return data(
    {
      work: { id: work.id, title: work.title },
      chapter: {
        id: chapter.id,
        // A title saved with an edit under review (decision 213): readers keep the approved one.
        title: chapter.pendingTitle ?? chapter.title,
        // A published chapter's autosaved working copy, when there is one (decision 095).
        content: chapter.pendingContent ?? chapter.content,
        authorNote: chapter.pendingAuthorNote ?? chapter.authorNote,
        pending: chapter.pendingContent !== null || chapter.pendingAuthorNote !== null,
        revision: chapter.revision,
        state: chapter.state,
        publishAt: chapter.publishAt && (chapter.state === "scheduled" || chapter.state === "review") ? { text: formatShanghai(chapter.publishAt), input: toShanghaiInput(chapter.publishAt) } : null,
        number: chapter.state === "published" && chapter.kind === "chapter" ? await chapterNumber(db, chapter) : null,
        kind: chapter.kind,
        review: chapter.state === "draft" ? reviewFacts((await reviewNotes(db, work.id, [chapter.id])).get(chapter.id)) : null,
        edit: chapter.state === "published" ? ((await editReviews(db, work.id, [chapter.id])).get(chapter.id) ?? null) : null,
      },
      // The continuity checks' findings of the chapter's last save (decision 247).
      findings: await chapterFindings(work.id, chapter.id),
      focus: url.searchParams.get("focus") === "1",
      notice: flash.notice,
    },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const chapterId = Number(params.chapterId);
  const submission = parseWithZod(await readForm(request), { schema: chapterEditSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const { title, content, authorNote, revision } = submission.value;
  return replyOnDomainError(
    async () => {
      const saved = await saveChapter(user.id, workId, chapterId, { kind: "save", title, content, authorNote, release: releaseOf(submission.value), baseRevision: revision });
      const notice = saved.editHeld ? STUDIO_MESSAGES.editHeld : releaseNotice(saved.released);
      return redirectWithFlash(request, `/works/${workId}/chapters?chapter=${chapterId}#c-${chapterId}`, {
        kind: "success",
        text: saved.openFindings ? `${notice}${STUDIO_MESSAGES.continuityFound(saved.openFindings)}` : notice,
      });
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

export default function EditChapter({ actionData }: Route.ComponentProps) {
  const { work, chapter, findings, focus, notice } = useLoaderData<typeof loader>();
  return (
    <section className="studio-page">
      <StudioNav workId={work.id} title={work.title} current="chapters" />
      <FlashMessage notice={notice} />
      <ChapterEditor key={chapter.id} workId={work.id} chapter={chapter} focus={focus} lastResult={actionData} />
      <ChapterContinuity workId={work.id} chapterId={chapter.id} findings={findings} />
    </section>
  );
}
