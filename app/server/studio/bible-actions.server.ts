import type { BibleAction } from "~/schemas/bible";
import { oncePerFormToken, type FormKind, type RecordResult } from "~/server/platform/form-tokens.server";
import {
  bibleListPage,
  deleteEntity,
  deleteFact,
  deleteThread,
  saveChapterSummary,
  saveEntity,
  saveFact,
  saveThread,
  saveVolumeSummary,
  setAiSummaries,
  setEntityWiki,
  setThreadStatus,
} from "./bible.server";
import { deleteState, saveState } from "./continuity.server";
import { addVoicePassage, deleteVoicePassage, saveCliches } from "./voice.server";
import { acceptProposal, rejectProposal, requestChapterSummaries } from "./summary-jobs.server";

export type BibleTab = "bible" | "threads" | "summaries" | "voice";

/**
 * One form of the story bible screen (/works/:id/bible): what it did, and the tab, anchor
 * and (for a saved entity, fact or thread) the page to go back to, the one that lists it;
 * without a page, the screen's own page stays. A new entity, fact or thread is added once
 * per the form's one-time token (decision 077): the same form sent again answers alike.
 */
export async function runBibleAction(
  userId: string,
  workId: number,
  action: BibleAction,
  formToken: string | null = null,
): Promise<{ notice: string; tab: BibleTab; anchor: string; page?: number }> {
  // An edit (with an id) changes what exists; only an addition goes by the token.
  const save = (kind: FormKind, id: number | undefined, write: (record?: RecordResult) => Promise<number>) =>
    id ? write() : oncePerFormToken(userId, kind, formToken, write, async (first) => Number(first));
  switch (action.intent) {
    case "entity-save": {
      const id = await save("entity", action.id, (record) => saveEntity(userId, workId, { ...action, name: action.name ?? "", aliases: action.aliases ?? "" }, record));
      return { notice: action.id ? "设定已保存" : "设定已添加", tab: "bible", anchor: `e-${id}`, page: await bibleListPage(workId, "entity", id) };
    }
    case "entity-delete":
      await deleteEntity(userId, workId, action.id);
      return { notice: "设定已删除", tab: "bible", anchor: "" };
    case "entity-wiki": {
      await setEntityWiki(userId, workId, action.id, action.enabled === "on" ? action.wikiFrom : null);
      return {
        notice: action.enabled === "on" ? `已在读者百科公开：读到第${action.wikiFrom}章的读者可以看到` : "已从读者百科撤下",
        tab: "bible",
        anchor: `e-${action.id}`,
        page: await bibleListPage(workId, "entity", action.id),
      };
    }
    case "fact-save":
      await save("fact", action.id, (record) => saveFact(userId, workId, { ...action, content: action.content ?? "" }, "author", undefined, record));
      return { notice: action.id ? "事实已保存" : "事实已添加", tab: "bible", anchor: `e-${action.entityId}`, page: await bibleListPage(workId, "entity", action.entityId) };
    case "fact-delete":
      await deleteFact(userId, workId, action.id);
      return { notice: "事实已删除", tab: "bible", anchor: "" };
    case "state-save":
      await saveState(userId, workId, { ...action, num: null, action: action.kind === "item" ? action.action : null });
      return { notice: "状态已记录", tab: "bible", anchor: `e-${action.entityId}`, page: await bibleListPage(workId, "entity", action.entityId) };
    case "state-delete": {
      const entityId = await deleteState(userId, workId, action.id);
      return { notice: "状态记录已删除", tab: "bible", anchor: entityId ? `e-${entityId}` : "", ...(entityId ? { page: await bibleListPage(workId, "entity", entityId) } : {}) };
    }
    case "thread-save": {
      const id = await save("plot-thread", action.id, (record) => saveThread(userId, workId, { ...action, title: action.title ?? "" }, record));
      return { notice: action.id ? "伏笔已保存" : "伏笔已添加", tab: "threads", anchor: `t-${id}`, page: await bibleListPage(workId, "thread", id) };
    }
    case "thread-status":
      await setThreadStatus(userId, workId, action.id, action.status);
      return { notice: action.status === "resolved" ? "伏笔已标记为已回收" : "伏笔已重新打开", tab: "threads", anchor: `t-${action.id}`, page: await bibleListPage(workId, "thread", action.id) };
    case "thread-delete":
      await deleteThread(userId, workId, action.id);
      return { notice: "伏笔已删除", tab: "threads", anchor: "" };
    case "summary-save":
      await saveChapterSummary(userId, workId, action.chapterId, action.summary ?? "");
      return { notice: "章节摘要已保存", tab: "summaries", anchor: `s-${action.chapterId}` };
    case "volume-summary-save":
      await saveVolumeSummary(userId, workId, action.volumeId, action.summary ?? "");
      return { notice: "分卷摘要已保存", tab: "summaries", anchor: `v-${action.volumeId}` };
    case "voice-add":
      await save("voice-passage", undefined, (record) => addVoicePassage(userId, workId, action, record));
      return { notice: "已加入文风样本", tab: "voice", anchor: "voice-sample" };
    case "voice-delete":
      await deleteVoicePassage(userId, workId, action.id);
      return { notice: "已从文风样本删除", tab: "voice", anchor: "voice-sample" };
    case "cliches-save": {
      const saved = await saveCliches(userId, workId, action.cliches);
      return { notice: saved.length ? `套话已保存：自定义 ${saved.length} 条` : "套话已保存：只用默认套话", tab: "voice", anchor: "voice-cliches" };
    }
    case "proposal-accept":
      await acceptProposal(userId, workId, action.id);
      return { notice: "已采纳", tab: "summaries", anchor: "proposals" };
    case "proposal-reject":
      await rejectProposal(userId, workId, action.id);
      return { notice: "已忽略", tab: "summaries", anchor: "proposals" };
    case "ai-summaries":
      await setAiSummaries(userId, workId, action.enabled === "on");
      return { notice: action.enabled === "on" ? "已开启AI摘要：之后发布的章节会自动生成摘要和设定建议" : "已关闭AI摘要", tab: "summaries", anchor: "" };
    case "summaries-request": {
      const queued = await requestChapterSummaries(userId, workId, action.chapterIds.split(",").map(Number));
      return {
        notice: queued ? `已开启AI摘要，${queued} 章已排队生成摘要（按实际用量扣Tokens），完成后会出现在下面的建议中` : "这些章节已有摘要或已在排队",
        tab: "summaries",
        anchor: "",
      };
    }
  }
}
