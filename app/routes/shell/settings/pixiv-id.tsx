import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, useLoaderData } from "react-router";
import { SettingsSubPage } from "~/components/settings/settings-page";
import { PIXIV_ID_MAX, pixivIdSchema, SETTINGS_MESSAGES } from "~/schemas/settings";
import { asRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { getAccountSettings, updatePixivId } from "~/server/identity/profile.server";
import type { Route } from "./+types/pixiv-id";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SaveOrCancel } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

export const meta: Route.MetaFunction = () => [{ title: "设置 pixiv ID - 砚台" }];

export async function loader({ context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const settings = await getAccountSettings(user.id).catch(asRouteError);
  return { pixivId: settings.pixivId ?? "" };
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: pixivIdSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  return replyOnDomainError(
    async () => {
      await updatePixivId(user.id, submission.value.pixivId);
      return redirectWithFlash(request, "/settings", { kind: "success", text: "pixiv ID 已更新" });
    },
    (error) => submission.reply({ fieldErrors: { pixivId: [error.message] } }),
  );
}

export default function PixivId({ actionData }: Route.ComponentProps) {
  const { pixivId } = useLoaderData<typeof loader>();
  const [form, fields] = useSchemaForm(pixivIdSchema, { id: "pixiv-id", lastResult: actionData, defaultValue: { pixivId } });
  const busy = useIsPending();
  return (
    <SettingsSubPage title="设置 pixiv ID">
      <p className="notice notice-warning" role="note">{SETTINGS_MESSAGES.pixivNotice}</p>
      <Form method="post" {...getFormProps(form)}>
        <label className="field">
          <span>pixiv ID</span>
          <input {...getInputProps(fields.pixivId, { type: "text" })} key={fields.pixivId.key} required={false} pattern={undefined} maxLength={PIXIV_ID_MAX} autoComplete="off" autoFocus />
          <FieldError field={fields.pixivId} alert />
        </label>
        <FormError form={form} />
        <SaveOrCancel cancelHref="/settings" pending={busy} />
      </Form>
    </SettingsSubPage>
  );
}
