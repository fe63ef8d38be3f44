import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, useLoaderData } from "react-router";
import { SettingsSubPage } from "~/components/settings/settings-page";
import { NICKNAME_MAX, nicknameSchema } from "~/schemas/settings";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { updateNickname } from "~/server/identity/profile.server";
import type { Route } from "./+types/nickname";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { SaveOrCancel } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

export const meta: Route.MetaFunction = () => [{ title: "修改昵称 - 砚台" }];

export async function loader({ context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  return { nickname: user.nickname };
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: nicknameSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  return replyOnDomainError(async () => {
    await updateNickname(user.id, submission.value.nickname);
    return redirectWithFlash(request, "/settings", { kind: "success", text: "昵称已更新" });
  }, (error) => submission.reply(formErrorsOf(error)));
}

export default function Nickname({ actionData }: Route.ComponentProps) {
  const { nickname } = useLoaderData<typeof loader>();
  const [form, fields] = useSchemaForm(nicknameSchema, { id: "nickname", lastResult: actionData, defaultValue: { nickname } });
  const busy = useIsPending();
  return (
    <SettingsSubPage title="修改昵称">
      <Form method="post" {...getFormProps(form)}>
        <label className="field">
          <span>昵称</span>
          <input {...getInputProps(fields.nickname, { type: "text" })} key={fields.nickname.key} required={false} maxLength={NICKNAME_MAX * 2} autoComplete="nickname" autoFocus />
          <span className="muted">1-{NICKNAME_MAX} 个字符</span>
          <FieldError field={fields.nickname} alert />
        </label>
        <FormError form={form} />
        <SaveOrCancel cancelHref="/settings" pending={busy} />
      </Form>
    </SettingsSubPage>
  );
}
