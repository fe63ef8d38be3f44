import { z } from "zod";
import { CONTINUITY_MESSAGES, LADDER_MAX_RUNGS, STATE_LIMITS } from "./continuity-rules";
import { sentText } from "./form-fields";

/** The forms of /works/:id/continuity and the editor's findings panel (docs/decisions/247). */

const id = z.coerce.number({ error: CONTINUITY_MESSAGES.unknownAction }).int().positive({ error: CONTINUITY_MESSAGES.unknownAction });

export const continuityActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("ladder-save"), ladder: z.string().max(LADDER_MAX_RUNGS * (STATE_LIMITS.rung + 1) * 2, { error: CONTINUITY_MESSAGES.ladderTooLong }).optional() }),
  // The story's time: a year number from a chapter on, with how the story names it.
  z.object({ intent: z.literal("time-save"), chapter: sentText, num: sentText, value: sentText }),
  z.object({ intent: z.literal("time-delete"), id }),
  z.object({
    intent: z.literal("finding-waive"),
    id,
    note: z.string().max(STATE_LIMITS.waiverNote * 2, { error: CONTINUITY_MESSAGES.waiverNoteTooLong }).optional(),
    back: sentText,
  }),
  z.object({ intent: z.literal("finding-unwaive"), id, back: sentText }),
  z.object({ intent: z.literal("recheck"), chapterId: id, back: sentText }),
  // The AI 审读 of a chapter (decision 258): by its number on the work's page, by id from the editor.
  z.object({ intent: z.literal("ai-review"), chapter: sentText, chapterId: sentText, back: sentText }),
]);

export type ContinuityAction = z.output<typeof continuityActionSchema>;
