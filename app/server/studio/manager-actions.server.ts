import { STUDIO_MESSAGES, type ChapterManagerAction } from "~/schemas/studio";
import { oncePerFormToken } from "~/server/platform/form-tokens.server";
import {
  createVolume,
  deleteChapter,
  deleteVolume,
  moveChapter,
  moveChapterToVolume,
  moveVolume,
  publishChapterNow,
  renameChapter,
  renameVolume,
  stepChapter,
} from "./chapters.server";

/** The notice shown after each chapter-manager form. */
const DONE: Record<ChapterManagerAction["intent"], string> = {
  move: "章节已移动",
  up: "章节已上移",
  down: "章节已下移",
  "to-volume": "章节已移到所选分卷",
  rename: "章节已重命名",
  delete: "章节已删除",
  publish: "章节已发布",
  "volume-create": "分卷已创建",
  "volume-rename": "分卷已重命名",
  "volume-delete": "分卷已删除，其中的章节已并入上一分卷",
  "volume-up": "分卷已上移",
  "volume-down": "分卷已下移",
};

/** Runs one chapter-manager form (each intent is one domain operation); the notice to show. */
export async function runChapterManagerAction(userId: string, workId: number, action: ChapterManagerAction, formToken: string | null = null): Promise<string> {
  switch (action.intent) {
    case "move":
      await moveChapter(userId, workId, action.chapterId, action.to);
      break;
    case "up":
    case "down":
      await stepChapter(userId, workId, action.chapterId, action.intent);
      break;
    case "to-volume":
      await moveChapterToVolume(userId, workId, action.chapterId, action.volumeId);
      break;
    case "rename":
      if ((await renameChapter(userId, workId, action.chapterId, action.title)) === "held") return STUDIO_MESSAGES.editHeld;
      break;
    case "delete":
      await deleteChapter(userId, workId, action.chapterId);
      break;
    case "publish":
      await publishChapterNow(userId, workId, action.chapterId);
      break;
    case "volume-create":
      // Once per the page's one-time token (decision 077).
      await oncePerFormToken(
        userId,
        "volume",
        formToken,
        (record) => createVolume(userId, workId, action.title, action.chapterId ?? null, record),
        async (volumeId) => Number(volumeId),
      );
      break;
    case "volume-rename":
      await renameVolume(userId, workId, action.volumeId, action.title);
      break;
    case "volume-delete":
      await deleteVolume(userId, workId, action.volumeId);
      break;
    case "volume-up":
    case "volume-down":
      await moveVolume(userId, workId, action.volumeId, action.intent === "volume-up" ? "up" : "down");
      break;
  }
  return DONE[action.intent];
}
