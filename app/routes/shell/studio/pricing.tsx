import { data, Form, Link, useLoaderData } from "react-router";
import { StudioNav } from "~/components/studio/studio-nav";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError, FormError } from "~/components/ui/forms";
import { setWorkPricing } from "~/server/economy/chapter-sales.server";
import { getEconomySettings } from "~/server/economy/economy-settings.server";
import { asRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { getOwnedWork } from "~/server/catalog/works.server";
import { identityNeeded } from "~/server/identity/author-identity.server";
import { readSentFields } from "~/schemas/form-fields";
import { workPricingSchema } from "~/schemas/studio";
import type { Route } from "./+types/pricing";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * 销售设置 (docs/product.md#paying-by-chapter): the owner chooses 免费, 全本 (a whole-work
 * price) or 按章 (VIP from chapter N at a 千字价 within the site's range). One plain form.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: `销售设置《${data?.work.title ?? ""}》 - 砚台` }];

export async function loader({ request, url, params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  const [settings, flash, needsIdentity] = await Promise.all([getEconomySettings(), takeFlash(request, url), identityNeeded(user.id)]);
  const mode = work.visibility !== "public-vip" ? "free" : work.saleMode === "chapter" ? "chapter" : "whole";
  return data(
    {
      work: {
        id: work.id,
        title: work.title,
        visibility: work.visibility,
        mode,
        price: work.price,
        vipFrom: work.vipFrom,
        pricePerThousand: work.pricePerThousand,
        chapterCount: work.chapterCount,
      },
      settings: {
        pricePerThousand: settings.pricePerThousand,
        min: settings.pricePerThousandMin,
        max: settings.pricePerThousandMax,
        authorSharePercent: settings.authorSharePercent,
        discount: settings.wholeBookDiscountPercent,
      },
      notice: flash.notice,
      needsIdentity,
    },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const form = await readForm(request);
  return replyOnDomainError(
    async () => {
      await setWorkPricing(user.id, workId, readSentFields(form, workPricingSchema));
      return redirectWithFlash(request, `/works/${workId}/pricing`, { kind: "success", text: "销售设置已保存" });
    },
    (error) => ({ field: error.field ?? null, message: error.message }),
  );
}

export default function Pricing({ actionData }: Route.ComponentProps) {
  const { work, settings, notice, needsIdentity } = useLoaderData<typeof loader>();
  const busy = useIsPending();
  const error = actionData as { field: string | null; message: string } | undefined;
  const fieldError = (name: string) => (error?.field === name ? error.message : undefined);
  return (
    <section className="studio-page">
      <StudioNav workId={work.id} title={work.title} current="pricing" />
      <FlashMessage notice={notice} />
      {needsIdentity && work.mode !== "chapter" ? (
        <p className="notice" data-testid="pricing-identity">
          开通 VIP 章节（按章销售）前需要先完成<Link to="/settings/identity">实名认证</Link>。
        </p>
      ) : null}
      {work.visibility === "private" ? (
        <p className="notice">作品未公开，上架后才能设置售价。</p>
      ) : (
        <Form method="post" className="form" noValidate>
          <FormError errors={error && !error.field ? error.message : undefined} />
          <fieldset>
            <legend>销售方式</legend>
            <label className="radio">
              <input type="radio" name="mode" value="free" defaultChecked={work.mode === "free"} /> 免费
            </label>
            <label className="radio">
              <input type="radio" name="mode" value="whole" defaultChecked={work.mode === "whole"} /> 全本购买：读者一次购买整部作品
            </label>
            <label className="radio">
              <input type="radio" name="mode" value="chapter" defaultChecked={work.mode === "chapter"} /> 按章购买：前几章免费试读，之后按章节字数收费
            </label>
            <FieldError errors={fieldError("mode")} alert as="p" />
          </fieldset>
          <div className="field">
            <label htmlFor="price">全本价格（积分，选择“全本购买”时填写）</label>
            <input id="price" name="price" inputMode="numeric" defaultValue={work.price || ""} aria-invalid={Boolean(fieldError("price"))} />
            <FieldError errors={fieldError("price")} alert as="p" />
          </div>
          <div className="field">
            <label htmlFor="vipFrom">从第几章开始收费（选择“按章购买”时填写）</label>
            <input id="vipFrom" name="vipFrom" inputMode="numeric" defaultValue={work.vipFrom ?? 11} aria-invalid={Boolean(fieldError("vipFrom"))} />
            <FieldError errors={fieldError("vipFrom")} alert as="p" />
          </div>
          <div className="field">
            <label htmlFor="pricePerThousand">
              千字价（每千字积分，{settings.min}–{settings.max}）
            </label>
            <input
              id="pricePerThousand"
              name="pricePerThousand"
              inputMode="numeric"
              defaultValue={work.pricePerThousand ?? settings.pricePerThousand}
              aria-invalid={Boolean(fieldError("pricePerThousand"))}
            />
            <FieldError errors={fieldError("pricePerThousand")} alert as="p" />
          </div>
          <p className="muted">
            章节价格 = 字数 ÷ 1000 × 千字价，向上取整，至少 1 积分；价格在章节发布时确定，之后修改内容或千字价不会改变已发布章节的价格。
            每笔收入的 {settings.authorSharePercent}% 计入你的收入余额。
            {settings.discount > 0 ? `读者“购买全部”可享 ${settings.discount}% 优惠。` : ""}
          </p>
          <SubmitButton className="btn btn-primary" pending={busy} pendingLabel="保存中...">
            保存销售设置
          </SubmitButton>
        </Form>
      )}
    </section>
  );
}
