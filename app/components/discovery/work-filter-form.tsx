import { Form } from "react-router";
import { AI_FILTER_LABELS, AI_FILTERS } from "~/utils/ai-labels";
import { WORK_LENGTHS, WORK_SORTS, WORK_STATUS_FILTERS, type WorkFilters } from "~/schemas/discovery";

/**
 * The works filters (docs/product.md#discovery): a GET form, so it works without
 * JavaScript and every result is a link. `fixedTag`: on a tag's page that tag is given.
 */
export function WorkFilterForm({
  action,
  query,
  filters,
  categories,
  fixedTag,
}: {
  action: string;
  query?: string;
  filters: WorkFilters;
  categories: { id: number; name: string }[];
  fixedTag?: string;
}) {
  const extraTags = filters.tags.filter((t) => t !== fixedTag);
  // A new form on every change of the filters, so the fields show what is applied.
  const key = JSON.stringify([query, filters]);
  return (
    <Form method="get" action={action} className="filter-form" role="search" aria-label="筛选作品" key={key}>
      {/* One author's works (an author's name links here) stay that author's. */}
      {filters.authorId ? <input type="hidden" name="author" value={filters.authorId} /> : null}
      {query !== undefined ? (
        <label className="filter-field filter-query">
          <span>关键词</span>
          <input type="search" name="q" defaultValue={query} placeholder="搜索作品标题、简介或作者" maxLength={100} />
        </label>
      ) : null}
      <label className="filter-field">
        <span>{fixedTag ? "同时包含标签" : "包含标签"}</span>
        <input type="text" name="tags" defaultValue={extraTags.join("，")} placeholder="多个标签用逗号分隔" />
      </label>
      <label className="filter-field">
        <span>排除标签</span>
        <input type="text" name="exclude" defaultValue={filters.excludeTags.join("，")} placeholder="不看含这些标签的作品" />
      </label>
      <label className="filter-field">
        <span>分类</span>
        <select name="category" defaultValue={filters.categoryId ?? ""}>
          <option value="">全部分类</option>
          {categories.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
      </label>
      <label className="filter-field">
        <span>状态</span>
        <select name="status" defaultValue={filters.status ?? ""}>
          <option value="">全部</option>
          {Object.entries(WORK_STATUS_FILTERS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label className="filter-field">
        <span>字数</span>
        <select name="length" defaultValue={filters.length ?? ""}>
          <option value="">不限</option>
          {Object.entries(WORK_LENGTHS).map(([value, range]) => (
            <option key={value} value={value}>
              {range.label}
            </option>
          ))}
        </select>
      </label>
      <label className="filter-field">
        <span>AI 标识</span>
        <select name="ai" defaultValue={filters.ai ?? ""}>
          <option value="">全部</option>
          {AI_FILTERS.map((f) => (
            <option key={f} value={f}>
              {AI_FILTER_LABELS[f]}
            </option>
          ))}
        </select>
      </label>
      <label className="filter-field">
        <span>排序</span>
        <select name="sort" defaultValue={filters.sort}>
          {Object.entries(WORK_SORTS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <input type="hidden" name="page" value="1" />
      <div className="filter-actions">
        <button type="submit" className="btn btn-primary">
          筛选
        </button>
      </div>
    </Form>
  );
}
