import { useLoaderData } from "react-router";
import { WritingPage } from "./writing-page";
import { userContext } from "~/middleware/guards.server";
import type { Route } from "./+types/short-writing";
import { writingAction, writingLoader } from "./writing-page.server";

export const meta: Route.MetaFunction = () => [{ title: "短篇仿写 - 砚台" }];

/** The form creates rows once per one-time token (decision 077; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["chapter"] };

export async function loader({ url, context }: Route.LoaderArgs) {
  return writingLoader(url, context.get(userContext), "short");
}

export async function action({ request, context }: Route.ActionArgs) {
  return writingAction(request, context.get(userContext), "short");
}

export default function ShortWriting({ actionData }: Route.ComponentProps) {
  return <WritingPage data={useLoaderData<typeof loader>()} actionData={actionData} />;
}
