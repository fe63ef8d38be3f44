import { z } from "zod";
import { sentText } from "./form-fields";

/** The 写作台's forms (docs/decisions/261): the daily target, checked by `setDailyTarget` with its own messages (decision 173). */
export const deskActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("target-save"), target: sentText }),
  z.object({ intent: z.literal("target-clear") }),
]);
