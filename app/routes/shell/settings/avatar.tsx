import { data, Form, useLoaderData } from "react-router";
import { SettingsSubPage } from "~/components/settings/settings-page";
import { SETTINGS_MESSAGES } from "~/schemas/settings";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { fileField, readFormData } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { AVATAR_INPUT_MAX_BYTES } from "~/server/platform/images.server";
import { replaceAvatar } from "~/server/identity/profile.server";
import type { Route } from "./+types/avatar";
import { FormError } from "~/components/ui/forms";
import { SaveOrCancel } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

export const meta: Route.MetaFunction = () => [{ title: "修改头像 - 砚台" }];

export async function loader({ context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  return { avatarUrl: user.avatarUrl, nickname: user.nickname };
}

/** The upload (plus the multipart overhead) is refused before it is buffered if too large. */
export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  return replyOnDomainError(
    async () => {
      const form = await readFormData(request, AVATAR_INPUT_MAX_BYTES + 64 * 1024, "头像图片不能超过20MB");
      const file = fileField(form, "avatar");
      if (!file) return data({ error: SETTINGS_MESSAGES.avatarRequired }, { status: 400 });
      await replaceAvatar(user.id, new Uint8Array(await file.arrayBuffer()));
      return redirectWithFlash(request, "/settings", { kind: "success", text: "头像已更新" });
    },
    (error) => ({ error: error.message }),
  );
}

export default function Avatar({ actionData }: Route.ComponentProps) {
  const { avatarUrl, nickname } = useLoaderData<typeof loader>();
  const busy = useIsPending();
  return (
    <SettingsSubPage title="修改头像">
      <div className="avatar-current">
        {avatarUrl ? (
          <img src={avatarUrl} alt="当前头像" className="avatar avatar-xl" />
        ) : (
          <span className="avatar avatar-xl avatar-letter">{Array.from(nickname)[0] ?? "我"}</span>
        )}
      </div>
      <Form method="post" encType="multipart/form-data">
        <label className="field">
          <span>选择图片</span>
          <input type="file" name="avatar" accept="image/jpeg,image/png,image/webp" />
          <span className="muted">支持 JPG、PNG、WebP 格式。超过 500KB 的图片会自动压缩（最长边 800 像素）。</span>
        </label>
        <FormError errors={actionData?.error} />
        <SaveOrCancel cancelHref="/settings" pending={busy} pendingLabel="上传中...">
          上传头像
        </SaveOrCancel>
      </Form>
    </SettingsSubPage>
  );
}
