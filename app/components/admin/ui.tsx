import { useEffect, useRef, useState, type ReactNode } from "react";
import { Form, isRouteErrorResponse, Link, useLocation, useNavigate, useNavigation, useRouteError } from "react-router";
import { Dialog } from "~/components/ui/dialog";
import { FieldError, FormError, type ErrorMeta } from "~/components/ui/forms";
import { SubmitButton } from "~/components/ui/submit-button";

/** Green box for successes, red box for errors (docs/product.md: Messages). */
export function Notice({ kind, children, testId }: { kind: "success" | "error"; children: ReactNode; testId?: string }) {
  return (
    <div className={`admin-notice admin-notice-${kind}`} role={kind === "error" ? "alert" : "status"} data-testid={testId}>
      {children}
    </div>
  );
}

/**
 * Errors of one field, under it: the site's FieldError (app/components/ui/forms.tsx) as a
 * block. Pass the Conform `field` so the input's aria-describedby finds the message.
 */
export function FieldErrors({ field, id, errors }: { field?: ErrorMeta; id?: string; errors?: string[] }) {
  return <FieldError field={field} id={id} errors={errors} as="div" />;
}

/** Form-level errors (messages that belong to no field): the site's FormError in the red box. */
export function FormErrors({ form, errors }: { form?: ErrorMeta; errors?: string[] }) {
  return <FormError form={form} errors={errors} as="div" className="admin-notice admin-notice-error" />;
}

/** The "?notice=..." shown after a redirect: fixed messages only, never text from the URL. */
const NOTICES: Record<string, string> = {
  saved: "保存成功",
  deleted: "删除成功",
  "default-set": "已设为默认",
  "password-changed": "密码修改成功",
  "password-reset": "密码已重置，该用户的所有登录已失效",
  "balance-set": "积分余额已调整",
  banned: "已封禁该用户，其所有登录已失效",
  unbanned: "已解除封禁",
  "sessions-ended": "已结束该用户的所有登录",
  "order-credited": "订单已入账",
  "order-already-paid": "该订单此前已入账，未重复入账",
  "order-unpaid": "网关显示该订单尚未支付，未入账",
  "order-refunded": "已退回该订单的积分",
  "work-taken-down": "作品已下架，作者会看到下架原因",
  "work-restored": "作品已恢复",
  "work-rating": "分级已更新",
  "comment-hidden": "评论已隐藏",
  "comment-restored": "评论已恢复显示",
  "review-hidden": "书评已隐藏",
  "review-restored": "书评已恢复显示",
  "reports-dismissed": "已驳回举报",
  "message-sent": "消息已发送到该用户的消息通知",
  "nickname-set": "昵称已更新",
  "codes-generated": "兑换码生成成功！",
  uploaded: "上传成功",
  removed: "已移除",
  revoked: "令牌已撤销",
  "payout-paid": "已标记为已支付",
  "payout-returned": "已登记款项退回，金额已退回作者收入，代扣个税已冲回",
  "payout-refused": "已拒绝，金额已退回作者收入",
  "codes-voided": "兑换码已作废",
  "totp-enabled": "两步验证已开启",
  "totp-disabled": "两步验证已关闭",
  "totp-required": "请先开启两步验证",
  "admin-added": "管理员已添加",
  "admin-disabled": "管理员已停用，其登录已全部失效",
  "admin-enabled": "管理员已启用",
  "admin-role": "角色已修改",
  "admin-password": "密码已重置，该管理员的登录已全部失效",
  "review-approved": "已通过，章节已发布",
  "review-scheduled": "已通过，章节将按定时发布",
  "review-returned": "已退回修改，作者会看到原因",
  "review-rejected": "已拒绝，作者会看到原因",
  "review-passed": "已记录：无问题",
  "review-sample-returned": "已通知作者修改，章节仍对读者可见",
  "review-upheld": "已驳回申诉，维持原审核结果",
  "review-edit-applied": "已通过，读者现在看到修改后的版本",
  "review-edit-returned": "已退回修改，读者仍看到修改前的版本",
  "review-edit-rejected": "已拒绝该修改，读者仍看到修改前的版本",
  "review-approval-returned": "已撤销通过并退回作者修改，读者暂时看不到该章节",
  "review-approval-rejected": "已撤销通过并拒绝，读者看不到该章节",
  "review-work-approved": "已通过，读者现在看到该作品的这些信息",
  "review-work-returned": "已退回作者修改，读者仍看不到这些信息",
  "review-work-rejected": "已拒绝，读者仍看不到这些信息",
  "review-work-approval-returned": "已撤销通过并退回作者修改，读者看回此前通过的信息（新作品重新设为不公开）",
  "review-work-approval-rejected": "已撤销通过并拒绝，读者看回此前通过的信息（新作品重新设为不公开）",
  "review-comment-shown": "评论已公开",
  "review-comment-refused": "评论不予公开，仅其作者可见",
  "review-appeal-withdrawn": "作者已修改申诉的内容，申诉自动撤回，未做其他更改",
  "review-claimed": "已领取",
  "review-empty": "暂无待审核的稿件",
  "review-required": "已更新该作者的先审设置",
  contract: "已更新签约状态",
  "identity-claimed": "已领取",
  "identity-empty": "暂无待审核的实名认证",
  "identity-approved": "已通过实名认证",
  "identity-rejected": "已退回，作者会看到原因",
};

/**
 * A queue's 领取 button (the review queue, 实名审核): `claim-next` takes the oldest nobody
 * holds, `claim` the item on its page. A plain post, so it works without JavaScript.
 */
export function ClaimForm({ intent, label, primary = false }: { intent: "claim" | "claim-next"; label: string; primary?: boolean }) {
  return (
    <Form method="post" className={intent === "claim" ? "admin-inline-form" : undefined}>
      <input type="hidden" name="intent" value={intent} />
      <SubmitButton className={primary ? "btn btn-primary" : "btn"} pendingLabel="领取中...">
        {label}
      </SubmitButton>
    </Form>
  );
}

/** A queue row's last two cells: when it was submitted and how long it has waited, and who holds it. */
export function QueueWaitCells({ submittedAt, waited, claimedBy }: { submittedAt: string; waited: string; claimedBy: string | null }) {
  return (
    <>
      <td>
        {submittedAt}
        <br />
        <small className="admin-muted">已等待 {waited}</small>
      </td>
      <td className="admin-break">{claimedBy ?? "未领取"}</td>
    </>
  );
}

/**
 * The notice named in the query string. With JavaScript it fades after `ms` (the code
 * generation message lasts 3 s) and leaves the address bar; without, it stays.
 */
export function QueryNotice({ ms = 3000 }: { ms?: number }) {
  const location = useLocation();
  const navigate = useNavigate();
  // A page the operator is already going to (a link clicked while the notice showed) must
  // not be cancelled by the notice leaving the address bar: then the notice only hides.
  const navigating = useRef(false);
  navigating.current = useNavigation().state !== "idle";
  const key = new URLSearchParams(location.search).get("notice");
  const [hidden, setHidden] = useState<string | null>(null);
  useEffect(() => {
    if (!key) return;
    const timer = setTimeout(() => {
      setHidden(location.key);
      if (navigating.current) return;
      const params = new URLSearchParams(location.search);
      params.delete("notice");
      const search = params.toString();
      navigate(`${location.pathname}${search ? `?${search}` : ""}`, { replace: true, preventScrollReset: true });
    }, ms);
    return () => clearTimeout(timer);
  }, [key, location.key]); // eslint-disable-line react-hooks/exhaustive-deps
  const message = key ? NOTICES[key] : undefined;
  if (!message || hidden === location.key) return null;
  return (
    <Notice kind="success" testId="notice">
      {message}
    </Notice>
  );
}

/** Shown while a page's loader runs after a client-side navigation or a form post. */
export function PendingBar() {
  const navigation = useNavigation();
  if (navigation.state === "idle") return null;
  return (
    <div className="admin-pending" role="status">
      {navigation.state === "submitting" ? "提交中..." : "加载中..."}
    </div>
  );
}

/**
 * A back-office dialog drawn by the server from the URL (?dialog=...): the site's one
 * Dialog (focus kept inside, Escape closes, the page behind inert), with admin widths.
 */
export function AdminDialog({ title, closeHref, children, wide }: { title: string; closeHref: string; children: ReactNode; wide?: boolean }) {
  return (
    <Dialog title={title} closeHref={closeHref} className={wide ? "admin-modal admin-modal-wide" : "admin-modal"}>
      {children}
    </Dialog>
  );
}

/**
 * A back-office deletion asked once more: the question, then 取消 (back to `closeHref`)
 * and 确认删除, which posts `intent=delete` and the row's `id` to `action`.
 */
export function AdminDeleteDialog({
  title,
  closeHref,
  action,
  id,
  errors,
  children,
}: {
  title: string;
  closeHref: string;
  action: string;
  id: string | number;
  errors?: string[];
  children: ReactNode;
}) {
  return (
    <AdminDialog title={title} closeHref={closeHref}>
      <FormErrors errors={errors} />
      <p>{children}</p>
      <Form method="post" action={action} className="admin-dialog-actions">
        <input type="hidden" name="intent" value="delete" />
        <input type="hidden" name="id" value={id} />
        <Link className="btn" to={closeHref} preventScrollReset>
          取消
        </Link>
        <button type="submit" className="btn btn-danger">
          确认删除
        </button>
      </Form>
    </AdminDialog>
  );
}

/** Every admin page's error box: the server's message when there is one, else a fallback. */
export function AdminErrorBox({ fallback = "加载失败，请重试" }: { fallback?: string }) {
  const error = useRouteError();
  let message = fallback;
  let unauthorized = false;
  if (isRouteErrorResponse(error)) {
    if (typeof error.data === "string" && error.data) message = error.data;
    unauthorized = error.status === 401;
  } else if (error) {
    console.error(error);
  }
  return (
    <section className="admin-page">
      <Notice kind="error">
        {message}
        {unauthorized ? (
          <>
            {" "}
            <a href="/xbbadmin">前往登录</a>
          </>
        ) : null}
      </Notice>
    </section>
  );
}

/**
 * The page of one text setting (站点名称, 站点简介): a heading, the notice, the field with
 * its error, an optional hint, 保存. `errors` is the action's submission reply's `error`.
 */
export function SingleSettingPage({
  heading,
  label,
  name,
  value,
  maxLength,
  rows,
  hint,
  errors,
}: {
  heading: string;
  label: string;
  name: string;
  value: string;
  maxLength: number;
  /** A textarea of this many rows; a one-line input without. */
  rows?: number;
  hint?: string;
  errors?: Record<string, string[] | null> | null;
}) {
  const fieldErrors = errors?.[name] ?? undefined;
  const control = {
    name,
    defaultValue: value,
    maxLength,
    "aria-invalid": fieldErrors ? true : undefined,
    "aria-describedby": fieldErrors ? `${name}-error` : undefined,
  };
  return (
    <section className="admin-page">
      <h1>{heading}</h1>
      <QueryNotice />
      <FormErrors errors={errors?.[""] ?? undefined} />
      <Form method="post" className="admin-card">
        <label className="field">
          <span>{label}</span>
          {rows ? <textarea rows={rows} {...control} /> : <input type="text" {...control} />}
          <FieldErrors id={`${name}-error`} errors={fieldErrors} />
        </label>
        {hint ? <p className="hint">{hint}</p> : null}
        <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
          保存
        </SubmitButton>
      </Form>
    </section>
  );
}
