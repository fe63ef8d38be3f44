import { getInputProps, type FieldMetadata } from "@conform-to/react";
import { PASSWORD_MIN_LENGTH } from "~/schemas/auth";
import { FieldError } from "~/components/ui/forms";

/**
 * 新密码 and 确认新密码, for the forms built on `newPasswordFields`
 * (app/schemas/settings.ts): the password change and the reset by e-mail. The server's
 * messages are shown by the fields; the browser's own checks stay off so that they are.
 */
export function NewPasswordFields({
  newPassword,
  confirmPassword,
  autoFocus = false,
}: {
  newPassword: FieldMetadata<string>;
  confirmPassword: FieldMetadata<string>;
  autoFocus?: boolean;
}) {
  return (
    <>
      <label className="field">
        <span>新密码</span>
        <input
          {...getInputProps(newPassword, { type: "password" })}
          key={newPassword.key}
          required={false}
          minLength={undefined}
          autoComplete="new-password"
          placeholder={`至少 ${PASSWORD_MIN_LENGTH} 个字符`}
          autoFocus={autoFocus}
        />
        <FieldError field={newPassword} alert />
      </label>
      <label className="field">
        <span>确认新密码</span>
        <input {...getInputProps(confirmPassword, { type: "password" })} key={confirmPassword.key} required={false} autoComplete="new-password" />
        <FieldError field={confirmPassword} alert />
      </label>
    </>
  );
}
