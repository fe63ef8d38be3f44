import { z } from "zod";
import { sentText } from "./form-fields";
import { OUTLINE_MESSAGES } from "./outline";

const id = z.coerce.number({ error: OUTLINE_MESSAGES.unknownAction }).int().positive({ error: OUTLINE_MESSAGES.unknownAction });

/** The forms of /works/:id/outline; each refusal after the intent is the domain function's. */
export const outlineActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("series-save"), body: sentText }),
  z.object({ intent: z.literal("volume-save"), id: sentText, title: sentText, fromChapter: sentText, toChapter: sentText, body: sentText }),
  z.object({ intent: z.literal("chapter-save"), volume: sentText, chapter: sentText, beats: sentText }),
  z.object({ intent: z.literal("draft"), volume: id, batch: sentText }),
  z.object({ intent: z.literal("restore"), version: id, back: sentText }),
]);

export type OutlineAction = z.output<typeof outlineActionSchema>;
