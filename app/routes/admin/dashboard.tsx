import { formatNumber, formatTokens, formatWait } from "~/utils/format";
import { queueSummary } from "~/server/admin/review-queue.server";
import { DayChart } from "~/components/admin/day-chart";
import { getDailySeries, getDashboardStats } from "~/server/admin/dashboard.server";
import type { Route } from "./+types/dashboard";

export const meta: Route.MetaFunction = () => [{ title: "仪表盘 - 管理后台" }];

export async function loader() {
  const [stats, series, review] = await Promise.all([getDashboardStats(), getDailySeries(), queueSummary()]);
  // 先审后发 (docs/product.md#review): how many chapters wait, and how long the oldest has.
  const oldest = review.oldest ? formatWait(Date.now() - review.oldest.getTime()) : "—";
  return { stats, series, review: { pending: review.pending, oldest } };
}

function Stat({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="admin-stat" data-testid={testId}>
      <div className="admin-stat-label">{label}</div>
      <div className="admin-stat-value">{value}</div>
    </div>
  );
}

export default function Dashboard({ loaderData: { stats, series, review } }: Route.ComponentProps) {
  return (
    <section className="admin-page">
      <h1>仪表盘</h1>
      <h2 className="admin-section-title">总览</h2>
      <div className="admin-stats">
        <Stat label="用户总数" value={formatNumber(stats.users)} testId="stat-users" />
        <Stat label="作品总数" value={formatNumber(stats.works.total)} testId="stat-works" />
        <Stat label="免费作品" value={formatNumber(stats.works.public)} testId="stat-works-public" />
        <Stat label="付费作品" value={formatNumber(stats.works.publicVip)} testId="stat-works-vip" />
        <Stat label="未公开作品" value={formatNumber(stats.works.private)} testId="stat-works-private" />
        <Stat label="待审核章节" value={formatNumber(review.pending)} testId="stat-review-pending" />
        <Stat label="最早待审已等待" value={review.oldest} testId="stat-review-oldest" />
      </div>
      <h2 className="admin-section-title">今日</h2>
      <div className="admin-stats">
        <Stat label="今日新用户" value={formatNumber(stats.today.newUsers)} testId="stat-today-users" />
        <Stat label="今日购买" value={`${formatNumber(stats.today.purchases)} 次`} testId="stat-today-purchases" />
        <Stat label="今日购买积分" value={formatNumber(stats.today.purchaseCredits)} testId="stat-today-credits" />
        <Stat label="今日生成消耗 Tokens" value={formatTokens(stats.today.generationTokens)} testId="stat-today-tokens" />
      </div>
      <h2 className="admin-section-title">近30天</h2>
      <div className="admin-charts">
        <DayChart title="新用户" days={series.days} values={series.newUsers} unit="人" testId="chart-new-users" />
        <DayChart title="充值" days={series.days} values={series.topUps} unit="积分" testId="chart-top-ups" />
        <DayChart title="购买" days={series.days} values={series.purchases} unit="积分" testId="chart-purchases" />
        <DayChart title="生成消耗 Tokens" days={series.days} values={series.tokensUsed} unit="" testId="chart-tokens" />
        <DayChart title="活跃读者" days={series.days} values={series.activeReaders} unit="人" testId="chart-readers" />
      </div>
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
