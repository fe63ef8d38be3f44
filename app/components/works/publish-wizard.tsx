import { getFormProps, getInputProps, getTextareaProps, useForm, type SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useEffect, useRef, useState } from "react";
import { Form, useFetcher } from "react-router";
import { useLeaveWarning } from "~/components/use-leave-warning";
import { DEFAULT_SEPARATOR, publishSchema } from "~/schemas/work";
import { FieldError, FormError, FormTokenField } from "~/components/ui/forms";
import { formatNumber } from "~/utils/format";
import { useIsPending } from "~/components/ui/use-is-pending";

interface Preview {
  token: string;
  fileName: string;
  separator: string;
  chapters: { title: string; wordCount: number }[];
  totalWords: number;
}

const STEPS = ["状态与类型", "作品信息", "可见范围", "封面", "正文"] as const;
const FIELD_STEP: Record<string, number> = {
  status: 0, type: 0, title: 1, description: 1, categoryId: 1, rating: 1, isAiGenerated: 1, visibility: 2, cover: 3,
  content: 4, chapterTitle: 4, chapterContent: 4, txt: 4, separator: 4, importToken: 4,
};

function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/**
 * The five-step publish wizard. Without JavaScript it is one long form with every
 * section visible; with it, one step at a time with free movement between steps.
 */
export function PublishWizard({
  lastResult,
  preview: serverPreview,
  formToken,
  categories = [],
}: {
  lastResult?: SubmissionResult<string[]>;
  preview: Preview | null;
  formToken: string;
  /** The site's categories (docs/decisions/121): a new work chooses one. */
  categories?: { id: number; name: string }[];
}) {
  const hydrated = useHydrated();
  const txtFetcher = useFetcher<{ result: SubmissionResult<string[]>; preview: Preview | null }>();
  const [step, setStep] = useState(0);
  const leaveWarning = useLeaveWarning();
  const [form, fields] = useForm({
    id: "publish",
    lastResult,
    constraint: getZodConstraint(publishSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    defaultValue: { status: "completed", type: "single_chapter", rating: "all_ages", visibility: "public", separator: DEFAULT_SEPARATOR },
    onValidate({ formData }) {
      return parseWithZod(formData, { schema: publishSchema });
    },
  });
  const initial = (lastResult?.initialValue ?? {}) as Record<string, string>;
  const [status, setStatus] = useState(initial.status ?? "completed");
  const [type, setType] = useState(initial.type ?? "single_chapter");
  const [coverPreview, setCoverPreview] = useState<string | null>(null);
  const coverInput = useRef<HTMLInputElement>(null);
  const txtInput = useRef<HTMLInputElement>(null);
  const separatorInput = useRef<HTMLInputElement>(null);

  const fetchedPreview = txtFetcher.data?.preview ?? null;
  const preview = fetchedPreview ?? serverPreview;
  const txtErrors = txtFetcher.data ? txtFetcher.data.result.error?.txt : form.allErrors.txt;
  const errors = form.allErrors;

  // After a failed publish (refused by the server, or by the check in the browser), open
  // the first step that has an error. Every attempt counts: a second refusal in a row
  // leaves the form's status as it was, and must still bring its step back.
  const [attempts, setAttempts] = useState(0);
  useEffect(() => {
    const failed = Object.keys(errors).map((k) => FIELD_STEP[k]).filter((s) => s !== undefined);
    if (failed.length > 0) setStep(Math.min(...failed));
  }, [lastResult, form.status, attempts]); // eslint-disable-line react-hooks/exhaustive-deps

  function chooseStatus(value: string) {
    setStatus(value);
    if (value === "ongoing") setType("series");
    else if (type === "series") setType("single_chapter");
  }

  function parseTxt() {
    const file = txtInput.current?.files?.[0];
    if (!file) return;
    const fd = new FormData();
    fd.set("intent", "preview-txt");
    fd.set("txt", file);
    fd.set("separator", separatorInput.current?.value ?? DEFAULT_SEPARATOR);
    txtFetcher.submit(fd, { method: "post", action: "/submit", encType: "multipart/form-data" });
  }

  const sectionClass = (i: number) => (hydrated && i !== step ? "wizard-step hidden" : "wizard-step");
  const bodyClass = (t: string) => (hydrated && t !== type ? "body-section hidden" : "body-section");
  const publishing = useIsPending({ formAction: "/submit" });

  return (
    <Form
      method="post"
      action="/submit"
      encType="multipart/form-data"
      className="wizard"
      {...getFormProps(form)}
      {...leaveWarning}
      onSubmit={(event) => {
        setAttempts((n) => n + 1);
        form.onSubmit(event);
      }}
    >
      <FormTokenField token={formToken} />
      {hydrated ? (
        <ol className="wizard-steps">
          {STEPS.map((label, i) => (
            <li key={label} className={i === step ? "current" : i < step ? "done" : ""}>
              <button type="button" onClick={() => setStep(i)}>
                <span className="step-no">{i + 1}</span>
                {label}
              </button>
            </li>
          ))}
        </ol>
      ) : null}

      <fieldset className={sectionClass(0)}>
        <legend>1. 状态与类型</legend>
        <div className="choice-row" role="radiogroup" aria-label="作品状态">
          {[["completed", "已完结"], ["ongoing", "连载中"]].map(([value, label]) => (
            <label key={value} className="choice">
              <input type="radio" name="status" value={value} checked={hydrated ? status === value : undefined}
                defaultChecked={hydrated ? undefined : (initial.status ?? "completed") === value} onChange={() => chooseStatus(value)} />
              {label}
            </label>
          ))}
        </div>
        <div className="choice-row" role="radiogroup" aria-label="作品类型">
          {[["single_chapter", "单章作品", "完结的短篇，直接填写正文"], ["multi_chapter", "多章节TXT", "完结的长篇，导入TXT文件，仅供在线阅读"], ["series", "连载", "连载中的作品，逐章发布"]].map(([value, label, hint]) => {
            const disabled = hydrated && ((status === "ongoing" && value !== "series") || (status === "completed" && value === "series"));
            return (
              <label key={value} className={disabled ? "choice disabled" : "choice"}>
                <input type="radio" name="type" value={value} disabled={disabled} checked={hydrated ? type === value : undefined}
                  defaultChecked={hydrated ? undefined : (initial.type ?? "single_chapter") === value} onChange={() => setType(value)} />
                <span>{label}<small>{hint}</small></span>
              </label>
            );
          })}
        </div>
        <p className="hint">连载中的作品只能选择“连载”；已完结的作品可选单章或多章节。</p>
        <FieldError field={fields.type} errors={errors.type} as="p" />
      </fieldset>

      <fieldset className={sectionClass(1)}>
        <legend>2. 作品信息</legend>
        <label className="field">
          <span>作品标题</span>
          <input {...getInputProps(fields.title, { type: "text" })} key={fields.title.key} maxLength={200} placeholder="请输入作品标题" />
          <FieldError field={fields.title} />
        </label>
        <label className="field">
          <span>作品简介</span>
          <textarea {...getTextareaProps(fields.description)} key={fields.description.key} rows={5} maxLength={5000} placeholder="请输入作品简介" />
          <FieldError field={fields.description} />
        </label>
        {categories.length > 0 ? (
          <label className="field">
            <span>分类</span>
            <select
              name="categoryId"
              required
              // 其他 (or the last category) until the author picks one: a new work always has one.
              defaultValue={initial.categoryId ?? String((categories.find((c) => c.name === "其他") ?? categories[categories.length - 1]).id)}
            >
              {categories.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
            <FieldError field={fields.categoryId} />
          </label>
        ) : null}
        <div className="choice-row" role="radiogroup" aria-label="作品分级">
          {[["all_ages", "全年龄"], ["r18", "R-18"]].map(([value, label]) => (
            <label key={value} className="choice">
              <input type="radio" name="rating" value={value} defaultChecked={(initial.rating ?? "all_ages") === value} />
              {label}
            </label>
          ))}
        </div>
        <label className="checkbox">
          <input type="checkbox" name="isAiGenerated" value="on" defaultChecked={initial.isAiGenerated === "on"} />
          本作品使用了 AI 生成内容
        </label>
      </fieldset>

      <fieldset className={sectionClass(2)}>
        <legend>3. 可见范围</legend>
        <div className="choice-row" role="radiogroup" aria-label="可见范围">
          {[["public", "公开", "所有人可以免费阅读"], ["private", "不公开", "只有自己可见"]].map(([value, label, hint]) => (
            <label key={value} className="choice">
              <input type="radio" name="visibility" value={value} defaultChecked={(initial.visibility ?? "public") === value} />
              <span>{label}<small>{hint}</small></span>
            </label>
          ))}
        </div>
        <p className="hint">发布后可以在“我的作品”中为作品设置价格。</p>
      </fieldset>

      <fieldset className={sectionClass(3)}>
        <legend>4. 封面</legend>
        <div className="cover-picker">
          <div className="cover-preview">
            {coverPreview ? <img src={coverPreview} alt="封面预览" width={200} height={275} /> : <span>默认封面</span>}
          </div>
          <div>
            <label className="field">
              <span>上传封面（可选，建议 200×275 像素，JPG/PNG/WebP，不超过 5MB）</span>
              <input ref={coverInput} type="file" name="cover" accept="image/jpeg,image/png,image/webp"
                onChange={(e) => {
                  const file = e.currentTarget.files?.[0];
                  setCoverPreview(file ? URL.createObjectURL(file) : null);
                }} />
            </label>
            {coverPreview ? (
              <button type="button" className="btn" onClick={() => { if (coverInput.current) coverInput.current.value = ""; setCoverPreview(null); }}>
                移除封面，使用默认封面
              </button>
            ) : null}
            <FieldError errors={errors.cover} as="p" />
            {!hydrated ? <p className="hint">不上传则使用默认封面。若提交失败，请重新选择封面文件。</p> : null}
          </div>
        </div>
      </fieldset>

      <fieldset className={sectionClass(4)}>
        <legend>5. 正文</legend>
        <div className={bodyClass("single_chapter")}>
          {!hydrated ? <h3>单章作品：正文</h3> : null}
          <label className="field">
            <span>正文</span>
            <textarea {...getTextareaProps(fields.content)} key={fields.content.key} rows={18} placeholder="请输入正文内容" />
            <FieldError field={fields.content} />
          </label>
        </div>
        <div className={bodyClass("multi_chapter")}>
          {!hydrated ? <h3>多章节TXT：导入文件</h3> : null}
          <label className="field">
            <span>章节分隔符（以它开头的行是新章节，下一行是章节标题）</span>
            <input ref={separatorInput} {...getInputProps(fields.separator, { type: "text" })} key={fields.separator.key} maxLength={20} />
          </label>
          <label className="field">
            <span>TXT 文件（UTF-8 或 GBK 编码，不超过 20MB）</span>
            <input ref={txtInput} type="file" name="txt" accept=".txt,text/plain" onChange={() => hydrated && parseTxt()} />
          </label>
          <button type="submit" name="intent" value="preview-txt" formNoValidate className="btn"
            onClick={(e) => { if (hydrated) { e.preventDefault(); parseTxt(); } }}>
            {txtFetcher.state !== "idle" ? "解析中..." : "解析TXT"}
          </button>
          <FieldError errors={txtErrors} as="p" />
          <input type="hidden" name="importToken" value={preview?.token ?? ""} />
          {preview ? (
            <div className="txt-preview" data-testid="txt-preview">
              <p>
                《{preview.fileName}》解析出 <strong>{preview.chapters.length}</strong> 个章节，共 {formatNumber(preview.totalWords)} 字
              </p>
              <ol className="chapter-preview-list">
                {preview.chapters.slice(0, 500).map((c, i) => (
                  <li key={i}>
                    <span>{c.title}</span>
                    <small>{formatNumber(c.wordCount)} 字</small>
                  </li>
                ))}
              </ol>
              {preview.chapters.length > 500 ? <p className="hint">仅显示前 500 章。</p> : null}
            </div>
          ) : null}
        </div>
        <div className={bodyClass("series")}>
          {!hydrated ? <h3>连载：第一章</h3> : null}
          <label className="field">
            <span>章节标题</span>
            <input {...getInputProps(fields.chapterTitle, { type: "text" })} key={fields.chapterTitle.key} maxLength={200} placeholder="第一章" />
          </label>
          <label className="field">
            <span>章节内容</span>
            <textarea {...getTextareaProps(fields.chapterContent)} key={fields.chapterContent.key} rows={16} />
            <FieldError field={fields.chapterContent} />
          </label>
        </div>
      </fieldset>

      <FormError form={form} />
      <div className="wizard-nav">
        {hydrated && step > 0 ? <button type="button" className="btn" onClick={() => setStep(step - 1)}>上一步</button> : null}
        {hydrated && step < STEPS.length - 1 ? <button type="button" className="btn btn-primary" onClick={() => setStep(step + 1)}>下一步</button> : null}
        {!hydrated || step === STEPS.length - 1 ? (
          <button type="submit" name="intent" value="publish" className="btn btn-primary" disabled={publishing}>
            {publishing ? "发布中..." : "发布作品"}
          </button>
        ) : null}
      </div>
    </Form>
  );
}
