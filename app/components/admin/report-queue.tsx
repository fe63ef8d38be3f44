import type { ReactNode } from "react";
import { Form, Link } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { Pagination } from "~/components/ui/pagination";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

/** What a report queue's card shows of an item (app/server/admin/report-queues.server.ts). */
interface ReportedItem {
  id: number;
  body: string;
  hiddenAt: Date | null;
  createdAt: Date;
  userId: string;
  writer: string;
  writerEmail: string | null;
  workId: number;
  workTitle: string;
  reports: { reason: string; createdAt: Date; resolvedAt: Date | null; reporter: string; reporterEmail: string | null }[];
}

const DECISIONS = ["hide", "restore", "delete", "dismiss"] as const;
const DECISION_LABEL: Record<(typeof DECISIONS)[number], string> = { hide: "隐藏", restore: "恢复显示", delete: "删除", dismiss: "驳回举报" };

/**
 * A back-office report queue's page (评论举报, 书评举报): the open/all switch, one card per
 * reported item (its writer, text, work and every report, with the decisions it allows, each a
 * form that posts `idField` and `decision` to the page's action), and the pages.
 */
export function ReportQueue<Item extends ReportedItem>(props: {
  title: string;
  /** The page's address, for the switch and the pages. */
  path: string;
  /** What an item is called in the count: 评论, 书评. */
  noun: string;
  /** The form field that carries the item's id. */
  idField: string;
  testId: string;
  data: { items: Item[]; open: boolean; page: number; pageCount: number; total: number };
  error?: string;
  /** After the writer's name (a review's rating). */
  writerNote?: (item: Item) => ReactNode;
  /** After the work's title: where in it the item stands (a chapter, 书评). */
  place: (item: Item) => ReactNode;
  /** Whether 恢复显示 is offered for a hidden item. */
  canRestore?: (item: Item) => boolean;
}) {
  const { title, path, noun, idField, testId, data, error, writerNote, place, canRestore = () => true } = props;
  const { items, open, page, pageCount, total } = data;
  const busy = useIsPending();
  const hrefFor = (p: number) => `${path}?${new URLSearchParams({ show: open ? "open" : "all", page: String(p) })}`;
  return (
    <section className="admin-page">
      <h1>{title}</h1>
      <QueryNotice />
      <FormErrors errors={error ? [error] : undefined} />
      <p>
        {open ? <Link to={`${path}?show=all`}>显示全部（含已处理）</Link> : <Link to={path}>只看待处理</Link>}
        <span className="admin-muted">{`　共 ${total} 条${noun}`}</span>
      </p>
      {items.length === 0 ? <p className="empty-state">暂无待处理的举报</p> : null}
      {items.map((item) => (
        <div className="admin-card" key={item.id} data-testid={testId}>
          <p className="admin-break">
            <strong>{item.writer}</strong> <small className="admin-muted">{item.writerEmail}</small>
            {writerNote?.(item)}
            {item.hiddenAt ? <small className="admin-muted">（已隐藏）</small> : null}
          </p>
          <blockquote className="admin-quote">{item.body}</blockquote>
          <p className="admin-muted">
            《<Link to={`/admin/works/${item.workId}`}>{item.workTitle}</Link>》{place(item)} · {formatShanghaiSeconds(item.createdAt)} ·{" "}
            <Link to={`/admin/users/${item.userId}`}>处理该用户</Link>
          </p>
          <ul className="admin-reports">
            {item.reports.map((r, i) => (
              <li key={i}>
                {r.reporter}（{r.reporterEmail}）：{r.reason}{" "}
                <small className="admin-muted">
                  {formatShanghaiSeconds(r.createdAt)}
                  {r.resolvedAt ? " · 已处理" : ""}
                </small>
              </li>
            ))}
          </ul>
          <div className="admin-inline-form">
            {DECISIONS.filter((d) => (d === "hide" ? !item.hiddenAt : d === "restore" ? !!item.hiddenAt && canRestore(item) : true)).map((d) => (
              <Form method="post" key={d}>
                <input type="hidden" name={idField} value={item.id} />
                <input type="hidden" name="decision" value={d} />
                <SubmitButton className={d === "delete" ? "btn btn-danger" : "btn"} pending={busy}>
                  {DECISION_LABEL[d]}
                </SubmitButton>
              </Form>
            ))}
          </div>
        </div>
      ))}
      <Pagination page={page} pageCount={pageCount} hrefFor={hrefFor} />
    </section>
  );
}
