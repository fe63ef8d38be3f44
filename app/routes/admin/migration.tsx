import { DatabaseExport } from "~/components/admin/database-export";
import type { Route } from "./+types/migration";

export const meta: Route.MetaFunction = () => [{ title: "数据库导出 - 管理后台" }];

export async function loader() {
  return null;
}

export default function Migration() {
  return (
    <section className="admin-page">
      <h1>数据库导出</h1>
      <p className="hint">
        导出整个数据库为 database.zip，其中的 database.sql 可用 <code>psql -v ON_ERROR_STOP=1 -f database.sql</code>{" "}
        恢复到已迁移到相同结构的空数据库。脚本可使用 API 令牌下载同一文件。
      </p>
      <DatabaseExport />
    </section>
  );
}
