import { z } from "zod";

import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH } from "./password-rules";

export { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH };

/** An e-mail as every form reads it: trimmed, checked, lower-cased. */
export const emailSchema = z
  .string({ error: "请输入邮箱" })
  .trim()
  .min(1, "请输入邮箱")
  .max(254, "邮箱地址过长")
  .pipe(z.email({ error: "请输入有效的邮箱地址" }))
  .transform((v) => v.toLowerCase());

const password = z
  .string({ error: "请输入密码" })
  .min(1, "请输入密码")
  .refine((v) => new TextEncoder().encode(v).length <= PASSWORD_MAX_BYTES, "密码过长");

const redirectToField = z.string().max(2000).optional();

export const loginSchema = z.object({
  email: emailSchema,
  password,
  redirectTo: redirectToField,
});

export const registerSchema = z.object({
  email: emailSchema,
  password: password.refine(
    (v) => v.length >= PASSWORD_MIN_LENGTH,
    `密码至少需要 ${PASSWORD_MIN_LENGTH} 个字符`,
  ),
  redirectTo: redirectToField,
});

/** Password rule shared by registration, password change and admin reset. */
export const newPasswordSchema = registerSchema.shape.password;
