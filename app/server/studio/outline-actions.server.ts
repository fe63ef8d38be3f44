import type { OutlineAction } from "~/schemas/outline-forms";
import { requestOutlineDraft, restoreOutlineVersion, saveChapterOutline, saveSeriesOutline, saveVolumeOutline } from "./outlines.server";

/** One form of /works/:id/outline (decision 255): what it did and where the page goes back to. */
export async function runOutlineAction(userId: string, workId: number, action: OutlineAction): Promise<{ notice: string; to: string }> {
  const page = `/works/${workId}/outline`;
  const volumePage = (volume: string | number) => (/^\d+$/.test(String(volume)) ? `${page}?volume=${volume}` : page);
  switch (action.intent) {
    case "series-save":
      await saveSeriesOutline(userId, workId, action.body);
      return { notice: "总纲已保存", to: `${page}#series` };
    case "volume-save": {
      const id = await saveVolumeOutline(userId, workId, {
        id: /^\d+$/.test(action.id) ? Number(action.id) : null,
        title: action.title,
        fromChapter: action.fromChapter,
        toChapter: action.toChapter,
        body: action.body,
      });
      return { notice: "卷纲已保存", to: volumePage(id) };
    }
    case "chapter-save":
      await saveChapterOutline(userId, workId, action.chapter, action.beats);
      return { notice: `第${action.chapter.trim()}章细纲已保存`, to: `${volumePage(action.volume)}#chapter-${action.chapter.trim()}` };
    case "draft":
      await requestOutlineDraft(userId, workId, action.volume, action.batch);
      return { notice: "已开始生成细纲，完成一批就会显示在下面（可以刷新页面查看进度）", to: volumePage(action.volume) };
    case "restore": {
      const outline = await restoreOutlineVersion(userId, workId, action.version);
      return { notice: "已恢复这个版本（恢复前的内容也保存为一个版本）", to: `${page}?history=${outline.id}${/^\d+$/.test(action.back) ? `&volume=${action.back}` : ""}` };
    }
  }
}
