import { Form, Link } from "react-router";

/**
 * Every page's notice while a 注销 request waits out its cool-off (decision 231): when the
 * account will be deleted, and 撤销 right there (a plain form: it works without JavaScript).
 */
export function DeletionBanner({ dueAt }: { dueAt: string }) {
  return (
    <div className="notice notice-warning deletion-banner" role="status" data-testid="deletion-banner">
      <span>
        你已申请注销账号，账号将于 <strong>{dueAt}</strong> 删除。<Link to="/settings/delete-account">查看详情</Link>
      </span>
      <Form method="post" action="/settings/delete-account" className="deletion-banner-form">
        <input type="hidden" name="intent" value="cancel" />
        <button type="submit" className="btn btn-small">
          撤销注销
        </button>
      </Form>
    </div>
  );
}
