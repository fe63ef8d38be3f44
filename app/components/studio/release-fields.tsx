import { getInputProps, type FieldMetadata } from "@conform-to/react";
import { FieldError } from "~/components/ui/forms";

/**
 * 存稿 / 立即发布 / 定时发布, with the time in China time (Asia/Shanghai). Plain radios and
 * a datetime-local input: the time is read only when 定时发布 is chosen, with or without
 * JavaScript.
 */
export function ReleaseFields({
  release,
  publishAt,
}: {
  release: FieldMetadata<string | undefined>;
  publishAt: FieldMetadata<string | undefined>;
}) {
  const current = (release.value as string | undefined) ?? (release.initialValue as string | undefined) ?? "now";
  return (
    <fieldset className="field release-fields">
      <legend>发布方式</legend>
      {[
        ["draft", "存稿（读者不可见）"],
        ["now", "立即发布"],
        ["at", "定时发布"],
      ].map(([value, label]) => (
        <label key={value} className="radio-field">
          <input type="radio" name={release.name} value={value} defaultChecked={current === value} />
          <span>{label}</span>
        </label>
      ))}
      <label className="field">
        <span>发布时间（北京时间）</span>
        <input {...getInputProps(publishAt, { type: "datetime-local" })} key={publishAt.key} />
        <FieldError field={publishAt} />
      </label>
    </fieldset>
  );
}
