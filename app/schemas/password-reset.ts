import { z } from "zod";
import { emailSchema } from "./auth";
import { PASSWORD_RESET_MESSAGES } from "./password-reset-rules";
import { newPasswordFields, newPasswordsMatch } from "./settings";

/** 32 random bytes in base64url: what a link carries. Anything else is no token of ours. */
export const RESET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const passwordResetRequestSchema = z.object({ email: emailSchema });

export const passwordResetSchema = z
  .object({
    token: z.string({ error: PASSWORD_RESET_MESSAGES.linkMissing }).min(1, PASSWORD_RESET_MESSAGES.linkMissing),
    ...newPasswordFields,
  })
  .refine(...newPasswordsMatch);
