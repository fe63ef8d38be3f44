import { z } from "zod";
import { asSent, sentText } from "./form-fields";

/** 打赏 (docs/product.md#tips-and-fans, decision 207): limits shared by the form and the server. */
export const TIP_PRESETS = [100, 500, 1000, 5000] as const;
export const TIP_MESSAGE_MAX_CHARS = 100;
/** One tip's ceiling, far above any preset: a typo of extra zeros is refused, not spent. */
export const TIP_MAX_AMOUNT = 1_000_000;

/**
 * The tip form (decision 173): `amount` is a preset or `custom` (then `customAmount`);
 * tipWork checks the amount and the message with its own messages.
 */
export const tipFormSchema = z.object({
  amount: sentText,
  customAmount: asSent,
  message: asSent,
});

/** The operator's fan levels (/admin/settings/fans): one `名称 粉丝值` a line; saveFanLevels checks them. */
export const fanLevelsFormSchema = z.object({ levels: sentText });
