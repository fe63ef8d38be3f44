import { AdminErrorBox } from "~/components/admin/ui";
import { formatNumber, formatTokens } from "~/utils/format";
import { getDashboardStats } from "~/server/admin/dashboard.server";
import type { Route } from "./+types/dashboard";

export const meta: Route.MetaFunction = () => [{ title: "仪表盘 - 管理后台" }];

export async function loader() {
  return { stats: await getDashboardStats() };
}

function Stat({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="admin-stat" data-testid={testId}>
      <div className="admin-stat-label">{label}</div>
      <div className="admin-stat-value">{value}</div>
    </div>
  );
}

export default function Dashboard({ loaderData: { stats } }: Route.ComponentProps) {
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
      </div>
      <h2 className="admin-section-title">今日</h2>
      <div className="admin-stats">
        <Stat label="今日新用户" value={formatNumber(stats.today.newUsers)} testId="stat-today-users" />
        <Stat label="今日购买" value={`${formatNumber(stats.today.purchases)} 次`} testId="stat-today-purchases" />
        <Stat label="今日购买积分" value={formatNumber(stats.today.purchaseCredits)} testId="stat-today-credits" />
        <Stat label="今日生成消耗 Tokens" value={formatTokens(stats.today.generationTokens)} testId="stat-today-tokens" />
      </div>
    </section>
  );
}

export function ErrorBoundary() {
  return <AdminErrorBox />;
}
