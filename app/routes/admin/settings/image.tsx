import { useState } from "react";
import { data, Form, redirect, useNavigation } from "react-router";
import { Notice, QueryNotice } from "~/components/admin/ui";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { IMAGE_CONFIG_KEYS, removeSiteImage, replaceSiteImage } from "~/server/admin/site-settings.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { fileField, readFormData } from "~/server/platform/form-data.server";
import { siteImageIntentSchema } from "~/schemas/admin";
import { parseWithZod } from "@conform-to/zod/v4";
import type { SiteImageKind } from "~/server/platform/images.server";
import { getSiteConfigValue } from "~/server/platform/site-config.server";
import type { Route } from "./+types/image";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

const MB = 1024 * 1024;

/**
 * docs/product.md: Back office: the default cover, the logo and the hero image. The sizes
 * are images.server's HERO_MAX_BYTES and SITE_IMAGE_MAX_BYTES (which enforce them again);
 * written out here because this table is also used in the browser.
 */
const KINDS = {
  cover: { title: "默认封面", hint: "建议尺寸 200×275 像素", path: "/admin/settings/cover", maxBytes: 5 * MB, tooLarge: "图片大小不能超过5MB" },
  logo: { title: "站点标识", hint: "建议尺寸 200×48 像素，显示高度 48 像素", path: "/admin/settings/logo", maxBytes: 5 * MB, tooLarge: "图片大小不能超过5MB" },
  hero: { title: "首页主图", hint: "建议尺寸 1200×800 像素，最大 2MB", path: "/admin/settings/hero", maxBytes: 2 * MB, tooLarge: "图片大小不能超过2MB" },
  icon: { title: "站点图标", hint: "浏览器标签页上的图标，建议正方形，至少 64×64 像素", path: "/admin/settings/icon", maxBytes: 5 * MB, tooLarge: "图片大小不能超过5MB" },
} as const;

function kindOf(url: URL): SiteImageKind {
  const last = url.pathname.split("/").pop();
  return last === "logo" || last === "hero" || last === "icon" ? last : "cover";
}

export const meta: Route.MetaFunction = ({ location }) => {
  const last = location.pathname.split("/").pop();
  return [{ title: `${last === "logo" ? "站点标识" : last === "hero" ? "首页主图" : last === "icon" ? "站点图标" : "默认封面"} - 管理后台` }];
};

export async function loader({ request, url }: Route.LoaderArgs) {
  const kind = kindOf(url);
  return { kind, url: await getSiteConfigValue(IMAGE_CONFIG_KEYS[kind]), ...KINDS[kind] };
}

/** Upload (re-encoded on the server, docs/product.md D10) or remove (the stored value becomes empty). */
export async function action({ request, url, context }: Route.ActionArgs) {
  const kind = kindOf(url);
  const { path, maxBytes, tooLarge } = KINDS[kind];
  return replyOnDomainError(
    async () => {
      // The multipart body may be a little larger than the file itself.
      const form = await readFormData(request, maxBytes + 64 * 1024, tooLarge);
      const picked = parseWithZod(form, { schema: siteImageIntentSchema });
      if (picked.status === "success" && picked.value.intent === "remove") {
        await removeSiteImage(adminActorOf(context), kind);
        return redirect(`${path}?notice=removed`);
      }
      const file = fileField(form, "image");
      if (!file) return data({ error: "请选择图片文件" }, { status: 400 });
      if (file.size > maxBytes) return data({ error: tooLarge }, { status: 413 });
      await replaceSiteImage(adminActorOf(context), kind, new Uint8Array(await file.arrayBuffer()));
      return redirect(`${path}?notice=uploaded`);
    },
    (error) => ({ error: error.message }),
  );
}

export default function ImageSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { kind, url, title, hint, maxBytes, tooLarge } = loaderData;
  const navigation = useNavigation();
  const busy = useIsPending();
  // With JavaScript a file over the limit is refused before it is sent (the server checks too).
  const [tooBig, setTooBig] = useState(false);
  const error = tooBig ? tooLarge : navigation.state === "idle" ? actionData?.error : undefined;
  return (
    <section className="admin-page">
      <h1>{title}</h1>
      <QueryNotice />
      {error ? <Notice kind="error">{error}</Notice> : null}
      <div className="admin-card">
        {url ? (
          <div className="admin-image-current">
            <img src={url} alt={title} className={`admin-image-${kind}`} data-testid="current-image" />
            <Form method="post" encType="multipart/form-data">
              <input type="hidden" name="intent" value="remove" />
              <SubmitButton className="btn btn-danger" pending={busy}>移除</SubmitButton>
            </Form>
          </div>
        ) : (
          <p className="hint">尚未设置{title}</p>
        )}
        <Form method="post" encType="multipart/form-data" className="admin-upload">
          <input type="hidden" name="intent" value="upload" />
          <label className="field">
            <span>{url ? "更换图片" : "上传图片"}</span>
            <input
              type="file"
              name="image"
              accept="image/png,image/jpeg,image/webp,image/gif,image/avif"
              required
              onChange={(event) => setTooBig((event.currentTarget.files?.[0]?.size ?? 0) > maxBytes)}
            />
            <span className="hint">{hint}</span>
          </label>
          <button type="submit" className="btn btn-primary" disabled={busy || tooBig}>
            {busy ? "上传中..." : "上传"}
          </button>
        </Form>
      </div>
    </section>
  );
}
