import { z } from "zod";
import { asSent, flag } from "./form-fields";

/** Limits shared by the 书单 forms and the server (app/server/community/booklists.server.ts, decision 232). */
export const BOOKLIST_TITLE_MAX = 30;
export const BOOKLIST_DESCRIPTION_MAX = 500;
export const BOOKLIST_NOTE_MAX = 200;
/** Works one 书单 may hold. */
export const BOOKLIST_MAX_ENTRIES = 500;
/** 书单 one reader may keep. */
export const BOOKLIST_MAX_PER_USER = 50;

/**
 * 我的书单's form: 新建书单 (title, description). The domain function checks the texts with
 * its Chinese messages (lengths in 字, the sensitive words).
 */
export const booklistCreateSchema = z.object({ intent: z.literal("create"), title: asSent, description: asSent });

/**
 * 加入书单 on `/works/:id/booklist`: `list` is one of the reader's lists' ids, or `new` with
 * `title` for a new list; `note` is the entry's note (may be empty).
 */
export const booklistAddSchema = z.object({ list: asSent, title: asSent, note: asSent });

/**
 * The owner's forms on `/booklists/:id/edit`: 保存 (title and description), an entry's
 * 保存推荐语, 上移 / 下移 / 置顶, 移除, and 删除书单 (with `confirm`).
 */
export const booklistEditSchema = z.object({
  intent: z.enum(["details", "note", "up", "down", "top", "remove", "delete"]),
  title: asSent,
  description: asSent,
  work: asSent,
  note: asSent,
  confirm: flag,
});

/** 关注书单 / 取消关注 on `/booklists/:id`: the wanted state; `enhanced` from the page's fetcher. */
export const booklistFollowSchema = z.object({ intent: z.literal("follow"), on: flag, enhanced: flag });
