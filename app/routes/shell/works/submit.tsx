import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { PublishWizard } from "~/components/works/publish-wizard";
import { readSentFields } from "~/schemas/form-fields";
import { publishSchema, publishStepSchema } from "~/schemas/work";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readUploadForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken } from "~/server/platform/form-tokens.server";
import { userContext } from "~/middleware/guards.server";
import { getTxtPreview, previewTxt, publishWork, type TxtPreview } from "~/server/studio/work-create.server";
import { tabOfVisibility } from "~/server/catalog/works.server";
import { listCategories } from "~/server/catalog/categories.server";
import type { Route } from "./+types/submit";

/** A TXT of up to 20 MB plus a 5 MB cover plus the form fields. */
const UPLOAD_MAX = 26 * 1024 * 1024;
const TOO_LARGE = "上传的文件过大：TXT 文件不能超过 20MB，封面不能超过 5MB";

export const meta: Route.MetaFunction = () => [{ title: "上传作品 - 砚台" }];

/** The form creates rows once per one-time token (decision 077; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["publish"] };

// No data, but a loader: a client-side navigation then asks the server, whose
// signed-in guard runs (server middleware runs only when the server is asked).
export async function loader() {
  return { formToken: newFormToken(), categories: await listCategories() };
}

function formError(message: string, field = "") {
  return { status: "error" as const, error: { [field]: [message] } };
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const read = await replyOnDomainError(
    () => readUploadForm(request, UPLOAD_MAX, TOO_LARGE),
    (error) => ({ result: formError(error.message), preview: null }),
  );
  if (!("form" in read)) return read;
  const { form, files } = read;
  const { intent, separator, importToken: token } = readSentFields(form, publishStepSchema);
  const staged = async (): Promise<TxtPreview | null> => (token ? getTxtPreview(user.id, token) : null);

  if (intent === "preview-txt") {
    const submission = parseWithZod(form, { schema: publishSchema });
    const file = files.get("txt");
    if (!file) {
      return data({ result: submission.reply({ fieldErrors: { txt: ["请选择TXT文件"] } }), preview: null }, { status: 400 });
    }
    return replyOnDomainError(
      async () => ({ result: submission.reply({ resetForm: false }), preview: await previewTxt(user.id, file, separator) }),
      (error) => ({ result: submission.reply({ fieldErrors: { txt: [error.message] } }), preview: null }),
    );
  }

  const submission = parseWithZod(form, { schema: publishSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply(), preview: await staged() }, { status: 400 });
  }
  return replyOnDomainError(
    async () => {
      const uploads = { cover: files.get("cover") ?? null, txt: files.get("txt") ?? null };
      // The same form sent twice gives the first one's work (docs/decisions/077).
      const work = await publishWork(user.id, submission.value, uploads, formTokenOf(form));
      return redirect(`/my-works?tab=${tabOfVisibility(work.visibility)}`);
    },
    async (error) => ({ result: submission.reply({ fieldErrors: { [error.field ?? ""]: [error.message] } }), preview: await staged() }),
  );
}

export default function SubmitPage({ actionData, loaderData }: Route.ComponentProps) {
  return (
    <section className="submit-page">
      <h1>上传作品</h1>
      <PublishWizard lastResult={actionData?.result} preview={actionData?.preview ?? null} formToken={loaderData.formToken} categories={loaderData.categories} />
    </section>
  );
}
