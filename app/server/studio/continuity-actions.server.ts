import type { ContinuityAction } from "~/schemas/continuity";
import { aiReviewChapter } from "./continuity-review.server";
import { deleteState, recheckChapter, saveLadder, saveState, unwaiveFinding, waiveFinding } from "./continuity.server";

/**
 * One form of /works/:id/continuity or of the editor's findings panel (decision 247): what
 * it did and where to go back to: the chapter's editor when the form came from there
 * (`back=chapter`), the work's list otherwise.
 */
export async function runContinuityAction(userId: string, workId: number, action: ContinuityAction): Promise<{ notice: string; to: string }> {
  const list = `/works/${workId}/continuity`;
  const backTo = (back: string, chapterId: number, anchor: string) => (back === "chapter" ? `/works/${workId}/chapters/${chapterId}#continuity` : `${list}${anchor}`);
  switch (action.intent) {
    case "ladder-save":
      await saveLadder(userId, workId, action.ladder ?? "");
      return { notice: "境界阶梯已保存", to: `${list}#ladder` };
    case "time-save":
      await saveState(userId, workId, { kind: "time", entityId: null, chapter: action.chapter.trim() === "" ? null : action.chapter, num: action.num.trim() === "" ? null : action.num, value: action.value });
      return { notice: "故事时间已记录", to: `${list}#time` };
    case "time-delete":
      await deleteState(userId, workId, action.id);
      return { notice: "故事时间已删除", to: `${list}#time` };
    case "finding-waive": {
      const chapterId = await waiveFinding(userId, workId, action.id, action.note ?? "");
      return { notice: "已标为有意安排", to: backTo(action.back, chapterId, "") };
    }
    case "finding-unwaive": {
      const chapterId = await unwaiveFinding(userId, workId, action.id);
      return { notice: "已取消有意安排", to: backTo(action.back, chapterId, "?show=waived") };
    }
    case "ai-review": {
      const byId = Number(action.chapterId);
      const done = await aiReviewChapter(userId, workId, Number.isSafeInteger(byId) && byId > 0 ? { chapterId: byId } : { number: action.chapter });
      return {
        notice: done.found ? `AI 审读完成：发现 ${done.found} 处可能的问题，已列在下面（标有「AI 审读」）` : "AI 审读完成：没有发现问题",
        to: backTo(action.back, done.chapterId, ""),
      };
    }
    case "recheck": {
      const open = await recheckChapter(userId, workId, action.chapterId);
      return { notice: open ? `重新检查完成：发现 ${open} 处待处理` : "重新检查完成：没有发现问题", to: backTo(action.back, action.chapterId, "") };
    }
  }
}
